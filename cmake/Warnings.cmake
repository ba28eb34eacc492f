# isobench_host_options(target): warnings, sanitizers and runtime linkage for host C++ code.
add_library(isobench_options INTERFACE)
target_compile_options(isobench_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wno-missing-field-initializers>)
if(ISOBENCH_SANITIZE)
  target_compile_options(isobench_options INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined>)
  target_link_options(isobench_options INTERFACE -fsanitize=address,undefined)
endif()
if(ISOBENCH_STATIC_RUNTIME)
  target_link_options(isobench_options INTERFACE -static-libstdc++ -static-libgcc)
endif()
