#include "fuzz/entry_points.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "ipc/instance_table.hpp"
#include "ipc/rank_group.hpp"
#include "ipc/segment.hpp"
#include "orchestrator/artifacts.hpp"
#include "orchestrator/compare/artifact_diff.hpp"
#include "orchestrator/compare/compare_inputs.hpp"
#include "orchestrator/compare/kernel_diff.hpp"
#include "orchestrator/plan.hpp"
#include "orchestrator/run/sweep_plan.hpp"
#include "orchestrator/sample_journal.hpp"
#include "orchestrator/sweep.hpp"

// Aborts (a crash to libFuzzer, a failure to the replay test) when an invariant breaks.
#define FUZZ_CHECK(condition)                                                                  \
  do {                                                                                         \
    if (!(condition)) {                                                                        \
      std::fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #condition);   \
      std::abort();                                                                            \
    }                                                                                          \
  } while (0)

namespace isobench::fuzz {
namespace {

using nlohmann::json;
namespace orch = isobench::orchestrator;

// A plan survives the trip through plan.json text that --resume takes, unchanged.
void check_plan_round_trip(const orch::Plan& plan) {
  const json written = plan.to_json();
  const orch::Plan read = orch::Plan::from_json(json::parse(written.dump()));
  FUZZ_CHECK(read.to_json() == written);
}

// What the Runner relies on: tasks name existing instances and slots, and no slot is planned twice.
void check_schedule(const orch::Plan& plan) {
  const std::uint64_t n_slots = std::uint64_t{plan.schedule.n_instances} * plan.schedule.samples * plan.schedule.sides;
  std::set<std::uint32_t> slots;
  for (const auto& run : plan.schedule.runs)
    for (const auto& t : run.tasks) {
      FUZZ_CHECK(t.instance < plan.instances.size());
      FUZZ_CHECK(t.slot < n_slots);
      FUZZ_CHECK(slots.insert(t.slot).second);
    }
}

void sweep(std::string_view input) {
  orch::Sweep s;
  try {
    s = orch::parse_sweep(std::string(input), "fuzz.yaml");
  } catch (const orch::SweepError&) {
    return;  // the documented way to refuse a sweep
  }
  FUZZ_CHECK(s.settings.samples >= 2);
  std::set<std::string> ids;
  for (const auto& in : s.instances) {
    FUZZ_CHECK(!in.id.empty());
    FUZZ_CHECK(ids.insert(in.id).second);  // ids join runs: two instances may not share one
    FUZZ_CHECK(in.measure.rotate_buffers >= 1);
    FUZZ_CHECK(!in.measure.inner || *in.measure.inner >= 1);
    FUZZ_CHECK(in.measure.warmup >= 0);
    FUZZ_CHECK(std::isfinite(in.measure.min_sample_time_s) && in.measure.min_sample_time_s > 0);
    FUZZ_CHECK(std::isfinite(in.measure.slowdown_pct) && in.measure.slowdown_pct >= 0);
  }
  // Planning is linear in instances x samples; past this bound a fuzz run measures the
  // allocator, not the planner (bench/bench_plan.cpp times 10,000 instances).
  if (s.instances.size() * static_cast<std::uint64_t>(s.settings.samples) > (1u << 14)) return;
  for (auto backend : {kernels::Backend::cpu, kernels::Backend::cuda}) {
    const orch::Plan plan = orch::make_plan(s, backend);
    FUZZ_CHECK(plan.instances.size() + plan.skipped.size() == s.instances.size());
    check_schedule(plan);
    check_plan_round_trip(plan);
  }
}

// read_journal takes a path: hand it an anonymous memory file.
class MemoryFile {
 public:
  explicit MemoryFile(std::string_view bytes) : fd_(memfd_create("fuzz-journal", 0)) {
    FUZZ_CHECK(fd_ >= 0);
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      FUZZ_CHECK(n > 0);
      done += static_cast<std::size_t>(n);
    }
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

void journal(std::string_view input) {
  MemoryFile file(input);
  orch::JournalContents contents;
  try {
    contents = orch::read_journal(file.path());
  } catch (const std::runtime_error&) {
    return;  // "path:line: problem"
  }
  // --resume truncates to valid_bytes and appends: it must end on a line boundary.
  FUZZ_CHECK(contents.valid_bytes <= input.size());
  FUZZ_CHECK(contents.valid_bytes == 0 || input[contents.valid_bytes - 1] == '\n');
  FUZZ_CHECK(contents.dropped_torn_tail == (contents.valid_bytes < input.size()));
  for (const auto& r : contents.samples) {
    const json written = r.to_json();
    FUZZ_CHECK(orch::SampleRecord::from_json(json::parse(written.dump())).to_json() == written);
  }
}

void plan(std::string_view input) {
  const json j = json::parse(input, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return;
  orch::Plan p;
  try {
    p = orch::Plan::from_json(j);
  } catch (const std::runtime_error&) {
    return;  // "plan.json: problem"
  }
  check_schedule(p);
  check_plan_round_trip(p);
}

void compare_samples(std::string_view input) {
  std::vector<double> values;
  try {
    values = orch::parse_sample_text("fuzz.txt", std::string(input));
  } catch (const orch::UsageError&) {
    return;
  }
  FUZZ_CHECK(values.size() >= 2);
  for (double v : values) FUZZ_CHECK(std::isfinite(v) && v > 0);
}

// One input holds both files: plan.json, this separator, samples.jsonl.
constexpr std::string_view kRunSeparator = "\n--- samples.jsonl ---\n";

void compare_run(std::string_view input) {
  const auto cut = input.find(kRunSeparator);
  const std::string plan_text(input.substr(0, cut));
  const std::string samples_text(cut == std::string_view::npos ? std::string_view{}
                                                               : input.substr(cut + kRunSeparator.size()));
  std::ostringstream warnings;
  orch::Run run;
  try {
    run = orch::parse_run("run", plan_text, samples_text, warnings);
  } catch (const orch::UsageError&) {
    return;
  }
  FUZZ_CHECK(run.order.size() == run.plan.size());
  FUZZ_CHECK(run.ab || run.candidate_samples.empty());
  for (const auto* side : {&run.samples, &run.candidate_samples})
    for (const auto& [id, values] : *side) {
      FUZZ_CHECK(run.plan.count(id) == 1);
      for (double v : values) FUZZ_CHECK(std::isfinite(v) && v > 0);
    }
  for (const auto* side : {&run.gpus, &run.candidate_gpus})
    for (const auto& [id, gpus] : *side) {
      FUZZ_CHECK(run.plan.count(id) == 1 && !gpus.empty());
      for (const auto& gpu : gpus) FUZZ_CHECK(!gpu.uuid.empty() && !gpu.name.empty());
    }
}

void segment(std::string_view input) {
  // A mapping is page-aligned; give the validator aligned bytes the way a mapping would.
  std::vector<std::uint64_t> storage((input.size() + 7) / 8 + 1);
  std::memcpy(storage.data(), input.data(), input.size());
  const auto* base = reinterpret_cast<const char*>(storage.data());
  std::string_view instances_json = input;  // the table alone, when the bytes are no segment
  if (ipc::validate_header(base, input.size()).empty()) {
    // Accepted: every table the worker will index lies inside the mapping.
    ipc::Header h;
    std::memcpy(&h, base, sizeof h);
    const auto end = [](std::uint64_t offset, std::uint64_t count, std::uint64_t size) { return offset + count * size; };
    FUZZ_CHECK(h.instances_json_offset + h.instances_json_bytes <= input.size());
    FUZZ_CHECK(end(h.instances_offset, h.n_instances, sizeof(ipc::InstanceEntry)) <= input.size());
    FUZZ_CHECK(end(h.lanes_offset, h.n_lanes, sizeof(ipc::Lane)) <= input.size());
    FUZZ_CHECK(end(h.tasks_offset, std::uint64_t{h.n_lanes} * h.tasks_per_lane, sizeof(ipc::Task)) <= input.size());
    FUZZ_CHECK(end(h.slots_offset, h.n_slots, sizeof(ipc::SampleSlot)) <= input.size());
    instances_json = std::string_view(base + h.instances_json_offset, h.instances_json_bytes);
    // The rank table after the segment's own tables (multi-rank runs): accepted, every part of
    // it lies inside the mapping.
    if (ipc::validate_rank_table(base, input.size(), h.rank_table_offset, h.n_slots).empty()) {
      ipc::RankTableHeader r;
      std::memcpy(&r, base + h.rank_table_offset, sizeof r);
      FUZZ_CHECK(r.max_world >= 2 && r.max_world <= ipc::kMaxRanks);
      FUZZ_CHECK(end(r.groups_offset, r.n_groups, sizeof(ipc::RankGroup)) <= input.size());
      FUZZ_CHECK(end(r.samples_offset, std::uint64_t{r.n_slots} * r.max_world, sizeof(ipc::RankSample)) <= input.size());
      FUZZ_CHECK(end(r.data_offset, std::uint64_t{r.n_groups} * r.max_world, r.data_bytes_per_rank) <= input.size());
    }
  }
  std::vector<ipc::WorkerInstance> instances;
  try {
    instances = ipc::decode_instances(instances_json);
  } catch (const std::runtime_error&) {
    return;  // "instance table entry N: problem"
  }
  for (const auto& in : instances) {
    FUZZ_CHECK(in.backend == "cpu" || in.backend == "cuda");
    FUZZ_CHECK(in.measure.rotate_buffers >= 1);
  }
}

// kernels.json as compare reads it: damage is a warning and no records, never a crash; a run's
// records compared with themselves never differ.
void kernel_records(std::string_view input) {
  std::ostringstream warnings;
  const auto records = orch::parse_kernel_records("kernels.json", std::string(input), warnings);
  FUZZ_CHECK(records.present || records.sides.empty());
  // Ignored input says why; accepted input says nothing.
  FUZZ_CHECK(records.present == warnings.str().empty());
  std::vector<std::string> ids;
  for (const auto& [id, sides] : records.sides) {
    ids.push_back(id);
    for (const auto& side : sides) FUZZ_CHECK(side.is_object());
  }
  for (unsigned side : {0u, 1u}) {
    const auto same = orch::compare_kernels(records, side, records, side, ids);
    FUZZ_CHECK(same.changes.empty());
    for (const auto& id : same.recorded) FUZZ_CHECK(same.differ(id) == false);
  }
}

// artifacts.json as compare reads it: malformed is a runtime_error naming the file; what is
// accepted compares equal to itself, and every hash is empty or 64 lowercase hex digits.
void artifacts(std::string_view input) {
  const auto document = nlohmann::json::parse(input, nullptr, /*allow_exceptions=*/false);
  for (std::uint32_t side : {0u, 1u}) {
    orch::ArtifactSide files;
    try {
      files = orch::artifact_side_from_json(document, side, "artifacts.json");
    } catch (const std::runtime_error& e) {
      FUZZ_CHECK(std::string(e.what()).find("artifacts.json") != std::string::npos);
      return;
    }
    std::vector<std::string> ids;
    for (const auto& [id, list] : files) {
      ids.push_back(id);
      for (const auto& f : list)
        FUZZ_CHECK(f.sha256.empty() ||
                   (f.sha256.size() == 64 && f.sha256.find_first_not_of("0123456789abcdef") == std::string::npos));
    }
    FUZZ_CHECK(orch::compare_artifacts(files, files, ids).changes.empty());
  }
}

}  // namespace

const std::vector<EntryPoint>& entry_points() {
  static const std::vector<EntryPoint> all = {{"sweep", sweep},
                                              {"journal", journal},
                                              {"plan", plan},
                                              {"compare_samples", compare_samples},
                                              {"compare_run", compare_run},
                                              {"segment", segment},
                                              {"kernel_records", kernel_records},
                                              {"artifacts", artifacts}};
  return all;
}

const EntryPoint* find_entry_point(std::string_view name) {
  for (const auto& e : entry_points())
    if (name == e.name) return &e;
  return nullptr;
}

}  // namespace isobench::fuzz
