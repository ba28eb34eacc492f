#pragma once
// The executor that measures a run here, on this host's device, through the runner
// (orchestrator/runner/): workers started and replaced, samples journaled, then the run's summary.
// A run that breaks off after its directory exists says so in run.json and --resume finishes it.

#include "orchestrator/run/executor.hpp"

namespace isobench::orchestrator {

class LocalExecutor final : public Executor {
 public:
  using Executor::Executor;
  // Refuses the Slurm options (--shards, --max-running, --sbatch-option, --no-wait).
  void check(const Plan& plan, const RunRequest& request) const override;
  // Throws MeasurementFailed when the run breaks off (a file that cannot be written, a
  // calibration that failed): run.json records it and --resume finishes it.
  Measured measure(OpenRun& run, const RunRequest& request) override;
  // The run's own plan, on the GPUs it names; an option that would choose again (a sweep, --out,
  // a setting, --gpu, --replay-from, --like, ab) is refused (UsageError), and so is a run another
  // orchestrate measures now. A complete run is answered as already_complete.
  Measured resume(const RunRequest& request) override;
};

}  // namespace isobench::orchestrator
