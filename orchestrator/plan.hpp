#pragma once
// The expanded plan of a run: every instance with its pinned settings and the schedule. Written
// to plan.json before any worker starts (and again once inner counts are calibrated); --resume
// reads it back, so a resumed run measures exactly what the first start planned.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ipc/instance_table.hpp"
#include "orchestrator/recorded_environment.hpp"
#include "orchestrator/sequential_plan.hpp"
#include "schedule.hpp"

namespace isobench::orchestrator {

struct PlannedInstance {
  ipc::WorkerInstance worker;   // what the worker needs: id, kernel, params, seed, timer settings
  std::string family;
  std::uint32_t warmup = 0;
  std::optional<std::uint32_t> fixed_inner;  // from the sweep; nullopt = calibrate
  double min_sample_time_s = 0.01;
  std::uint32_t inner = 0;      // pinned for every sample; 0 until calibrated
  std::uint64_t device_bytes = 0;
  // The choice every worker of this instance replays (a describe() of an earlier worker: for a
  // GEMM, the cuBLASLt algorithm), pinned by the run's first worker or taken from an earlier
  // run with --replay-from; null until pinned, and for kernels with nothing to choose.
  nlohmann::json replay;
  // The CUDA device index its workers run on (--gpus spreads instances over several); -1 in
  // plans from before --gpus: the run's --gpu.
  int gpu = -1;
};

struct Plan {
  std::string sweep_name;
  std::string device;           // "cpu" or "cuda"
  nlohmann::json settings;      // the run settings as resolved
  std::vector<PlannedInstance> instances;
  // Instances that are successive timing calls of one do_bench test (isobench.do_bench), each in
  // call order: the schedule keeps them so inside a worker (Schedule::keep_call_order). Only
  // chains of two or more; none in plans from before it, and in plans without such tests.
  CallChains call_chains;
  Schedule schedule;
  std::vector<std::string> skipped;  // instance ids left out (backend or runtime library not available)
  // Why each of `skipped` was left out: the device it runs on, or the line of a runtime library
  // its kernel needs that is missing here. Empty in plans from before it.
  std::map<std::string, std::string> skipped_reasons;
  // The worker executable of each side (baseline, candidate in an A/B run; the run's one worker
  // otherwise), absolute: --resume measures with these. Empty in plans of ordinary runs from
  // before it was recorded, which used --worker or the isobench-worker beside orchestrate.
  std::vector<std::string> workers;
  // A/B runs of two plugin builds: extra worker arguments per side (--plugin-override OLD=NEW);
  // empty otherwise.
  std::vector<std::vector<std::string>> worker_args;
  // Every plugin library the run loads (its instances' and --plugin-override's), absolute, with
  // its SHA-256 when the run was planned: --resume refuses a library that changed or is gone.
  // Empty in plans from before it, and of runs without plugins.
  std::map<std::string, std::string> plugin_sha256;
  // The variables of orchestrate's environment that decide what its workers measure, as the run
  // was started with them: --resume refuses an environment that sets one otherwise. None in plans
  // from before it was recorded, and in a Slurm shard's (its tasks measure in the environment
  // sbatch gives them; the run's --resume checks the one it resubmits from).
  std::optional<RecordedEnvironment> environment_variables;
  // The GPUs the run spreads its instances over (--gpus; one schedule runs on each at once), in
  // the order given; one entry for an ordinary run. Empty in plans from before --gpus.
  std::vector<int> gpus;
  // An A/B run sampled until a verdict (ab --until-verdict): its looks and stopping rule; the
  // schedule holds the samples of the last look.
  std::optional<SequentialPlan> sequential;

  nlohmann::json to_json() const;
  static Plan from_json(const nlohmann::json& j);  // throws std::runtime_error
  bool calibrated() const;
};

// Per-instance input seed: the run seed mixed with the instance id, so every run, build and side
// with the same seed measures the same inputs.
std::uint64_t instance_seed(std::uint64_t run_seed, const std::string& id);

// The most memory groups that one GPU's instances were split into (a GPU runs its groups one
// after another): 1 when every GPU's instances fit in the memory budget at once, whatever the
// number of GPUs; 0 in a plan without instances.
std::size_t groups_per_gpu(const Plan& plan);

// The device index instance i of the plan runs on: its own, or `fallback` (the run's --gpu) in
// plans from before --gpus.
int instance_gpu(const Plan& plan, std::uint32_t i, int fallback);

// The GPUs the plan's instances run on, each once, in the order of plan.gpus; {fallback} for a
// plan from before --gpus or without instances.
std::vector<int> plan_gpus(const Plan& plan, int fallback);

}  // namespace isobench::orchestrator
