# isobench_bisect: `orchestrate bisect`: the range walk and its error budget, the commits from
# git, the build cache, the bisection's record, the walk through run() and its report.
# Included from orchestrator/CMakeLists.txt.
add_library(isobench_bisect STATIC
  ${CMAKE_CURRENT_LIST_DIR}/range_walk.cpp
  ${CMAKE_CURRENT_LIST_DIR}/commit_range.cpp
  ${CMAKE_CURRENT_LIST_DIR}/build_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bisect_state.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bisection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bisect_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../commands/bisect_command.cpp)
target_include_directories(isobench_bisect PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(isobench_bisect
  PUBLIC isobench_orchestrator isobench_stats CLI11::CLI11 nlohmann_json::nlohmann_json
  PRIVATE isobench_options)
