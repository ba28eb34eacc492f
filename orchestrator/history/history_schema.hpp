#pragma once
// The history file's schema, versioned with SQLite's user_version. A file is brought to
// kHistorySchemaVersion when it is opened for writing, one migration at a time, inside one
// transaction; a file from a newer build is refused (docs/history.md lists the versions).

#include "orchestrator/history/sqlite_database.hpp"

namespace isobench::orchestrator::history {

// 1: machines, runs, series (one per run, instance and side) and their samples.
// 2: each series keeps its median (the value change points are found on), so reading a long
//    history does not read every sample.
inline constexpr int kHistorySchemaVersion = 2;

// The file's schema version (0: an empty file, no schema yet).
int schema_version(Database& db);

// Creates the schema in an empty file, or migrates an older one; the caller holds a write
// transaction. Throws SqliteError naming the file when its version is newer than this build's.
void bring_up_to_date(Database& db);

// The SQL of one version's schema, from nothing: for the migration tests, which build a file
// of an older version the way that version did.
const char* schema_sql(int version);

}  // namespace isobench::orchestrator::history
