#pragma once
// What `orchestrate compare` reads: sample files (one time per line, or a JSON array) and run
// directories (plan.json + samples.jsonl). Every problem is a UsageError whose message names
// the file, the line and the problem. The parse_* functions take the text already read, so the
// fuzzers in fuzz/ feed them bytes without touching the file system.

#include <compare>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "orchestrator/errors.hpp"

namespace isobench::orchestrator {

// One number per line (blank lines and # comments allowed), or a JSON array of numbers; at least
// two, every one finite and positive.
std::vector<double> read_sample_file(const std::string& path);
std::vector<double> parse_sample_text(const std::string& path, const std::string& text);

// The GPU a sample was taken on, as its journal line names it ("gpu_uuid", "gpu_name"). Samples
// taken without a CUDA device (CPU kernels, commands) and journals written before these fields
// name none.
struct GpuIdentity {
  std::string uuid;  // "GPU-3f1c2a9e-6b7d-4e21-9c0a-55aa12ff0b31"
  std::string name;  // "NVIDIA H200"
  auto operator<=>(const GpuIdentity&) const = default;
};
using GpuSet = std::set<GpuIdentity>;

// "GPU-3f1c... (NVIDIA H200), GPU-8d2e... (NVIDIA H200)"
std::string gpus_text(const GpuSet& gpus);

struct Run {
  std::string dir;
  std::vector<std::string> order;  // instance ids in plan order
  std::map<std::string, nlohmann::json> plan;
  std::map<std::string, std::vector<double>> samples;
  // An A/B run holds both sides; `samples` is side 0 (baseline), `candidate_samples` side 1.
  bool ab = false;
  std::map<std::string, std::vector<double>> candidate_samples;
  // Per instance id and by side like the samples: the distinct GPUs its samples name. An
  // instance none of whose samples names a GPU has no entry.
  std::map<std::string, GpuSet> gpus, candidate_gpus;
  // Each value's sample index (its "sample" field; its position in journals without one), parallel
  // to `samples` and `candidate_samples`: the plan's order, whatever order the values arrived in.
  std::map<std::string, std::vector<std::uint32_t>> sample_index, candidate_sample_index;
  // plan.json's "sequential" (ab --until-verdict): the design its looks followed; null otherwise.
  nlohmann::json sequential;
};

// kernels.json of a run made with --record-kernels: per instance id, each side's record (an
// object with "kernels") or why it has none ({"reason": ...}).
struct KernelRecords {
  bool present = false;  // the run has a kernels.json
  std::map<std::string, std::vector<nlohmann::json>> sides;  // id -> [side 0, side 1]
};

// Reads DIR/kernels.json. A run without one (older runs, runs without --record-kernels) has no
// records; a damaged one is a warning on `err` and counts as none: kernel records are shown
// beside the verdicts and never decide them.
KernelRecords read_kernel_records(const std::string& dir, std::ostream& err);
KernelRecords parse_kernel_records(const std::string& path, const std::string& text, std::ostream& err);

// Reads DIR/plan.json and DIR/samples.jsonl; a torn last line of the journal is dropped with a
// warning on `err`.
Run read_run(const std::string& dir, std::ostream& err);
// The same from the two files' text; `dir` names the run in messages.
Run parse_run(const std::string& dir, const std::string& plan_text, const std::string& samples_text,
              std::ostream& err);

}  // namespace isobench::orchestrator
