# isobench_history: the history file (SQLite), the runs it stores, their change points, and the
# `orchestrate history` verb. Included from orchestrator/CMakeLists.txt.
find_package(SQLite3 REQUIRED)  # Debian's libsqlite3-dev
add_library(isobench_sqlite INTERFACE)
if(ISOBENCH_STATIC_RUNTIME)
  # The device machine has no libsqlite3: the device build carries it inside orchestrate.
  find_library(ISOBENCH_SQLITE_ARCHIVE NAMES libsqlite3.a REQUIRED)
  target_link_libraries(isobench_sqlite INTERFACE ${ISOBENCH_SQLITE_ARCHIVE} ${CMAKE_DL_LIBS} Threads::Threads)
  target_include_directories(isobench_sqlite INTERFACE ${SQLite3_INCLUDE_DIRS})
else()
  target_link_libraries(isobench_sqlite INTERFACE SQLite::SQLite3)
endif()

add_library(isobench_history STATIC
  ${CMAKE_CURRENT_LIST_DIR}/sqlite_database.cpp
  ${CMAKE_CURRENT_LIST_DIR}/history_schema.cpp
  ${CMAKE_CURRENT_LIST_DIR}/history_store.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_entry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/series_changes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../commands/history_command.cpp)
target_include_directories(isobench_history PUBLIC ${PROJECT_SOURCE_DIR})
target_link_libraries(isobench_history
  PUBLIC isobench_compare isobench_artifacts isobench_orchestrator isobench_stats CLI11::CLI11 nlohmann_json::nlohmann_json
  PRIVATE isobench_sqlite isobench_options)
