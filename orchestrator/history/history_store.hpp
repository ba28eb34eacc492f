#pragma once
// The history: every run added to it (nightly runs, imported results), keyed by machine, label
// and start time, with every sample, in one SQLite file (docs/history.md). Any number of
// processes may add to one file at once: each add is one write transaction, and a run already
// there is recognised by its uid, so adding it again changes nothing.

#include <cstdint>
#include <string>
#include <vector>

#include "orchestrator/history/sqlite_database.hpp"

namespace isobench::orchestrator::history {

// What a run was measured on. `key` tells machines apart: for GPU runs the GPUs' models and
// UUIDs with the driver and CUDA versions, for CPU runs the CPU model and the host name.
struct Machine {
  std::string key;
  std::string gpu_name, gpu_uuid, driver, cuda, cpu, host;
};

// One instance and side of a run: its plan entry and its samples in journal order.
struct RunSeries {
  std::string instance;
  int side = 0;
  std::string plan;  // the plan.json entry, as JSON text
  std::vector<double> samples;
};

// A run as it is added.
struct RunEntry {
  std::string uid;             // stable for one run wherever its directory lies
  std::string content_sha256;  // of its samples: a run resumed since it was added has others
  std::string dir, label, started, status, source, environment;
  int sides = 1;
  Machine machine;
  std::vector<RunSeries> series;
};

enum class AddOutcome { added, unchanged, updated };

// A run as `history list` shows it.
struct StoredRun {
  std::int64_t id = 0;
  std::string dir, label, started, status, source, machine;
  int sides = 1;
  std::int64_t instances = 0, samples = 0;
};

// One run's point in an instance's series.
struct SeriesPoint {
  std::int64_t run_id = 0;
  std::string dir, label, started;
  double median = 0;
  std::vector<double> samples;  // filled only when asked for
};

// The runs of one instance and side on one machine, oldest first (by start time, then by when
// they were added), measured alike: a run whose plan entry differs in what a sample measures (the
// inner count, a sample-changing setting: what compare refuses to pair) starts a series of its
// own, so a change of settings is never read as a change of the code.
struct InstanceSeries {
  std::string machine, instance;
  int side = 0;
  std::string settings;  // what its runs measured alike: "inner 4" and the sample-changing settings
  std::vector<SeriesPoint> points;
};

// read: list, show, regressions and report, which never write into the file (a file with no
// schema yet reads as a history of no runs); add: creates the file (and its folder) when missing.
enum class Access { read, add };

class HistoryStore {
 public:
  // $XDG_DATA_HOME/isobench/history.sqlite, or ~/.local/share/isobench/history.sqlite.
  static std::string default_path();

  // Opens the file as `access` says. An older schema is migrated (reading too: the file stays a
  // history, in this build's format); a newer one, a missing file to read, or a file that is not
  // a history throws SqliteError naming the file.
  HistoryStore(const std::string& path, Access access);

  // Adds every run in one transaction: all of them or, on an error, none.
  std::vector<AddOutcome> add(const std::vector<RunEntry>& runs);

  std::vector<StoredRun> runs();
  // Every series, or those of one instance id when `instance` is not empty, grouped by machine,
  // instance and side.
  std::vector<InstanceSeries> series(const std::string& instance, bool with_samples);

 private:
  AddOutcome add_one(const RunEntry& run);
  std::int64_t machine_id(const Machine& machine);
  Database db_;
  bool unwritten_ = false;  // read: a file with no schema yet, a history of no runs
};

}  // namespace isobench::orchestrator::history
