#pragma once
// The expanded plan of a run: every instance with its pinned settings and the schedule. Written
// to plan.json before any worker starts (and again once inner counts are calibrated); --resume
// reads it back, so a resumed run measures exactly what the first start planned.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ipc/instance_table.hpp"
#include "schedule.hpp"
#include "sweep.hpp"

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
};

struct Plan {
  std::string sweep_name;
  std::string device;           // "cpu" or "cuda"
  nlohmann::json settings;      // the run settings as resolved
  std::vector<PlannedInstance> instances;
  Schedule schedule;
  std::vector<std::string> skipped;  // instance ids left out (backend not available)
  // A/B runs: the worker executable of each side (baseline, candidate); empty for ordinary runs,
  // which use the isobench-worker installed beside orchestrate.
  std::vector<std::string> workers;
  // A/B runs of two plugin builds: extra worker arguments per side (--plugin-override OLD=NEW);
  // empty otherwise.
  std::vector<std::vector<std::string>> worker_args;

  nlohmann::json to_json() const;
  static Plan from_json(const nlohmann::json& j);  // throws std::runtime_error
  bool calibrated() const;
};

// Per-instance input seed: the run seed mixed with the instance id, so every run, build and side
// with the same seed measures the same inputs.
std::uint64_t instance_seed(std::uint64_t run_seed, const std::string& id);

// Builds the plan for the instances of `sweep` whose backend is `device`, and its commands,
// which run on any device. With a memory budget (bytes; 0: none), the instances one worker sets
// up together are grouped to fit in it, and the groups run one after another.
Plan make_plan(const Sweep& sweep, kernels::Backend device, std::uint64_t memory_budget = 0);

}  // namespace isobench::orchestrator
