# Every dependency comes from Debian 12 / Ubuntu 24.04 packages (scripts/install-deps.sh) or the
# CUDA toolkit. Boost: Debian 12 has 1.81, Ubuntu 24.04 1.83; Process v2 needs 1.80 or newer.
find_package(Boost 1.80...<1.90 REQUIRED CONFIG)   # Process v2, Interprocess, Math: headers only
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
    find_library(ISOBENCH_YAML_CPP_ARCHIVE NAMES libyaml-cpp.a REQUIRED)
    target_link_libraries(isobench::yaml INTERFACE ${ISOBENCH_YAML_CPP_ARCHIVE})
    target_include_directories(isobench::yaml INTERFACE ${YAML_CPP_INCLUDE_DIR})
  else()
    target_link_libraries(isobench::yaml INTERFACE yaml-cpp)
  endif()
endif()
