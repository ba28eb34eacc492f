#pragma once
// The Python environment of each side of a run with Python benchmarks (docs/python.md): its
// interpreter, environment variables and PYTHONPATH, from the command line, recorded in the run
// directory's python.json so that --resume runs the same ones. An A/B run may give each side its
// own (two venvs, two checkouts, two compiler settings); the two sides then run interleaved in
// one run like two worker builds.
//
// Each side's zygote runs the worker library and the isobench package of that side's worker
// build (<build>/lib/libisobench-worker.so, <build>/python beside <build>/bin/isobench-worker):
// the zygote's protocol and the library's C API are those of one build.

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "orchestrator/errors.hpp"
#include "orchestrator/plan.hpp"
#include "orchestrator/run_directory.hpp"
#include "orchestrator/runner/runner.hpp"
#include "orchestrator/python/zygote.hpp"

namespace isobench::orchestrator {

struct PythonEnvironment {
  std::string interpreter;              // as given: a path, or a name looked up in PATH
  std::vector<std::string> variables;   // NAME=VALUE, over the orchestrator's environment
  std::vector<std::string> pythonpath;  // folders before the inherited PYTHONPATH
};

// The command line: every side's environment, and (orchestrate ab) each side's additions.
struct PythonOptions {
  PythonEnvironment all;
  PythonEnvironment sides[2];  // baseline, candidate
  bool any_side_given() const;
  bool any_given() const;
};

// The interpreter that collects a sweep's `pytest:` files when it is loaded: the baseline's
// (--baseline-python, else --python); empty when neither is given (python3 from PATH).
std::string pytest_collector_python(const PythonOptions& options);
// The variables it collects with, over the orchestrator's environment: the baseline's as its
// zygote gets them (--python-env and --baseline-env; PYTHONPATH with this build's isobench
// package, --baseline-pythonpath and --python-path folders, then the inherited one). A malformed
// variable is a UsageError naming its option.
std::vector<std::string> pytest_collector_variables(const PythonOptions& options);

// The interpreter `given` (a path, or a name looked up in PATH) as an absolute path; a UsageError
// naming `flag` when it is not an executable or not in PATH.
std::string find_interpreter(const std::string& given, const std::string& flag);

// --python, --python-env, --python-path: every side's (every verb that runs sweeps).
void add_python_options(CLI::App& app, PythonOptions& options);
// orchestrate ab: --baseline-python, --candidate-python, --baseline-env, --candidate-env,
// --baseline-pythonpath, --candidate-pythonpath.
void add_python_side_options(CLI::App& app, PythonOptions& options);

// The zygotes of a run, one per side, started and loaded; none when the plan has no Python
// benchmark. A new run takes the sides' environments from `options` (`workers`: each side's
// worker executable, absolute); a resumed run (`resumed`: its directory) from its python.json,
// and refuses options. Bad Python options and a zygote that refuses the run are bad input, found
// before anything is measured: UsageError, one line.
struct PythonSides {
  std::vector<std::shared_ptr<Zygote>> zygotes;  // by side
  nlohmann::json record;                        // python.json
};
//
// Triton's compiled kernels: each side of a new run gets TRITON_CACHE_DIR=triton_cache_folder()
// (recorded in python.json with the side's other variables, so a resumed run keeps it), unless the
// side's options or the orchestrator's environment give one (kept; an A/B run whose two sides
// would share a folder they were given is warned).
inline constexpr const char* kTritonCacheVariable = "TRITON_CACHE_DIR";
inline constexpr const char* kTritonCacheFolder = "triton-cache";
// Where the cache folders live: ISOBENCH_TRITON_CACHE (a folder, or "run" for a folder per side
// in the run directory, <run>/triton-cache/side-<s>), else $XDG_CACHE_HOME/isobench/triton, else
// ~/.cache/isobench/triton, else the run directory.
inline constexpr const char* kTritonCacheRootVariable = "ISOBENCH_TRITON_CACHE";

// 16 hex digits of SHA-256 over what decides how a side compiles besides the kernel's source,
// which Triton's own cache key covers: the interpreter (its real path: a venv is another
// installation), the side's PYTHONPATH folders in order and the inherited PYTHONPATH (a checkout
// of Triton there), and the environment variables the side sets or inherits as TRITON_* (a switch
// that is not part of Triton's cache key), TRITON_CACHE_DIR excepted. Two sides that differ in any
// of these never share a folder; the same environment in a later run finds its kernels compiled.
std::string compile_environment_key(const PythonEnvironment& env);
// The folder a side compiles into when no TRITON_CACHE_DIR is given: <root>/<key>, the root as
// kTritonCacheRootVariable says, or <run_dir>/triton-cache/side-<side>.
std::string triton_cache_folder(const PythonEnvironment& env, const std::string& run_dir, std::size_t side);

// A new run's zygotes started while its sweep is loaded (docs/python.md, "Existing pytest
// benchmarks"). Collecting a `pytest:` file imports it, and with it torch and Triton, for
// seconds; each side's zygote imports it again. Started as soon as the first file is known, the
// zygotes import it while the collector does, so the run starts after the longer of the two
// rather than their sum. The collector keeps deciding the plan, as for every other way a sweep is
// loaded (calibrate, bisect): the zygotes only import early, and a zygote still refuses a test its
// environment lacks when the plan loads it. start_python_sides takes each zygote whose start is
// the one it would make and loads it with the plan's benchmarks; one it does not take (a plan
// without Python benchmarks, a zygote of an older build that refused the early import) is
// stopped. Starting early changes no refusal: a side that cannot start here (no interpreter, no
// worker library, a malformed option) is left to the plan's start, which says why as before.
class EarlyZygotes {
 public:
  // Starts a zygote per side: `workers` holds each side's worker executable as the plan will
  // name it, `run_dir` the run's directory as it will be (absolute).
  EarlyZygotes(const PythonOptions& options, const std::vector<std::string>& workers, const std::string& run_dir);
  // Each zygote collects `file` (absolute) with the entry's pytest `args` while the sweep is
  // loaded. Returns the run log's lines of it (zygote-early), one per side.
  std::vector<LogLine> import_pytest(const std::string& file, const std::vector<std::string>& args);
  // The zygote of `side`, when it was started as `spec` (benchmarks aside) starts one and is
  // running; else null, and the caller starts one.
  std::shared_ptr<Zygote> take(std::size_t side, const ZygoteSpec& spec);
  // Stops the zygotes no plan took; the run log's lines of it.
  std::vector<LogLine> finish();

