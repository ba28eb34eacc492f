# isobench_sweep: sweep files (YAML) validated and expanded into benchmark instances.
# Included from orchestrator/CMakeLists.txt.
add_library(isobench_sweep STATIC
  ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_parser.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep/benchmark_kinds.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep/expansion.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep/yaml_values.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep/python_benchmark.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep/pytest_collection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/program_output.cpp)
target_include_directories(isobench_sweep PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(isobench_sweep
  PUBLIC isobench_kernel_specs isobench_ipc nlohmann_json::nlohmann_json Boost::headers
  PRIVATE isobench::yaml isobench_interrupt isobench_options)
