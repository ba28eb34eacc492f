#pragma once
// The shards of a Slurm run merged into the run's own directory, which `compare` and every
// other reader of a run directory then read like any other (docs/slurm.md). A merge is a pure
// function of the shards' directories: it can run at any time, as often as wanted, also while
// tasks still measure, and always gives the same run for the same shards.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "orchestrator/plan.hpp"
#include "orchestrator/run_directory.hpp"
#include "orchestrator/summary.hpp"
#include "slurm_run.hpp"

namespace isobench::orchestrator {

struct ShardState {
  std::uint32_t index = 0;
  std::string status;  // the shard's run.json status ("planned" until a task starts it)
  std::size_t samples_expected = 0, samples_recorded = 0;
  std::vector<nlohmann::json> tasks;  // its slurm_task records, in the order they started

  bool complete() const { return samples_recorded == samples_expected; }
};

struct MergeResult {
  std::vector<ShardState> shards;
  std::size_t samples_expected = 0, samples_recorded = 0;
  std::vector<InstanceSummary> rows;  // summary.json's rows
  // From the shards' journals: their worker_failure lines, and how many workers they started.
  std::vector<nlohmann::json> failures;
  std::size_t workers_started = 0;
  std::vector<std::string> warnings;  // one line each: samples journaled twice, GPUs not the task's
};

// Writes the run's samples.jsonl (every shard's journal, shard after shard: its samples, given
// the run's instance indices and slots and the fields "shard", "slurm_job" and "host" of the task
// that took them, then its other lines with "shard"), plan.json (each instance's pinned inner
// count and choice from its shard), calibration.json, instance_reports.json, kernels.json and
// artifacts.json when a shard has them, summary.json, shards.json (every ShardState) and
// run.json's status and counts. Throws std::runtime_error naming the shard file that is damaged.
MergeResult merge_shards(const RunDirectory& run, const SlurmRun& slurm, Plan& plan);

}  // namespace isobench::orchestrator