 private:
  std::vector<std::shared_ptr<Zygote>> zygotes_;  // by side; null once taken
};

// `early`: a new run's zygotes started while its sweep was loaded, taken where they fit.
PythonSides start_python_sides(const Plan& plan, const std::vector<std::string>& workers, const PythonOptions& options,
                               const RunDirectory* resumed, const std::string& sweep_path,
                               const std::string& run_dir = "", EarlyZygotes* early = nullptr);

// Hands each side's zygote to the runner, points its output at the run's workers.log, and writes
// python.json (with what each zygote said about itself).
void attach_python_sides(PythonSides& sides, RunnerOptions& runner, const RunDirectory& dir, RunLog& log);

// The SASS of the Triton kernels whose IR the sides' workers recorded under `artifact_root`
// (<run>/artifacts), by `python -m isobench.triton_ir sass` in side 0's interpreter with this
// build's package. A worker leaves each kernel's cubin instead of running cuobjdump in its set-up,
// where the run waited on it (about half a second a kernel on the H200). start() makes it beside
// the measurement, on a thread of its own, once every side's first worker has reported (their IR
// is recorded by then: the runner's on_sides_reported), at a lower CPU priority than the
// measuring worker; finish(), after the samples, waits for that and makes the SASS of any cubin
// still there (IR recorded by later workers, or no start()). Logged as "sass" with the count and
// the time; a failure is logged and warned, never fails the run. Nothing happens without Python
// sides or without a .cubin under the folder.
class SassStep {
 public:
  SassStep(const PythonSides& sides, std::string artifact_root);
  ~SassStep();  // waits for a pass under way (cuobjdump gives up on a kernel after 60 s)
  SassStep(const SassStep&) = delete;
  SassStep& operator=(const SassStep&) = delete;
  void start();                // once; returns at once
  void finish(RunLog& log);    // the runner's thread, after the run

 private:
  struct Pass {
    bool ran = false;
    std::string line;     // the log line: what it made and its time, or why not
    bool failed = false;
  };
  Pass pass(bool background) const;

  std::string interpreter_, package_, artifact_root_;
  std::thread thread_;
  Pass background_;
};

}  // namespace isobench::orchestrator
