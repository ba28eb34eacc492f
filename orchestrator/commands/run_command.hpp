#pragma once
// The main verb: `orchestrate [options] SWEEP` plans a sweep, runs it in the chosen isolation
// mode and prints the per-instance summary; `orchestrate --resume RUN_DIR` finishes a run.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "orchestrator/sweep.hpp"

namespace isobench::orchestrator {

struct RunCommandOptions {
  std::string sweep_path;
  std::string resume_dir;
  std::string out_dir;
  std::string device = "auto";  // auto | cpu | cuda
  int gpu = 0;
  bool gpu_given = false;
  // --gpus 0,1,... or all: the instances spread over several GPUs, one schedule on each at once.
  std::string gpus;
  std::string worker;           // default: isobench-worker beside orchestrate
  double worker_timeout_s = 120;
  int retries = 2;
  int prestart = -1;            // workers started ahead of the measuring one; -1 (not given): 0
  bool context_gate = true;     // no context created or destroyed beside a measurement
  std::uint64_t memory_budget_mib = 0;  // 0: a safe fraction of the device's free memory
  std::string format = "table"; // table | json | csv | markdown | none
  bool quiet = false;
  bool require_idle_gpu = false;  // refuse to run while another process uses the GPU
  SettingsOverrides overrides;
  // orchestrate ab: two worker builds measured in one interleaved run.
  bool ab = false;
  std::string baseline, candidate;
  // NAME=VALUE parameter overrides for one side's workers (e.g. the candidate forced onto
  // another cuBLASLt algorithm with algo=1); the plan itself stays the same for both sides.
  std::vector<std::string> baseline_sets, candidate_sets;
  // An earlier run directory whose recorded choices (cuBLASLt algorithms) this run replays.
  std::string replay_from;
  std::vector<std::string> command_line;
};

// Adds the run options to the top-level app (or to the `ab` subcommand).
void add_run_options(CLI::App& app, RunCommandOptions& options);

// Adds one option per setting of the settings table (--samples, --warmup, --inner, --timer,
// --idle-gap-ms, ...), but those named in `except` (`calibrate` sets isolation and slowdowns
// itself); each overrides the sweep and is checked by the setting's rule when the sweep loads.
void add_setting_options(CLI::App& app, SettingsOverrides& overrides, const std::vector<std::string>& except);

// Adds `orchestrate ab --baseline X --candidate Y SWEEP`; its callback stores the exit code.
void register_ab_command(CLI::App& app, RunCommandOptions& options, int& exit_code);

// Exit codes: 0 every sample measured; 1 an A/B run found a SLOWER instance; 2 bad input (nothing run, no run directory left);
// 3 the run finished but some samples failed; 130 interrupted.
int run_command(const RunCommandOptions& options);

// The worker executable installed beside the running orchestrate binary.
std::string default_worker_path();

}  // namespace isobench::orchestrator
