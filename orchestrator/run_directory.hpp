#pragma once
// The run directory: everything a run leaves behind, in a versioned format (docs/run-format.md).
//   run.json         status (running, complete, interrupted, failed), counts, failures
//   sweep.yaml       the sweep as given
//   plan.json        instances (stable ids, parameters, pinned inner counts) and the schedule
//   calibration.json how each inner count was chosen
//   environment.json host, CPU, GPU, versions, command line
//   samples.jsonl    the journal, appended as samples arrive
//   summary.json     per-instance statistics, written at the end
//   log.txt          one marked line per event that matters; workers.log: the workers' output
//   artifacts/       files benchmarks kept, per side and instance; artifacts.json: their hashes

#include <chrono>
#include <cstdio>
#include <functional>
#include <ostream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "orchestrator/errors.hpp"

namespace isobench::orchestrator {

inline constexpr int kRunSchemaVersion = 1;

class RunDirectory {
 public:
  // Creates `path`; refuses (UsageError) one that exists and is not empty, or cannot be made.
  static RunDirectory create(const std::string& path);
  // create()'s refusal alone, for a run that checks its directory before it starts what may write
  // there: a zygote whose import makes the side's FlagGems database folder under
  // <run>/flaggems-cache (FlagGems creates FLAGGEMS_CACHE_DIR when imported).
  static void check_unused(const std::string& path);
  // create() after check_unused(path): what the start wrote there is kept.
  static RunDirectory create_checked(const std::string& path);
  // Opens an existing run directory; throws when it is missing or from a newer schema.
  static RunDirectory open(const std::string& path);
  // Opens an existing directory of another kind, which its `record` file marks (a bisection's
  // bisect.json); throws UsageError naming `what` it is not.
  static RunDirectory open_record(const std::string& path, const std::string& record, const std::string& what);

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

  // Writes through a temporary file and rename(), so a reader never sees half a file.
  void write_text(const std::string& name, const std::string& text) const;
  // The same for a file written piece by piece: `write` streams it into the temporary file. When
  // `write` throws, the temporary file is removed and the old file kept.
  void write_with(const std::string& name, const std::function<void(std::ostream&)>& write) const;
  void write_json(const std::string& name, const nlohmann::json& j) const;
  nlohmann::json read_json(const std::string& name) const;  // throws "path: problem"
  bool exists(const std::string& name) const;

 private:
  explicit RunDirectory(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// JSON text that never throws: bytes that are not UTF-8 (a path, a command line) become U+FFFD.
std::string dump_json(const nlohmann::json& j, int indent = -1);

// Checks a schema_version field; throws with the file named when it is newer than this build.
void check_schema_version(const nlohmann::json& j, const std::string& file);

// A line of the run log taken before the log exists (a new run's start: the pytest collection and
// the zygotes that import beside it), written with the time it was taken.
struct LogLine {
  std::string time;  // utc_timestamp()
  std::string tag, message;
};

// The run's log: "2026-11-29T07:55:01.123Z [worker-exit] ..." lines, flushed as written.
class RunLog {
 public:
  explicit RunLog(const std::string& path);
  ~RunLog();
  RunLog(const RunLog&) = delete;
  RunLog& operator=(const RunLog&) = delete;
  void write(const std::string& tag, const std::string& message);
  void write(const LogLine& line);

 private:
  std::FILE* file_ = nullptr;
};

std::string utc_timestamp();           // 2026-11-29T07:55:01.123Z
std::string utc_timestamp(std::chrono::system_clock::time_point when);
// When this process began (its exec, dynamic loading included: /proc/self/stat, to the kernel's
// clock tick), for the timeline of a run from its command's start (run.json "process_started");
// none where /proc does not say.
std::optional<std::chrono::system_clock::time_point> process_start_time();
std::string compact_utc_timestamp();   // 20261129-075501
double unix_time_now();

}  // namespace isobench::orchestrator
