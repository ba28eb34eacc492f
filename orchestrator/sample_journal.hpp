#pragma once
// samples.jsonl: one JSON object per line, appended with a single write() as each sample
// arrives, so a crash or a kill of the orchestrator loses nothing that was measured. Readers
// drop a torn last line (no newline, or not JSON) and refuse a torn line anywhere else.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ipc/sample.hpp"

namespace isobench::orchestrator {

struct SampleRecord {
  std::string instance;  // stable id
  std::uint32_t instance_index = 0;
  std::uint32_t sample = 0;
  std::uint32_t round = 0;
  std::uint32_t slot = 0;
  std::uint32_t side = 0;
  std::int64_t worker_pid = 0;
  std::uint64_t worker_serial = 0;  // which worker process of the run (0, 1, ...)
  double unix_time = 0;
  // What the worker measured, as it wrote it into its slot (ipc/sample.hpp): the value in seconds
  // per launch, inner, begin/end, SM clock, host enqueue and kernel GPU time, and the flags
  // (bits here, names in the journal).
  ipc::SampleValues values;
  // A multi-rank instance's sample: each rank's own time, by rank; `value` is the largest
  // (docs/multi-rank.md). Empty for an instance of one process.
  std::vector<double> rank_values;
  // Where it was taken: the CUDA device index the worker was given (-1: not recorded, in
  // journals from before --gpus), and the UUID and name of the GPU the worker opened (empty
  // when it opened none: CPU kernels, commands).
  int gpu = -1;
  std::string gpu_uuid;
  std::string gpu_name;

  nlohmann::json to_json() const;
  static SampleRecord from_json(const nlohmann::json& j);  // throws on missing fields
};

class SampleJournal {
 public:
  // Opens (creating if needed) for appending.
  explicit SampleJournal(const std::string& path);
  ~SampleJournal();
  SampleJournal(const SampleJournal&) = delete;
  SampleJournal& operator=(const SampleJournal&) = delete;

  void append(const SampleRecord& record);
  // Other events worth keeping beside the samples (worker failures); "type" is set by the caller.
  void append_event(const nlohmann::json& event);

 private:
  void write_line(const std::string& line);
  int fd_ = -1;
  std::string path_;
};

struct JournalContents {
  std::vector<SampleRecord> samples;
  std::vector<nlohmann::json> events;  // lines whose type is not "sample"
  bool dropped_torn_tail = false;
  std::uint64_t valid_bytes = 0;  // length of the file up to the last complete line
};

// Throws std::runtime_error "path:line: problem" on a damaged line before the last.
JournalContents read_journal(const std::string& path);

// Cuts a torn tail off the file so appending continues on a line boundary.
void truncate_journal(const std::string& path, std::uint64_t valid_bytes);

}  // namespace isobench::orchestrator
