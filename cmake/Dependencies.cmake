# Every dependency comes from Debian 12 packages (scripts/install-deps.sh) or the CUDA toolkit.
find_package(Boost 1.81.0 EXACT REQUIRED CONFIG)   # Process v2, Interprocess, Math: headers only
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(Threads REQUIRED)
if(ISOBENCH_TESTS)
  find_package(doctest REQUIRED)
endif()

# yaml-cpp 0.7's package config names its target yaml-cpp; give it one stable name.
if(NOT TARGET isobench::yaml)
  add_library(isobench::yaml INTERFACE IMPORTED)
  if(ISOBENCH_STATIC_RUNTIME)
    target_link_libraries(isobench::yaml INTERFACE /usr/lib/x86_64-linux-gnu/libyaml-cpp.a)
    target_include_directories(isobench::yaml INTERFACE ${YAML_CPP_INCLUDE_DIR})
  else()
    target_link_libraries(isobench::yaml INTERFACE yaml-cpp)
  endif()
endif()
