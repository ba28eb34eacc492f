# `orchestrate bisect`, in two libraries. Included from orchestrator/CMakeLists.txt.
#
# isobench_bisect_model: what a bisection knows, without a run in it: the commits from git, the
# range walk and its error budget, the record (bisect.json) and the outcome. The printers render
# the outcome, so it sits below isobench_orchestrator, where they are compiled.
add_library(isobench_bisect_model STATIC
  ${CMAKE_CURRENT_LIST_DIR}/range_walk.cpp
  ${CMAKE_CURRENT_LIST_DIR}/commit_range.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bisect_state.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bisect_outcome.cpp)
target_include_directories(isobench_bisect_model PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(isobench_bisect_model
  PUBLIC isobench_stats nlohmann_json::nlohmann_json
  PRIVATE isobench_sweep isobench_options)  # isobench_sweep: program_output, to run git

# isobench_bisect: the walk through run() (each step an A/B run), the build cache, and the verb.
add_library(isobench_bisect STATIC
  ${CMAKE_CURRENT_LIST_DIR}/build_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bisection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../commands/bisect_command.cpp)
target_include_directories(isobench_bisect PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(isobench_bisect
  PUBLIC isobench_bisect_model isobench_orchestrator isobench_stats CLI11::CLI11 nlohmann_json::nlohmann_json
  PRIVATE isobench_options)
