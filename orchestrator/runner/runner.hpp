#pragma once
// Executes a plan: calibrates inner counts once, then runs the schedule's worker processes one
// after another, copying every sample out of the segment into the journal as it lands. A plan
// spread over several GPUs (--gpus) runs as one such pipeline per GPU, all at once. With
// pre-start, the next workers are started while one measures and released one at a time; the
// context gate keeps their CUDA contexts from being made or torn down beside a measurement. With
// set-up batches, several are released into their set-up at once and measured one by one. A
// worker that crashes, fails or stops beating its heart is killed if needed, recorded, and its
// missing samples are retried in a fresh worker; the run goes on.

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "orchestrator/errors.hpp"
#include "orchestrator/plan.hpp"
#include "orchestrator/run_directory.hpp"
#include "orchestrator/worker_handle.hpp"

namespace isobench::orchestrator {

// How to start the worker of one side: the executable and arguments added to the protocol's
// own (--segment, --lane, --token, --device).
struct WorkerCommand {
  std::string executable;
  std::vector<std::string> extra_args;
  // A side with Python benchmarks: its zygote forks the workers (orchestrator/python/zygote.hpp);
  // null: `executable` is spawned.
  std::shared_ptr<WorkerLauncher> launcher;
};

struct RunnerOptions {
  std::vector<WorkerCommand> workers;           // one per side
  double worker_timeout_s = 120;                // without a heartbeat
  int retries = 2;                              // fresh workers per failed worker run
  int device = 0;  // the GPU of instances whose plan names none (plans from before --gpus)
  bool quiet = false;
  // Workers started ahead of the measuring one: they start their process and wait on the
  // segment; exactly one worker is released into measuring at a time, in plan order.
  int prestart = 0;
  // The context gate: a worker creates its device context only while no worker measures (the
  // next one while the measuring one sets up), and starts its timed phase only once no other
  // worker is creating a context or exiting. Off: contexts are created and destroyed whenever
  // workers start and end, beside measurements.
  bool context_gate = true;
  // Set-up batches: up to this many measuring workers of a pipeline are released into their
  // set-up at once, while none measures, then measured one after another in plan order; with the
  // context gate each holds its exit until no batch-mate is due to measure (setup_batches.hpp).
  // The pre-start depth then counts batches: prestart x setup_batch workers wait behind them.
  // 1: one worker at a time, as without batches.
  int setup_batch = 1;
  // Device memory one worker may hold (the plan's --memory-budget); a worker sets up beside
  // exiting ones only when their memory and its own fit in it together. 0: unknown, no check.
  std::uint64_t memory_budget_bytes = 0;
  // Absolute folder of the run's artifact folders (<run>/artifacts): every worker gets
  // --artifact-root <it>/side-<its side>. Empty: workers get no artifact folder.
  std::string artifact_root;
  // Called once, on the runner's thread, when a worker of every side has ended well (a side's
  // first worker records its Triton IR: orchestrator/python/sass_step.hpp).
  // It must return at once: the run waits on it.
  std::function<void()> on_sides_reported;
};

struct RunOutcome {
  std::size_t samples_expected = 0;
  std::size_t samples_recorded = 0;
  std::size_t workers_started = 0;
  std::vector<nlohmann::json> failures;  // one per failed worker process
  // Set when the run stopped on a deterministic failure (worker_pipelines.hpp): its cause, as
  // the first worker that failed with it said it. Nothing was retried after it.
  std::string deterministic_failure;
  bool interrupted = false;
  double wall_seconds = 0;
};

class Runner {
 public:
  Runner(const RunDirectory& dir, Plan& plan, RunnerOptions options, RunLog& log);
  // Runs what the journal does not hold yet. Writes plan.json (with pinned inner counts) and
  // calibration.json when it calibrates. Throws MeasurementFailed when a calibration fails.
  RunOutcome run();

 private:
  const RunDirectory& dir_;
  Plan& plan_;
  RunnerOptions options_;
  RunLog& log_;
};

}  // namespace isobench::orchestrator
