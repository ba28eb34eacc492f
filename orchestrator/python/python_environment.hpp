#pragma once
// The Python environment of each side of a run with Python benchmarks (docs/python.md): its
// interpreter, environment variables and PYTHONPATH, from the command line. An A/B run may give
// each side its own (two venvs, two checkouts, two compiler settings); the two sides then run
// interleaved in one run like two worker builds. python.json records them (python_sides.hpp), so
// that --resume runs the same ones.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isobench::orchestrator {

struct PythonEnvironment {
  std::string interpreter;              // as given: a path, or a name looked up in PATH
  std::vector<std::string> variables;   // NAME=VALUE, over the orchestrator's environment
  std::vector<std::string> pythonpath;  // folders before the inherited PYTHONPATH
};

// The command line: every side's environment, and (orchestrate ab) each side's additions. The
// options themselves: orchestrator/commands/python_options.hpp.
// Where each side's workers are forked from (--zygotes, docs/python.md "What a worker inherits"):
// one zygote per side for the whole run, or one per side for every round of the schedule.
enum class ZygoteLifetime { per_run, per_round };

struct PythonOptions {
  PythonEnvironment all;
  PythonEnvironment sides[2];  // baseline, candidate
  std::optional<ZygoteLifetime> zygotes;  // --zygotes; none: chosen by how the benchmarks are timed
  bool any_side_given() const;
  bool any_given() const;
};

inline constexpr const char* kPythonSideNames[2] = {"baseline", "candidate"};

// One side's environment: the side's options (orchestrate ab) over everyone's, folders made
// absolute, the interpreter found. A problem is a UsageError naming the option it came from.
PythonEnvironment side_environment(const PythonOptions& options, std::size_t side, bool ab);

// The interpreter `given` (a path, or a name looked up in PATH) as an absolute path; a UsageError
// naming `flag` when it is not an executable or not in PATH.
std::string find_interpreter(const std::string& given, const std::string& flag);

// The orchestrator's own environment, NAME -> VALUE.
std::map<std::string, std::string> inherited_environment();

// A zygote's whole environment: the orchestrator's, the side's variables over it, and PYTHONPATH
// with the build's isobench package first (the zygote must speak this build's protocol, whatever
// isobench a venv has installed), the side's folders, then what it had.
std::vector<std::string> zygote_environment(const PythonEnvironment& env, const std::string& package);

nlohmann::json to_json(const PythonEnvironment& env);

// The interpreter that collects a sweep's `pytest:` files when it is loaded: the baseline's
// (--baseline-python, else --python); empty when neither is given (python3 from PATH).
std::string pytest_collector_python(const PythonOptions& options);
// The variables it collects with, over the orchestrator's environment: the baseline's as its
// zygote gets them (--python-env and --baseline-env; PYTHONPATH with this build's isobench
// package, --baseline-pythonpath and --python-path folders, then the inherited one). A malformed
// variable is a UsageError naming its option.
std::vector<std::string> pytest_collector_variables(const PythonOptions& options);

}  // namespace isobench::orchestrator
