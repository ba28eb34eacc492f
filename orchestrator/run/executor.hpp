#pragma once
// Where a planned run is measured. The run pipeline (orchestrator/run/run.hpp) loads the sweep,
// plans, has the executor check the plan, creates the run directory and hands the run over; from
// what the executor measured it gives an A/B run's verdicts. It never asks which executor it has:
// the one that measures here, through the runner (LocalExecutor, orchestrator/run/
// local_executor.hpp), or the one that shards the run over a Slurm job array and merges the shards
// (SlurmExecutor, orchestrator/slurm/slurm_executor.hpp). The run verbs choose one from the request
// (orchestrator/commands/run_command.cpp); calibrate, bisect and a Slurm task measure here. Each
// executor receives the run's worker starter (orchestrator/run/worker_starter.hpp): how the
// workers of the run's sides are started.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "orchestrator/directory_lock.hpp"
#include "orchestrator/plan.hpp"
#include "orchestrator/run/run_request.hpp"
#include "orchestrator/run/worker_starter.hpp"
#include "orchestrator/run_directory.hpp"

namespace isobench::orchestrator {

// A run open for measuring: its directory, plan and run.json as they are being written.
struct OpenRun {
  std::unique_ptr<RunDirectory> dir;
  std::optional<DirectoryLock> lock;  // run.lock, held until the run is measured
  Plan plan;
  nlohmann::json info;  // run.json
  std::uint64_t memory_budget = 0;
  bool resumed = false;
  std::unique_ptr<StartedSides> started;  // what the worker starter started for it; null: nothing
};

// The run's lock (run.lock), or UsageError when another orchestrator measures into it now: two
// processes measuring one journal would lose the run. `what` names the run in the refusal; a
// file system that cannot lock is warned of in `log`.
DirectoryLock lock_run(const RunDirectory& dir, const std::string& what, const Log& log);

// What an executor measured: the run's result, without the verdicts the pipeline gives an A/B
// run, and the plan's sides (2: an A/B run).
struct Measured {
  RunResult result;
  std::uint32_t sides = 1;
};

class Executor {
 public:
  explicit Executor(std::unique_ptr<WorkerStarter> starter) : starter_(std::move(starter)) {}
  virtual ~Executor() = default;
  WorkerStarter& starter() { return *starter_; }
  // A new run's plan, before its run directory exists: throws UsageError for what this executor
  // cannot measure, or options that are not its own.
  virtual void check(const Plan& plan, const RunRequest& request) const = 0;
  // A new run, checked, its directory holding its sweep.yaml, plan.json and run.json: measures it.
  virtual Measured measure(OpenRun& run, const RunRequest& request) = 0;
  // --resume request.resume_dir, a run this executor made: finishes what it lacks.
  virtual Measured resume(const RunRequest& request) = 0;

 private:
  std::unique_ptr<WorkerStarter> starter_;
};

}  // namespace isobench::orchestrator
