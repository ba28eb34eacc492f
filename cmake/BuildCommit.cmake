# Writes OUTPUT, a header defining ISOBENCH_GIT_COMMIT: the commit SOURCE_DIR is checked out at
# (12 hex digits, "-dirty" when tracked files differ from it), or "unknown" where git or the
# checkout is missing (a source archive). Run at every build (cmake -P), it rewrites OUTPUT only
# when the text changes, so nothing recompiles while the commit stays the same.
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE failed ERROR_QUIET)
if(failed OR commit STREQUAL "")
  set(commit "unknown")
else()
  execute_process(COMMAND git -C "${SOURCE_DIR}" diff-index --quiet HEAD -- RESULT_VARIABLE dirty ERROR_QUIET)
  if(dirty)
    string(APPEND commit "-dirty")
  endif()
endif()
set(text "#define ISOBENCH_GIT_COMMIT \"${commit}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
