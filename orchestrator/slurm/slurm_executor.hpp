#pragma once
// The executor that shards a run over a Slurm cluster (--executor slurm, docs/slurm.md): the
// sweep planned once by the run pipeline (orchestrator/run/run.hpp), its instances dealt into
// shards, each shard's run directory written, one job array submitted whose task k runs
// `orchestrate slurm task RUN` on one GPU for shard k; then waited for and merged into RUN, whose
// summary it answers like any executor (the pipeline gives an A/B run's verdicts). --resume of
// such a run resubmits the shards that lack samples and have no task queued.

#include "orchestrator/run/executor.hpp"

namespace isobench::orchestrator {

class SlurmExecutor final : public Executor {
 public:
  using Executor::Executor;
  // The Slurm options against the plan: throws UsageError for options not fitting it (no
  // --shards, more shards than instances, --gpu/--gpus, --require-idle-gpu, --until-verdict,
  // multi-rank instances, an sbatch option that is not one).
  void check(const Plan& plan, const RunRequest& request) const override;
  // Writes the shards, the batch script and slurm.json, submits the array and, unless --no-wait
  // (status submitted), waits for it and merges. Throws UsageError when sbatch refuses (the run
  // directory is removed: nothing was submitted).
  Measured measure(OpenRun& run, const RunRequest& request) override;
  // --resume RUN (and `orchestrate slurm merge RUN`, which only merges): throws UsageError for
  // options a resumed run does not take, and MeasurementFailed when squeue cannot say which tasks
  // are still queued (then nothing is resubmitted).
  Measured resume(const RunRequest& request) override;
};

// Whether request.resume_dir is a Slurm run (its directory holds slurm.json). Throws UsageError
// ("--resume DIR: ...") for a folder that is no run directory.
bool resumes_slurm_run(const RunRequest& request);

}  // namespace isobench::orchestrator
