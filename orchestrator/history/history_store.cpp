#include "orchestrator/history/history_store.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include <nlohmann/json.hpp>

#include "ipc/settings.hpp"
#include "orchestrator/history/history_schema.hpp"
#include "orchestrator/run_directory.hpp"
#include "stats/descriptive.hpp"

namespace isobench::orchestrator::history {

namespace fs = std::filesystem;

namespace {

// Brings the file to this build's schema in one write transaction.
void upgrade_file(const std::string& path) {
  Database db(path, OpenMode::write);
  Transaction t(db);
  bring_up_to_date(db);
  t.commit();
}

// Whether the file holds tables: a file with none and no schema version is a history not yet
// written, one with tables of its own is some other database.
bool has_tables(Database& db) {
  Statement s = db.prepare("SELECT COUNT(*) FROM sqlite_master");
  s.step();
  return s.integer(0) > 0;
}

// What a series' runs must share, from an instance's plan entry: its inner count and the settings
// that change what a sample measures, as "inner 4, timer graph". Entries without them (imported
// runs) share the empty text.
std::string measured_alike(const std::string& plan_text) {
  const auto plan = nlohmann::json::parse(plan_text, nullptr, false);
  if (!plan.is_object()) return {};
  std::string text;
  const auto add = [&](const std::string& name) {
    if (!plan.contains(name)) return;
    const auto& v = plan[name];
    text += (text.empty() ? "" : ", ") + name + " " + (v.is_string() ? v.get<std::string>() : v.dump());
  };
  add("inner");
  for (const auto* spec : ipc::sample_changing_settings()) add(std::string(spec->name));
  return text;
}

Database open_database(const std::string& path, Access access) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw SqliteError(path + ": a folder, not a history file");
  if (!fs::exists(path, ec)) {
    if (access == Access::read) throw SqliteError(path + ": no history there (orchestrate history add RUN... creates it)");
    const fs::path folder = fs::path(path).parent_path();
    if (!folder.empty()) fs::create_directories(folder, ec);
    if (ec) throw SqliteError(folder.string() + ": cannot create the history's folder: " + ec.message());
    return Database(path, OpenMode::create);
  }
  if (access == Access::add) return Database(path, OpenMode::write);
  int version = 0;
  {
    Database db(path, OpenMode::read);
    version = schema_version(db);  // the first read: a file that is not SQLite fails here, by name
    if (version == 0 && has_tables(db))
      throw SqliteError(path + ": not an isobench history (an SQLite file with tables of its own)");
  }
  if (version != 0 && version != kHistorySchemaVersion) upgrade_file(path);
  return Database(path, OpenMode::read);
}

}  // namespace

std::string HistoryStore::default_path() {
  const char* data = std::getenv("XDG_DATA_HOME");
  if (data && *data) return (fs::path(data) / "isobench" / "history.sqlite").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : ".") / ".local" / "share" / "isobench" / "history.sqlite").string();
}

HistoryStore::HistoryStore(const std::string& path, Access access) : db_(open_database(path, access)) {
  // Reading user_version is the first read: a file that is not SQLite fails here, by name.
  const int version = schema_version(db_);
  if (version == kHistorySchemaVersion) return;
  if (access == Access::read) {
    unwritten_ = true;  // open_database brought any other version up to date
    return;
  }
  Transaction t(db_);
  bring_up_to_date(db_);
  t.commit();
}

std::int64_t HistoryStore::machine_id(const Machine& m) {
  Statement find = db_.prepare("SELECT id FROM machines WHERE key = ?");
  find.bind(1, m.key);
  if (find.step()) return find.integer(0);
  Statement insert = db_.prepare(
      "INSERT INTO machines (key, gpu_name, gpu_uuid, driver, cuda, cpu, host) VALUES (?, ?, ?, ?, ?, ?, ?)");
  insert.bind(1, m.key).bind(2, m.gpu_name).bind(3, m.gpu_uuid).bind(4, m.driver).bind(5, m.cuda).bind(6, m.cpu).bind(7, m.host);
  insert.step();
  return db_.last_insert_id();
}

