#pragma once
// How a run's workers are started: the one seam between the run pipeline and what a kind of
// benchmark needs before its workers can start, as hyperfine's executor owns how a process is
// started. The runner spawns each side's worker executable itself; a starter may instead give a
// side a launcher that starts its workers otherwise (Python benchmarks: forked from a zygote per
// side that imported them, orchestrator/starters/python_starter.hpp). The pipeline (run.cpp) and
// the executors drive every starter through the same steps and never ask which one they have; one
// is chosen per run (orchestrator/starters/worker_starters.hpp) and the executor receives it.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "orchestrator/log.hpp"
#include "orchestrator/plan.hpp"
#include "orchestrator/run_directory.hpp"
#include "orchestrator/runner/runner.hpp"
#include "orchestrator/sweep.hpp"

namespace isobench::orchestrator {

// What a starter started for one run, held with the open run until it is measured.
class StartedSides {
 public:
  virtual ~StartedSides() = default;
  // The run directory is open and the runner about to run: records what was started in the
  // directory and gives the runner each side's launcher.
  virtual void attach(RunnerOptions& runner, const RunDirectory& dir, RunLog& log) = 0;
  // Every sample is in (or the run stopped): what is left to do beside the samples.
  virtual void finish(RunLog& log) = 0;
  // Workers to a set-up batch where the run was not given --setup-batch (docs/measurement.md):
  // what this kind of benchmark's set-up makes worth batching on the plan's device; 1, one worker
  // at a time, unless a starter knows better.
  virtual int default_setup_batch(const Plan& plan) const {
    (void)plan;
    return 1;
  }
};

// Where a run stands when its starter is asked to start.
struct StartContext {
  std::vector<std::string> workers;  // each side's worker executable, absolute
  std::string sweep_path;            // named in refusals
  std::string run_dir;               // a new run's directory as it will be (absolute)
  const RunDirectory* resumed = nullptr;  // --resume: the run's directory, its records
  Log log;
};

class WorkerStarter {
 public:
  virtual ~WorkerStarter() = default;
  // While a new run's sweep loads: what loading asks of the sides' environments (the tests of a
  // `pytest:` file, collected where the baseline runs). `run_dir(sweep name)` names the run's
  // directory; lines for its log (not written yet) go to `start_log`.
  virtual void prepare_loading(SweepLoadOptions& options, const std::vector<std::string>& workers,
                               std::function<std::string(const std::string&)> run_dir,
                               std::vector<LogLine>& start_log, const Log& log) = 0;
  // The plan is made and checked, before a new run's directory exists (or a resumed run's is
  // opened): starts what the plan needs. Bad input is a UsageError, one line; null: nothing to
  // start, the runner spawns the worker executables.
  virtual std::unique_ptr<StartedSides> start(const Plan& plan, const StartContext& context,
                                              std::vector<LogLine>& start_log) = 0;
  // Whether the starter found `run_dir` unused while the sweep loaded and may have written into
  // it since (a zygote importing FlagGems makes <run>/flaggems-cache/side-N): the pipeline then
  // does not check it again.
  virtual bool found_unused(const std::string& run_dir) const {
    (void)run_dir;
    return false;
  }
};

}  // namespace isobench::orchestrator
