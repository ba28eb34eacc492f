#pragma once
// The untimed phases around the measurement: calibrating every "auto" inner count once, pinning
// each CUDA instance's choice (its cuBLASLt algorithm) with the baseline build so that every worker
// and both sides replay it, and writing what the workers reported (instance_reports.json,
// kernels.json). Also how a plan's tasks are cut into jobs: one GPU, one world size and, for setup
// workers, one memory group each.

#include <deque>
#include <optional>

#include <nlohmann/json.hpp>

#include "run_state.hpp"
#include "worker_pipelines.hpp"

namespace isobench::orchestrator {

// The job as jobs of one world size and one GPU each, in its order: a multi-rank instance runs in
// its own group of processes, apart from instances of another world size, and a worker runs on
// one GPU. (The plan's groups already keep every worker run on one GPU.)
std::deque<Job> split_by_world(const RunState& s, const Job& job);

class SetupPhases {
 public:
  SetupPhases(RunState& state, WorkerPipelines& pipelines) : s_(state), pipelines_(pipelines) {}

  // Pins the inner count of every instance that asks for "auto", with the baseline build; writes
  // calibration.json. Throws naming an instance whose calibration failed after every retry.
  // `next_call`: the jobs that will follow it (WorkerPipelines::run_jobs).
  void calibrate(std::deque<Job> next_call = {});
  // Pins each CUDA instance's choice as the first worker to set it up made it (describe tasks),
  // unless the plan pins one already (a resumed run, --replay-from); writes plan.json when it
  // pinned something new.
  void pin_choices();
  // instance_reports.json: what the first worker to set up each instance said about it.
  void write_instance_reports();
  // kernels.json (--record-kernels): per instance that asked, per side, the first record.
  void write_kernel_records();

 private:
  std::deque<Job> setup_jobs(const Job& job) const;
  std::optional<nlohmann::json> instance_report(std::uint32_t i);

  RunState& s_;
  WorkerPipelines& pipelines_;
};

}  // namespace isobench::orchestrator
