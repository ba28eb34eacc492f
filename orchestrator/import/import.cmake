# isobench_import: other tools' JSON results (Google Benchmark, nvbench, pytest-benchmark) read
# into run directories, and the `orchestrate import` verb. Included from orchestrator/CMakeLists.txt.
add_library(isobench_import STATIC
  ${CMAKE_CURRENT_LIST_DIR}/imported_run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/google_benchmark_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nvbench_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pytest_benchmark_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../commands/import_command.cpp)
target_include_directories(isobench_import PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(isobench_import
  PUBLIC isobench_orchestrator isobench_compare CLI11::CLI11 nlohmann_json::nlohmann_json
  PRIVATE isobench_options)
