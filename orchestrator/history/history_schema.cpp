#include "orchestrator/history/history_schema.hpp"

#include <string>
#include <vector>

#include "stats/descriptive.hpp"

namespace isobench::orchestrator::history {

namespace {

// Version 1, as it created a file.
constexpr const char* kSchema1 = R"sql(
CREATE TABLE machines (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,        -- what tells one machine from another (docs/history.md)
  gpu_name TEXT NOT NULL, gpu_uuid TEXT NOT NULL, driver TEXT NOT NULL, cuda TEXT NOT NULL,
  cpu TEXT NOT NULL, host TEXT NOT NULL);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  uid TEXT NOT NULL UNIQUE,        -- SHA-256 of run.json's start time and plan.json
  content_sha256 TEXT NOT NULL,    -- of samples.jsonl: a resumed run's new samples replace its old
  dir TEXT NOT NULL,
  label TEXT NOT NULL,
  started TEXT NOT NULL,           -- UTC, ISO 8601, as run.json
  status TEXT NOT NULL,
  machine_id INTEGER NOT NULL REFERENCES machines(id),
  source TEXT NOT NULL,            -- isobench, or the tool an imported run came from
  sides INTEGER NOT NULL,
  added TEXT NOT NULL,
  environment TEXT NOT NULL);      -- environment.json, as text
CREATE TABLE series (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  instance TEXT NOT NULL,
  side INTEGER NOT NULL,
  plan TEXT NOT NULL,              -- the instance's plan.json entry
  UNIQUE (run_id, instance, side));
CREATE INDEX series_by_instance ON series(instance);
CREATE TABLE samples (
  series_id INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,            -- journal order
  value REAL NOT NULL,             -- seconds
  PRIMARY KEY (series_id, seq)) WITHOUT ROWID;
)sql";

// Version 1 -> 2: the median column, filled from the samples already stored.
void add_medians(Database& db) {
  db.exec("ALTER TABLE series ADD COLUMN median REAL NOT NULL DEFAULT 0");
  Statement series = db.prepare("SELECT id FROM series");
  Statement values = db.prepare("SELECT value FROM samples WHERE series_id = ?");
  Statement update = db.prepare("UPDATE series SET median = ? WHERE id = ?");
  while (series.step()) {
    const std::int64_t id = series.integer(0);
    std::vector<double> v;
    values.bind(1, id);
    while (values.step()) v.push_back(values.real(0));
    values.reset();
    if (v.empty()) continue;
    update.bind(1, stats::median(v)).bind(2, id);
    update.step();
    update.reset();
  }
}

}  // namespace

int schema_version(Database& db) {
  Statement s = db.prepare("PRAGMA user_version");
  s.step();
  return static_cast<int>(s.integer(0));
}

const char* schema_sql(int version) {
  if (version == 1) return kSchema1;
  throw SqliteError("no schema version " + std::to_string(version) + " to create from nothing");
}

void bring_up_to_date(Database& db) {
  int version = schema_version(db);
  if (version > kHistorySchemaVersion)
    throw SqliteError(db.path() + ": history schema version " + std::to_string(version) +
                      " is newer than this orchestrate knows (" + std::to_string(kHistorySchemaVersion) + ")");
  if (version == 0) {
    db.exec(kSchema1);
    version = 1;
  }
  if (version == 1) {
    add_medians(db);
    version = 2;
  }
  db.exec("PRAGMA user_version = " + std::to_string(version));
}

}  // namespace isobench::orchestrator::history
