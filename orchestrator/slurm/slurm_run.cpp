#include "slurm_run.hpp"

#include <cstdio>
#include <set>
#include <stdexcept>

#include "ipc/json_integer.hpp"

namespace isobench::orchestrator {

nlohmann::json SlurmRun::to_json() const {
  nlohmann::json shard_list = nlohmann::json::array();
  for (const auto& s : shards)
    shard_list.push_back({{"index", s.index}, {"dir", shard_dir(s.index)}, {"instances", s.instances}});
  nlohmann::json subs = nlohmann::json::array();
  for (const auto& s : submissions)
    subs.push_back({{"job_id", s.job_id},
                    {"array", s.array},
                    {"shards", s.shards},
                    {"sbatch_args", s.sbatch_args},
                    {"time", s.time}});
  return {{"schema_version", kRunSchemaVersion},
          {"shards", shard_list},
          {"max_running", max_running},
          {"task_options", task_options},
          {"submissions", subs}};
}

SlurmRun SlurmRun::from_json(const nlohmann::json& j, std::uint32_t n_instances) {
  SlurmRun run;
  std::set<std::uint32_t> dealt;
  for (const auto& s : j.at("shards")) {
    Shard shard;
    shard.index = ipc::json_integer<std::uint32_t>(s.at("index"));
    if (shard.index != run.shards.size())
      throw std::runtime_error("shards: shard " + std::to_string(run.shards.size()) + " has index " +
                               std::to_string(shard.index));
    for (const auto& i : s.at("instances")) {
      const auto index = ipc::json_integer<std::uint32_t>(i);
      if (index >= n_instances || !dealt.insert(index).second || (!shard.instances.empty() && index <= shard.instances.back()))
        throw std::runtime_error("shards: shard " + std::to_string(shard.index) + " lists instance " +
                                 std::to_string(index) + " out of order, twice or beyond the plan's " +
                                 std::to_string(n_instances));
      shard.instances.push_back(index);
    }
    if (shard.instances.empty()) throw std::runtime_error("shards: shard " + std::to_string(shard.index) + " is empty");
    run.shards.push_back(std::move(shard));
  }
  if (dealt.size() != n_instances)
    throw std::runtime_error("shards: they hold " + std::to_string(dealt.size()) + " of the plan's " +
                             std::to_string(n_instances) + " instances");
  run.max_running = ipc::json_integer<std::uint32_t>(j.at("max_running"));
  run.task_options = j.at("task_options");
  if (!run.task_options.is_object()) throw std::runtime_error("task_options: not an object");
  for (const auto& s : j.at("submissions")) {
    SlurmSubmission sub;
    sub.job_id = s.at("job_id").get<std::string>();
    sub.array = s.at("array").get<std::string>();
    for (const auto& k : s.at("shards")) sub.shards.push_back(ipc::json_integer<std::uint32_t>(k));
    sub.sbatch_args = s.at("sbatch_args").get<std::vector<std::string>>();
    sub.time = s.at("time").get<std::string>();
    run.submissions.push_back(std::move(sub));
  }
  return run;
}

std::string shard_dir(std::uint32_t index) {
  char name[32];
  std::snprintf(name, sizeof name, "shards/%04u", index);
  return name;
}

bool is_slurm_run(const RunDirectory& dir) { return dir.exists(kSlurmFile); }

SlurmRun read_slurm_run(const RunDirectory& dir, std::uint32_t n_instances) {
  const auto j = dir.read_json(kSlurmFile);
  check_schema_version(j, dir.file(kSlurmFile));
  try {
    return SlurmRun::from_json(j, n_instances);
  } catch (const std::exception& e) {
    throw std::runtime_error(dir.file(kSlurmFile) + ": " + e.what());
  }
}

std::string array_ranges(const std::vector<std::uint32_t>& sorted) {
  std::string out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(sorted[i]);
    if (j > i) out += '-' + std::to_string(sorted[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace isobench::orchestrator
