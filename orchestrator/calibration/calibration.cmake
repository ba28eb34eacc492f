# `orchestrate calibrate`, in two libraries. Included from orchestrator/CMakeLists.txt.
#
# isobench_calibration_model: the analysis (FPR, power, sample size, cost) and the result it
# computes from the runs' samples, pure: no files, no processes. It judges the sequential rule by
# the design ab --until-verdict plans (sequential_plan.cpp, in isobench_compare). The printers
# render the result (printers/calibration_printer.cpp: the table on stdout, report.md, the
# charts), so it is a library below isobench_orchestrator, where they are compiled.
add_library(isobench_calibration_model STATIC ${CMAKE_CURRENT_LIST_DIR}/analysis.cpp)
target_include_directories(isobench_calibration_model PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(isobench_calibration_model
  PUBLIC isobench_stats nlohmann_json::nlohmann_json
  PRIVATE isobench_compare isobench_options)  # isobench_compare: ab's sequential design (sequential_plan.cpp)

# isobench_calibration: the experiment (A/A and slowdown runs through run()), its variants, and
# the verb, which writes the calibration's files and prints through the printers.
add_library(isobench_calibration STATIC
  ${CMAKE_CURRENT_LIST_DIR}/experiment.cpp
  ${CMAKE_CURRENT_LIST_DIR}/variant.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../commands/calibrate_command.cpp)
target_include_directories(isobench_calibration PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(isobench_calibration
  PUBLIC isobench_calibration_model isobench_orchestrator isobench_stats CLI11::CLI11 nlohmann_json::nlohmann_json
  PRIVATE isobench_options)
