#pragma once
// How a run is executed: here (the default), or sharded over a Slurm cluster as one job array
// (docs/slurm.md). The options a user gives for Slurm, as the run verbs hold them in a RunRequest;
// the Slurm executor (orchestrator/slurm/slurm_executor.hpp) reads them.

#include <cstdint>
#include <string>
#include <vector>

namespace isobench::orchestrator {

struct SlurmOptions {
  std::string executor = "local";  // local | slurm
  std::uint32_t shards = 0;        // array tasks; each measures its share of the instances (0: not given)
  std::uint32_t max_running = 0;   // the array's %N: tasks running at once (0: as many as Slurm allows)
  // Options for sbatch: `#SBATCH OPT` lines of a new run's script; on --resume, arguments of
  // sbatch's command line, which override the script's lines for the resubmitted tasks.
  std::vector<std::string> sbatch_options;
  bool wait = true;  // false: return once the array is submitted (--no-wait)
  // `orchestrate slurm merge`: --resume of a Slurm run that only merges what its shards hold,
  // asking Slurm nothing and submitting nothing.
  bool merge_only = false;

  bool sharded() const { return executor == "slurm"; }
  // Whether any option other than --executor was given.
  bool any_given() const { return shards > 0 || max_running > 0 || !sbatch_options.empty() || !wait; }
};

}  // namespace isobench::orchestrator
