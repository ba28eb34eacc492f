#pragma once
// The variables of orchestrate's environment that decide what a worker measures, recorded when a
// run or a calibration starts (plan.json's and experiment.json's environment_variables) so that
// --resume measures in the same environment: a variable set otherwise now is refused, naming it
// and both values. Workers and zygotes inherit orchestrate's environment; what a user gives a
// side (--python-env, --baseline-env, ...) is recorded with the side in python.json instead.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isobench::orchestrator {

struct RecordedEnvironment {
  // The names looked at, each a name, a prefix ending in '*' ("OMP_*") or a name a prefix leaves
  // out ("!CUDA_HOME"): a build that looks at others compares only these, so a record never
  // refuses what it did not record.
  std::vector<std::string> considered;
  std::map<std::string, std::string> values;  // those of them that were set, NAME -> VALUE

  nlohmann::json to_json() const;
  static RecordedEnvironment from_json(const nlohmann::json& j);  // throws std::runtime_error
};

// The variables that decide what a worker measures (recorded_environment.cpp says why each), and
// PATH where `path_decides`: a command benchmark's program named without a folder is looked up
// in it when the worker runs it.
std::vector<std::string> deciding_variables(bool path_decides);

// Whether a command benchmark's program (its argv) is looked up in PATH.
bool looked_up_in_path(const std::vector<std::string>& command);

// The `considered` variables as orchestrate found them when it started (before it set any for
// its workers, such as CUDA_DEVICE_ORDER: a calibration's later runs record what its first did).
RecordedEnvironment record_environment(const std::vector<std::string>& considered);

// How the environment now differs from `recorded`, in words naming the first variable that
// differs and both values ("OMP_NUM_THREADS=2 here, <started> with OMP_NUM_THREADS=1"); "" when
// none does. `started` names the record ("the run was started"); `not_compared` lists names left
// out (a Slurm task's CUDA_VISIBLE_DEVICES is Slurm's to choose).
std::string environment_difference(const RecordedEnvironment& recorded, const std::string& started,
                                   const std::vector<std::string>& not_compared = {});

}  // namespace isobench::orchestrator
