#pragma once
// The run, sharded over a Slurm cluster (--executor slurm, docs/slurm.md): the sweep planned once
// by run() (orchestrator/run/run.hpp), its instances dealt into shards, each shard's run
// directory written, one job array submitted whose task k runs `orchestrate slurm task RUN` on
// one GPU for shard k; then waited for, merged into RUN and answered as a RunResult like any run.
// --resume of such a run resubmits the shards that lack samples and have no task queued.

#include <optional>

#include "orchestrator/plan.hpp"
#include "orchestrator/run/run_request.hpp"
#include "orchestrator/run_directory.hpp"

namespace isobench::orchestrator {

// A new run's Slurm options against its plan, before its run directory exists: throws
// UsageError for Slurm options given without --executor slurm, or not fitting the plan (no
// --shards, more shards than instances, --gpu/--gpus, --require-idle-gpu, multi-rank instances,
// an sbatch option that is not one).
void check_slurm_request(const Plan& plan, const RunRequest& request);

// A new run with --executor slurm, whose sweep.yaml and plan.json `dir` holds: writes the shards,
// the batch script and slurm.json, submits the array and, unless --no-wait (status submitted),
// waits for it, merges and answers. Throws UsageError when sbatch refuses (the run directory is
// removed: nothing was submitted).
RunResult submit_to_slurm(const RunDirectory& dir, const Plan& plan, const RunRequest& request);

// --resume RUN (and `orchestrate slurm merge RUN`): nullopt when RUN is not a Slurm run and the
// request has no Slurm option (an ordinary resume follows); otherwise the result of finishing it
// on Slurm. Throws UsageError for Slurm options on an ordinary run, and MeasurementFailed when
// squeue cannot say which tasks are still queued (then nothing is resubmitted).
std::optional<RunResult> resume_if_sharded(const RunRequest& request);

}  // namespace isobench::orchestrator
