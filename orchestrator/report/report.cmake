# isobench_report: `orchestrate report`, a static HTML page of the history, runs and calibrations.
# Included from orchestrator/CMakeLists.txt.
add_library(isobench_report STATIC
  ${CMAKE_CURRENT_LIST_DIR}/html_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../commands/report_command.cpp)
target_include_directories(isobench_report PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(isobench_report PUBLIC isobench_history isobench_compare isobench_orchestrator PRIVATE isobench_options)
