#pragma once
// The two Slurm commands a run needs: sbatch submits its job array, squeue says which of its
// tasks Slurm still holds. Both are found on PATH and inherit the environment (SLURM_CONF too).

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace isobench::orchestrator {

// sbatch --parsable --array=ARRAY ARGS... SCRIPT; returns the array's job id. Throws
// std::runtime_error with sbatch's own words when it refuses, or when there is no sbatch.
std::string submit_array(const std::string& script, const std::string& array, const std::vector<std::string>& args);

// Per job id of `job_ids`, the array tasks Slurm still lists for it (squeue's default states:
// pending, running, suspended, completing), task index -> state ("PENDING", "RUNNING", ...). A
// job that is over is absent. Throws std::runtime_error when squeue cannot answer.
using QueuedTasks = std::map<std::string, std::map<std::uint32_t, std::string>>;
QueuedTasks queued_tasks(const std::set<std::string>& job_ids);

}  // namespace isobench::orchestrator
