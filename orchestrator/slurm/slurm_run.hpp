#pragma once
// slurm.json: what the submitter of a Slurm run decided and did (docs/run-format.md). Written
// when the run is submitted and at every resubmission, by the command that submits, and read by
// every task, merge and resume. Its presence makes a run directory a Slurm run.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "orchestrator/run_directory.hpp"
#include "shard_plan.hpp"

namespace isobench::orchestrator {

struct SlurmSubmission {
  std::string job_id;                    // the array's job id, as sbatch --parsable printed it
  std::string array;                     // sbatch's --array value: "0-7%2", "3,5"
  std::vector<std::uint32_t> shards;     // the array indices it holds
  std::vector<std::string> sbatch_args;  // the options on sbatch's command line besides --array
  std::string time;                      // UTC, when sbatch returned
};

struct SlurmRun {
  std::vector<Shard> shards;  // shard k is array index k, its run directory shard_dir(k)
  std::uint32_t max_running = 0;
  // The run options every task gives its shard's run: {"worker", "worker_timeout_s", "retries",
  // "prestart", "context_gate", "memory_budget_mib"} and "setup_batch" where it is not 1
  // (orchestrator/commands/slurm_command.cpp).
  nlohmann::json task_options = nlohmann::json::object();
  std::vector<SlurmSubmission> submissions;

  nlohmann::json to_json() const;
  // Throws std::runtime_error naming the problem; `n_instances` is the run plan's count, which
  // the shards must partition.
  static SlurmRun from_json(const nlohmann::json& j, std::uint32_t n_instances);
};

inline constexpr const char* kSlurmFile = "slurm.json";

// The run directory of shard k, relative to the run's: "shards/0003".
std::string shard_dir(std::uint32_t index);

bool is_slurm_run(const RunDirectory& dir);

// Reads dir/slurm.json; throws std::runtime_error naming the file and the problem.
SlurmRun read_slurm_run(const RunDirectory& dir, std::uint32_t n_instances);

// Array indices as sbatch's --array takes them, runs of consecutive ones as ranges: 0-3,7,9-10.
std::string array_ranges(const std::vector<std::uint32_t>& sorted_indices);

}  // namespace isobench::orchestrator