AddOutcome HistoryStore::add_one(const RunEntry& run) {
  AddOutcome outcome = AddOutcome::added;
  Statement find = db_.prepare("SELECT id, content_sha256 FROM runs WHERE uid = ?");
  find.bind(1, run.uid);
  if (find.step()) {
    if (find.text(1) == run.content_sha256) return AddOutcome::unchanged;
    // The run went on (--resume) since it was added: its samples replace the old ones.
    Statement drop = db_.prepare("DELETE FROM runs WHERE id = ?");
    drop.bind(1, find.integer(0));
    drop.step();
    outcome = AddOutcome::updated;
  }
  Statement insert = db_.prepare(
      "INSERT INTO runs (uid, content_sha256, dir, label, started, status, machine_id, source, sides, added, "
      "environment) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert.bind(1, run.uid).bind(2, run.content_sha256).bind(3, run.dir).bind(4, run.label).bind(5, run.started);
  insert.bind(6, run.status).bind(7, machine_id(run.machine)).bind(8, run.source);
  insert.bind(9, static_cast<std::int64_t>(run.sides)).bind(10, utc_timestamp()).bind(11, run.environment);
  insert.step();
  const std::int64_t run_id = db_.last_insert_id();
  Statement series = db_.prepare("INSERT INTO series (run_id, instance, side, plan, median) VALUES (?, ?, ?, ?, ?)");
  Statement sample = db_.prepare("INSERT INTO samples (series_id, seq, value) VALUES (?, ?, ?)");
  for (const auto& s : run.series) {
    if (s.samples.empty()) continue;  // an instance the run never reached has no point in a series
    series.bind(1, run_id).bind(2, s.instance).bind(3, static_cast<std::int64_t>(s.side)).bind(4, s.plan);
    series.bind(5, stats::median(s.samples));
    series.step();
    series.reset();
    const std::int64_t series_id = db_.last_insert_id();
    for (std::size_t i = 0; i < s.samples.size(); ++i) {
      sample.bind(1, series_id).bind(2, static_cast<std::int64_t>(i)).bind(3, s.samples[i]);
      sample.step();
      sample.reset();
    }
  }
  return outcome;
}

std::vector<AddOutcome> HistoryStore::add(const std::vector<RunEntry>& runs) {
  std::vector<AddOutcome> outcomes;
  Transaction t(db_);
  for (const auto& run : runs) outcomes.push_back(add_one(run));
  t.commit();
  return outcomes;
}

std::vector<StoredRun> HistoryStore::runs() {
  if (unwritten_) return {};
  Statement s = db_.prepare(
      "SELECT r.id, r.dir, r.label, r.started, r.status, r.source, m.key, r.sides,"
      " (SELECT COUNT(DISTINCT instance) FROM series WHERE run_id = r.id),"
      " (SELECT COUNT(*) FROM samples JOIN series ON samples.series_id = series.id WHERE series.run_id = r.id)"
      " FROM runs r JOIN machines m ON r.machine_id = m.id ORDER BY r.started, r.id");
  std::vector<StoredRun> out;
  while (s.step())
    out.push_back({s.integer(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5), s.text(6),
                   static_cast<int>(s.integer(7)), s.integer(8), s.integer(9)});
  return out;
}

std::vector<InstanceSeries> HistoryStore::series(const std::string& instance, bool with_samples) {
  if (unwritten_) return {};
  Statement s = db_.prepare(
      "SELECT m.key, se.instance, se.side, r.id, r.dir, r.label, r.started, se.median, se.id, se.plan"
      " FROM series se JOIN runs r ON se.run_id = r.id JOIN machines m ON r.machine_id = m.id"
      " WHERE ?1 = '' OR se.instance = ?1 ORDER BY m.key, se.instance, se.side, r.started, r.id");
  s.bind(1, instance);
  Statement values = db_.prepare("SELECT value FROM samples WHERE series_id = ? ORDER BY seq");
  std::vector<InstanceSeries> out;
  std::size_t group = 0;
  while (s.step()) {
    const std::string machine = s.text(0), id = s.text(1), settings = measured_alike(s.text(9));
    const int side = static_cast<int>(s.integer(2));
    if (out.empty() || out.back().machine != machine || out.back().instance != id || out.back().side != side)
      group = out.size();  // the series of one machine, instance and side start here
    // Runs measured alike join one series, in time order, whatever ran between them.
    auto it = std::find_if(out.begin() + static_cast<std::ptrdiff_t>(group), out.end(),
                           [&](const InstanceSeries& x) { return x.settings == settings; });
    if (it == out.end()) it = out.insert(out.end(), {machine, id, side, settings, {}});
    InstanceSeries& series = *it;
    SeriesPoint p{s.integer(3), s.text(4), s.text(5), s.text(6), s.real(7), {}};
    if (with_samples) {
      values.bind(1, s.integer(8));
      while (values.step()) p.samples.push_back(values.real(0));
      values.reset();
    }
    series.points.push_back(std::move(p));
  }
  return out;
}

}  // namespace isobench::orchestrator::history
