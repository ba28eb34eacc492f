#pragma once
// A sweep sharded over a job array: the run's instances dealt into shards, one per array task,
// and the plan each shard runs. The sweep is planned once: a shard's plan is the run's plan
// restricted to the shard's instances (the same pinned settings, seeds and sample order), so the
// shards together measure exactly what the run planned, and every comparison of an instance,
// both sides of an A/B included, stays inside one task.

#include <cstdint>
#include <vector>

#include "orchestrator/plan.hpp"

namespace isobench::orchestrator {

struct Shard {
  std::uint32_t index = 0;
  std::vector<std::uint32_t> instances;  // indices into the run's plan, ascending
};

// Instance i goes to shard i % n_shards, as --gpus deals instances over GPUs: neighbouring
// shapes of a family land in different shards, so the shards cost about the same. Throws
// std::invalid_argument unless 1 <= n_shards <= n_instances.
std::vector<Shard> deal_shards(std::uint32_t n_instances, std::uint32_t n_shards);

// The plan of one shard: its instances, renumbered from 0 in the run's order; the schedule's
// worker runs and memory groups restricted to them (those left empty dropped), every slot
// renumbered for the shard.
Plan shard_plan(const Plan& plan, const Shard& shard);

// The run's slot for slot `shard_slot` of the shard's plan: the same side and sample, the
// instance's index in the run. `samples` is the plan's samples per instance.
std::uint32_t run_slot(const Shard& shard, std::uint32_t run_instances, std::uint32_t samples,
                       std::uint32_t shard_slot);

}  // namespace isobench::orchestrator
