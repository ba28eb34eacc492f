# ISOBENCH_GLIBC_FLOOR (the wheel sets 2.28): the shipped binaries (orchestrate, isobench-worker,
# libisobench-worker.so) are linked against that glibc release's symbols, so they run on it and
# on every later one. GCC compiles as always, with the system's headers; only the link differs:
# GCC's -B finds the start file, libc_nonshared.a and stub libraries of that release that
# cmake/glibc_link_stubs.py has zig (PyPI's ziglang) make, and the linker refuses any symbol the
# release lacks. compat/glibc_compat.cpp defines the few newer ones Debian 12's libstdc++ needs.
# Needs ISOBENCH_STATIC_RUNTIME (the system's libstdc++ would bring its own, newer needs) and
# ziglang in the Python that CMake finds (pyproject.toml's build requirements; docs/install.md).
set(ISOBENCH_GLIBC_FLOOR "" CACHE STRING "Oldest glibc (2.N) the shipped binaries run on; empty: the build machine's")

# isobench_glibc_floor(TARGET...): the targets that link isobench_glibc_compat.
function(isobench_glibc_floor)
  if(NOT ISOBENCH_GLIBC_FLOOR)
    return()
  endif()
  if(NOT ISOBENCH_GLIBC_FLOOR MATCHES "^2\\.[0-9]+$")
    message(FATAL_ERROR "ISOBENCH_GLIBC_FLOOR is '${ISOBENCH_GLIBC_FLOOR}': give a glibc release like 2.28, or nothing")
  endif()
  if(NOT ISOBENCH_STATIC_RUNTIME)
    message(FATAL_ERROR "ISOBENCH_GLIBC_FLOOR needs ISOBENCH_STATIC_RUNTIME=ON: the system's libstdc++ needs the system's glibc")
  endif()
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  set(dir ${PROJECT_BINARY_DIR}/glibc-${ISOBENCH_GLIBC_FLOOR})
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import ziglang" RESULT_VARIABLE no_zig OUTPUT_QUIET ERROR_QUIET)
  if(no_zig)
    message(FATAL_ERROR "ISOBENCH_GLIBC_FLOOR=${ISOBENCH_GLIBC_FLOOR} needs zig: pip install ziglang into "
                        "${Python3_EXECUTABLE}'s environment (pyproject.toml's build requirements have it)")
  endif()
  message(STATUS "isobench: linking the shipped binaries against glibc ${ISOBENCH_GLIBC_FLOOR} (${dir})")
  execute_process(COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/cmake/glibc_link_stubs.py
                          ${ISOBENCH_GLIBC_FLOOR} ${CMAKE_SYSTEM_PROCESSOR} ${dir}
                  RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "isobench: the glibc ${ISOBENCH_GLIBC_FLOOR} link stubs could not be made (above)")
  endif()
  # -pthread: before glibc 2.34 the thread functions are libpthread's, which CMake's Threads does
  # not link where the build machine's libc has them. A CUDA build may link through nvcc, which
  # hands both to the host compiler.
  target_link_options(isobench_glibc_compat INTERFACE "$<$<LINK_LANGUAGE:CXX>:-B${dir}/;-pthread>"
                      "$<$<LINK_LANGUAGE:CUDA>:-Xcompiler=-B${dir}/,-pthread>")
  # Stubs made anew (another zig, another revision of the script) link the binaries anew.
  foreach(target ${ARGN})
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${dir}/stamp)
  endforeach()
endfunction()
