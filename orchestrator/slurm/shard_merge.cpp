#include "shard_merge.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "orchestrator/artifacts.hpp"
#include "orchestrator/sample_journal.hpp"
#include "task_record.hpp"

namespace isobench::orchestrator {

namespace {

using nlohmann::json;

// The files a shard may have beside its plan and journal, gathered over all shards.
struct SideFiles {
  json calibration = json::array();    // calibration.json's instances, shard after shard
  json reports = json::object();       // instance_reports.json's instances
  json kernels = json::object();       // kernels.json's instances
  json artifact_sides = json::array(); // artifacts.json's sides, their folders under the shard's
  json max_file_bytes;
  bool any_calibration = false, any_reports = false, any_kernels = false, any_artifacts = false;
};

// A side file of a shard: absent is fine; damaged is a warning and leaves it out, since the
// samples are what the run is for.
std::optional<json> side_file(const RunDirectory& shard, const std::string& name, std::vector<std::string>& warnings) {
  if (!shard.exists(name)) return std::nullopt;
  try {
    auto j = shard.read_json(name);
    check_schema_version(j, shard.file(name));
    return j;
  } catch (const std::exception& e) {
    warnings.push_back(std::string(e.what()) + "; left out of the merge");
    return std::nullopt;
  }
}

// The instances of a shard's side file when they have the shape it should have (an array or an
// object), else a warning.
const json* side_instances(const json& j, const RunDirectory& shard, const std::string& name, bool array,
                           std::vector<std::string>& warnings) {
  if (j.contains("instances") && (array ? j["instances"].is_array() : j["instances"].is_object())) return &j["instances"];
  warnings.push_back(shard.file(name) + ": no \"instances\" " + (array ? "array" : "object") + "; left out of the merge");
  return nullptr;
}

void gather_side_files(const RunDirectory& shard, const std::string& prefix, SideFiles& f,
                       std::vector<std::string>& warnings) {
  if (const auto j = side_file(shard, "calibration.json", warnings))
    if (const auto* in = side_instances(*j, shard, "calibration.json", true, warnings)) {
      f.calibration.insert(f.calibration.end(), in->begin(), in->end());
      f.any_calibration = true;
    }
  if (const auto j = side_file(shard, "instance_reports.json", warnings))
    if (const auto* in = side_instances(*j, shard, "instance_reports.json", false, warnings)) {
      f.reports.update(*in);
      f.any_reports = true;
    }
  if (const auto j = side_file(shard, "kernels.json", warnings))
    if (const auto* in = side_instances(*j, shard, "kernels.json", false, warnings)) {
      f.kernels.update(*in);
      f.any_kernels = true;
    }
  const auto artifacts = side_file(shard, "artifacts.json", warnings);
  if (!artifacts) return;
  if (!artifacts->contains("sides") || !(*artifacts)["sides"].is_array()) {
    warnings.push_back(shard.file("artifacts.json") + ": no \"sides\" array; left out of the merge");
    return;
  }
  f.any_artifacts = true;
  f.max_file_bytes = artifacts->value("max_file_bytes", json());
  for (const auto& side : (*artifacts)["sides"]) {
    if (!side.is_object() || !side.contains("side") || !side["side"].is_number_unsigned() ||
        !side.contains("instances") || !side["instances"].is_object())
      continue;
    const auto s = side["side"].get<std::size_t>();
    while (f.artifact_sides.size() <= s)
      f.artifact_sides.push_back({{"side", f.artifact_sides.size()}, {"instances", json::object()}});
    for (auto [id, entry] : side["instances"].items()) {
      json e = entry;
      if (e.is_object() && e.contains("folder") && e["folder"].is_string())
        e["folder"] = prefix + "/" + e["folder"].get<std::string>();  // relative to the run, as ever
      f.artifact_sides[s]["instances"][id] = std::move(e);
    }
  }
}

// A merged file: schema_version and one more field.
json versioned(const char* key, json value) {
  return {{"schema_version", kRunSchemaVersion}, {key, std::move(value)}};
}

// The shard's plan, checked against the run's: the same instances in the same order, the same
// samples and sides. Its pinned inner counts and choices become the run's.
Plan read_shard_plan(const RunDirectory& shard, const Shard& s, Plan& plan) {
  const auto j = shard.read_json("plan.json");
  check_schema_version(j, shard.file("plan.json"));
  Plan sp;
  try {
    sp = Plan::from_json(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(shard.file("plan.json") + ": " + e.what());
  }
  if (sp.instances.size() != s.instances.size() || sp.schedule.samples != plan.schedule.samples ||
      sp.schedule.sides != plan.schedule.sides)
    throw std::runtime_error(shard.file("plan.json") + ": " + std::to_string(sp.instances.size()) + " instances, " +
                             std::to_string(sp.schedule.samples) + " samples, " + std::to_string(sp.schedule.sides) +
                             " sides; the run dealt it " + std::to_string(s.instances.size()) + " instances of " +
                             std::to_string(plan.schedule.samples) + " samples and " +
                             std::to_string(plan.schedule.sides) + " sides");
  if (sp.schedule.total_samples() != s.instances.size() * std::size_t{sp.schedule.samples} * sp.schedule.sides)
    throw std::runtime_error(shard.file("plan.json") + ": its schedule plans " +
                             std::to_string(sp.schedule.total_samples()) + " samples, not every slot of its instances");
  for (std::size_t i = 0; i < s.instances.size(); ++i) {
    auto& p = plan.instances[s.instances[i]];
    if (sp.instances[i].worker.id != p.worker.id)
      throw std::runtime_error(shard.file("plan.json") + ": instance " + std::to_string(i) + " is " +
                               sp.instances[i].worker.id + "; the run dealt it " + p.worker.id);
    p.inner = sp.instances[i].inner;
    p.replay = sp.instances[i].replay;
  }
  return sp;
}

// The shard's slurm_task records, each with the count of samples journaled before it.
std::vector<json> task_records(const JournalContents& journal, const std::string& file) {
  std::vector<json> tasks;
  for (const auto& e : journal.events) {
    if (e.value("type", "") != kSlurmTaskEvent) continue;
    if (!e.contains("samples_before") || !e["samples_before"].is_number_unsigned())
      throw std::runtime_error(file + ": a slurm_task line without an unsigned \"samples_before\"");
    tasks.push_back(e);
  }
  return tasks;
}

// Merges shard after shard into the run's journal as it is written; keeps one shard in memory
// at a time (its journal and its rows of the summary).
class ShardMerger {
 public:
  ShardMerger(const RunDirectory& run, Plan& plan)
      : run_(run),
        plan_(plan),
        samples_(plan.schedule.samples),
        sides_(plan.schedule.sides),
        seen_(plan.instances.size() * std::size_t{plan.schedule.samples} * plan.schedule.sides, false) {}

  void merge(const Shard& shard, std::ostream& out) {
    const std::string prefix = shard_dir(shard.index);
    const RunDirectory dir = RunDirectory::open(run_.file(prefix));
    const Plan sp = read_shard_plan(dir, shard, plan_);
    const auto n = static_cast<std::uint32_t>(shard.instances.size());
    ShardState state;
    state.index = shard.index;
    state.status = dir.read_json("run.json").value("status", std::string("unknown"));
    state.samples_expected = sp.schedule.total_samples();
    const std::string journal_file = dir.file("samples.jsonl");
    const auto journal = read_journal(journal_file);
    state.tasks = task_records(journal, journal_file);
    std::vector<SampleRecord> kept;
    std::size_t duplicates = 0;
    std::map<std::size_t, std::size_t> gpu_mismatches;      // task -> samples on another GPU
    std::map<std::uint32_t, std::set<std::size_t>> takers;  // local instance -> tasks that measured it
    std::optional<std::size_t> task;                        // the task that took sample i
    std::size_t next_task = 0;
    for (std::size_t i = 0; i < journal.samples.size(); ++i) {
      while (next_task < state.tasks.size() && state.tasks[next_task]["samples_before"].get<std::size_t>() <= i)
        task = next_task++;
      SampleRecord r = journal.samples[i];
      if (r.instance_index >= n || sp.instances[r.instance_index].worker.id != r.instance || r.side >= sides_ ||
          r.sample >= samples_ || r.slot != r.side * n * samples_ + r.instance_index * samples_ + r.sample)
        throw std::runtime_error(journal_file + ": sample " + std::to_string(i + 1) + " (" + r.instance +
                                 "): instance_index, side, sample and slot do not name a slot of the shard's plan");
      const std::uint32_t local = r.instance_index;
      r.instance_index = shard.instances[local];
      r.slot = run_slot(shard, static_cast<std::uint32_t>(plan_.instances.size()), samples_, r.slot);
      if (seen_[r.slot]) {
        ++duplicates;
        continue;
      }
      seen_[r.slot] = true;
      json line = r.to_json();
      line["shard"] = shard.index;
      if (task) {
        const auto& t = state.tasks[*task];
        if (t.contains("job") && t["job"].is_string()) line["slurm_job"] = t["job"];  // not when run by hand
        line["host"] = t.value("host", json());
        if (!r.gpu_uuid.empty() && t["gpu_uuid"].is_string() && t["gpu_uuid"].get<std::string>() != r.gpu_uuid)
          ++gpu_mismatches[*task];
        takers[local].insert(*task);
      }
      out << dump_json(line) << '\n';
      kept.push_back(std::move(r));
    }
    for (auto e : journal.events) {
      const std::string type = e.value("type", "");
      if (type == "worker_failure") result.failures.push_back(e);
      result.workers_started += type == "worker" ? 1 : 0;
      e["shard"] = shard.index;
      out << dump_json(e) << '\n';
    }
    state.samples_recorded = kept.size();
    if (duplicates)
      result.warnings.push_back(journal_file + ": " + std::to_string(duplicates) +
                                " samples of slots journaled before; the first of each kept");
    for (const auto& [t, count] : gpu_mismatches)
      result.warnings.push_back("shard " + std::to_string(shard.index) + ": task " + task_name(state.tasks[t]) +
                                " named " + state.tasks[t]["gpu_uuid"].get<std::string>() +
                                " as CUDA device 0 (NVML), but " + std::to_string(count) +
                                " of its samples were taken on another GPU: check ConstrainDevices and "
                                "CUDA_DEVICE_ORDER (docs/slurm.md)");
    std::size_t across = 0;
    for (const auto& [i, ts] : takers) across += ts.size() > 1 ? 1 : 0;
    gather_side_files(dir, prefix, side_files, result.warnings);
    // An instance's samples all lie in its shard, so its summary row can be made here.
    for (auto& row : summarize(plan_, kept)) result.rows.push_back(std::move(row));
    shard_states.push_back({{"index", shard.index},
                            {"dir", prefix},
                            {"status", state.status},
                            {"instances", n},
                            {"samples_expected", state.samples_expected},
                            {"samples_recorded", state.samples_recorded},
                            {"duplicates_dropped", duplicates},
                            {"instances_across_tasks", across},
                            {"tasks", state.tasks}});
    result.samples_expected += state.samples_expected;
    result.samples_recorded += state.samples_recorded;
    result.shards.push_back(std::move(state));
  }

  MergeResult result;
  SideFiles side_files;
  json shard_states = json::array();

 private:
  const RunDirectory& run_;
  Plan& plan_;
  const std::uint32_t samples_, sides_;
  std::vector<bool> seen_;  // run slots journaled so far
};

}  // namespace

MergeResult merge_shards(const RunDirectory& run, const SlurmRun& slurm, Plan& plan) {
  ShardMerger merger(run, plan);
  run.write_with("samples.jsonl", [&](std::ostream& out) {
    for (const auto& shard : slurm.shards) merger.merge(shard, out);
  });
  run.write_json("plan.json", plan.to_json());
  const auto& side_files = merger.side_files;
  if (side_files.any_calibration) run.write_json("calibration.json", versioned("instances", side_files.calibration));
  if (side_files.any_reports) run.write_json("instance_reports.json", versioned("instances", side_files.reports));
  if (side_files.any_kernels) run.write_json("kernels.json", versioned("instances", side_files.kernels));
  if (side_files.any_artifacts) {
    auto artifacts = versioned("sides", side_files.artifact_sides);
    artifacts["schema_version"] = kArtifactsSchemaVersion;
    artifacts["max_file_bytes"] = side_files.max_file_bytes;
    run.write_json("artifacts.json", artifacts);
  }
  MergeResult result = std::move(merger.result);
  // The rows in a local run's order: side, then plan order.
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < plan.instances.size(); ++i) position[plan.instances[i].worker.id] = i;
  std::sort(result.rows.begin(), result.rows.end(), [&](const InstanceSummary& a, const InstanceSummary& b) {
    return std::pair(a.side, position.at(a.id)) < std::pair(b.side, position.at(b.id));
  });
  run.write_json("summary.json", summary_to_json(result.rows));
  run.write_json("shards.json", versioned("shards", merger.shard_states));
  auto run_info = run.read_json("run.json");
  const bool complete = result.samples_recorded == result.samples_expected;
  run_info["status"] = complete ? "complete" : "incomplete";
  run_info["samples_expected"] = result.samples_expected;
  run_info["samples_recorded"] = result.samples_recorded;
  run_info["merged"] = utc_timestamp();
  if (complete) run_info["finished"] = run_info["merged"];
  run.write_json("run.json", run_info);
  return result;
}

}  // namespace isobench::orchestrator
