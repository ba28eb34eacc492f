# isobench_calibration: `orchestrate calibrate`'s experiment (A/A and slowdown runs through
# run_command), its analysis (FPR, power, sample size, cost) and its report (Markdown, SVG charts
# drawn by printers/svg_chart).
# Included from orchestrator/CMakeLists.txt.
add_library(isobench_calibration STATIC
  ${CMAKE_CURRENT_LIST_DIR}/analysis.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/experiment.cpp
  ${CMAKE_CURRENT_LIST_DIR}/variant.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../commands/calibrate_command.cpp)
target_include_directories(isobench_calibration PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(isobench_calibration
  PUBLIC isobench_orchestrator isobench_stats CLI11::CLI11 nlohmann_json::nlohmann_json
  PRIVATE isobench_options)
