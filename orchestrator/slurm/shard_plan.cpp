#include "shard_plan.hpp"

#include <stdexcept>
#include <string>

namespace isobench::orchestrator {

std::vector<Shard> deal_shards(std::uint32_t n_instances, std::uint32_t n_shards) {
  if (n_shards == 0 || n_shards > n_instances)
    throw std::invalid_argument(std::to_string(n_shards) + " shards for " + std::to_string(n_instances) +
                                " instances: every shard needs at least one instance");
  std::vector<Shard> shards(n_shards);
  for (std::uint32_t k = 0; k < n_shards; ++k) shards[k].index = k;
  for (std::uint32_t i = 0; i < n_instances; ++i) shards[i % n_shards].instances.push_back(i);
  return shards;
}

Plan shard_plan(const Plan& plan, const Shard& shard) {
  constexpr std::uint32_t kNotHere = UINT32_MAX;
  std::vector<std::uint32_t> local(plan.instances.size(), kNotHere);
  Plan out = plan;
  out.instances.clear();
  out.skipped.clear();  // the run's plan lists them once
  out.skipped_reasons.clear();
  // A task measures in the environment sbatch gives it (its GPU Slurm's to choose): the run's
  // --resume checks the one it resubmits from, not the task.
  out.environment_variables.reset();
  for (const auto i : shard.instances) {
    local.at(i) = static_cast<std::uint32_t>(out.instances.size());
    out.instances.push_back(plan.instances[i]);
  }
  const auto n = static_cast<std::uint32_t>(out.instances.size());
  const std::uint32_t samples = plan.schedule.samples;
  Schedule& s = out.schedule;
  s.n_instances = n;
  s.groups.clear();
  for (const auto& group : plan.schedule.groups) {
    std::vector<std::uint32_t> mine;
    for (const auto i : group)
      if (local[i] != kNotHere) mine.push_back(local[i]);
    if (!mine.empty()) s.groups.push_back(std::move(mine));
  }
  out.call_chains.clear();  // the shard's part of each chain, still in call order
  for (const auto& chain : plan.call_chains) {
    std::vector<std::uint32_t> mine;
    for (const auto i : chain)
      if (local[i] != kNotHere) mine.push_back(local[i]);
    if (mine.size() > 1) out.call_chains.push_back(std::move(mine));
  }
  s.runs.clear();
  for (const auto& run : plan.schedule.runs) {
    WorkerRun mine{run.side, {}};
    for (auto t : run.tasks) {
      if (local[t.instance] == kNotHere) continue;
      t.instance = local[t.instance];
      t.slot = t.side * n * samples + t.instance * samples + t.sample;
      mine.tasks.push_back(t);
    }
    if (!mine.tasks.empty()) s.runs.push_back(std::move(mine));
  }
  return out;
}

std::uint32_t run_slot(const Shard& shard, std::uint32_t run_instances, std::uint32_t samples,
                       std::uint32_t shard_slot) {
  const auto per_side = static_cast<std::uint32_t>(shard.instances.size()) * samples;
  const std::uint32_t side = shard_slot / per_side, rest = shard_slot % per_side;
  return side * run_instances * samples + shard.instances.at(rest / samples) * samples + rest % samples;
}

}  // namespace isobench::orchestrator
