#pragma once
// `--like RUN_DIR`: a new run measured as an earlier one was, so that `compare RUN_DIR NEW` joins
// every instance the two share. The earlier run's plan.json gives, per instance, the pinned inner
// count, the pinned choice (`replay`: a cuBLASLt algorithm, a Python benchmark's describe()) and
// every setting that changes what a sample measures (ipc/settings.hpp, changes_sample), and for the
// run its seed. The sweep's own values give way to the earlier run's; a command-line flag that
// would measure a shared instance otherwise is refused (docs/measurement.md, "Runs compared across
// time", says why).
//
// What --like does not take: the sample count, isolation, warm-up and the other settings that do
// not change what a sample is (compare pairs runs that differ in them), and the machine's drift,
// which no plan can carry: two runs made at different times are compared with a caveat, and `ab`
// is the instrument for a change.

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "orchestrator/plan.hpp"
#include "orchestrator/run/machine.hpp"
#include "orchestrator/log.hpp"
#include "orchestrator/sweep.hpp"

namespace isobench::orchestrator {

struct LikeRun {
  std::string dir;
  std::string device;  // "cpu" or "cuda"
  std::uint64_t seed = 0;
  std::map<std::string, PlannedInstance> instances;  // by id
  std::set<std::string> gpu_models;  // environment.json's names of the GPUs it ran on; empty when unknown
};

// Reads RUN_DIR's run.json, plan.json and environment.json. Throws UsageError ("--like DIR: ...")
// for a folder that is not a run of orchestrate's (no run.json or plan.json, damaged, newer, or
// imported from another tool).
LikeRun read_like_run(const std::string& dir);

// The command line's overrides with the earlier run's seed added; a --seed that differs is
// refused (UsageError).
SettingsOverrides like_overrides(const LikeRun& like, const SettingsOverrides& given);

// Refuses (UsageError) an earlier run of another device (cpu, cuda) or of another GPU model:
// inner counts and algorithms chosen on one do not hold on the other.
void check_like_machine(const LikeRun& like, const Machine& machine);
// The same as one line, empty when there is no problem; `models`: the names of the GPUs this run
// measures on (NVML), empty when unknown.
std::string like_machine_problem(const LikeRun& like, kernels::Backend device, const std::set<std::string>& models);

// Gives every instance of `plan` that the earlier run measured (same id, kernel and parameters) its
// inner count, pinned choice and sample-changing settings. `given`: the command line's overrides,
// refused (UsageError) where they would measure a shared instance otherwise. A note in `log` names
// the instances calibrated afresh and the sweep settings that gave way.
void take_like_choices(Plan& plan, const LikeRun& like, const SettingsOverrides& given, const Log& log);

}  // namespace isobench::orchestrator
