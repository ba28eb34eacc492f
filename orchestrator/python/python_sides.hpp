#pragma once
// The sides of a run with Python benchmarks (docs/python.md): a zygote per side, started in the
// side's environment (python_environment.hpp) with its Triton cache (triton_cache.hpp) and loaded
// with the plan's benchmarks, and python.json, which records the sides so that --resume runs the
// same ones.
//
// Each side's zygote runs the worker library and the isobench package of that side's worker
// build (<build>/lib/libisobench-worker.so, <build>/python beside <build>/bin/isobench-worker):
// the zygote's protocol and the library's C API are those of one build.

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "orchestrator/log.hpp"
#include "orchestrator/plan.hpp"
#include "orchestrator/python/python_environment.hpp"
#include "orchestrator/python/zygote.hpp"
#include "orchestrator/run_directory.hpp"
#include "orchestrator/runner/runner.hpp"

namespace isobench::orchestrator {

// Whether the plan has a Python benchmark (its workers are forked from zygotes).
bool has_python(const Plan& plan);
// Whether an instance of the plan has `key` at `value` in its pytest object (a test of a pytest
// file): "timing" "do_bench", the plan times do_bench calls (docs/python.md, "do_bench suites");
// "import_in_worker" true, such a file initialises CUDA when imported.
bool any_pytest_flag(const Plan& plan, const char* key, const nlohmann::json& value);

// The zygotes of a run, one per side, started and loaded; none when the plan has no Python
// benchmark. A new run takes the sides' environments from `options` (`workers`: each side's
// worker executable, absolute); a resumed run (`resumed`: its directory) from its python.json,
// and refuses options. Bad Python options and a zygote that refuses the run are bad input, found
// before anything is measured: UsageError, one line.
struct PythonSides {
  std::vector<std::shared_ptr<Zygote>> zygotes;  // by side
  nlohmann::json record;                        // python.json
};

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
//
// A file whose import initialises CUDA (FlagGems') leaves a zygote that imported it plainly unable
// to serve any worker; the collector finds out only when its own import is done. So a side whose
// zygote is of this build (its isobench package is this orchestrator's) imports with CUDA
// deferred from torch's import on (docs/python.md, "Files that touch CUDA when imported"): a file
// that asks about the device is imported as the plan's zygote would import it, one that asks
// nothing as plainly as before. Where the file may be timed through do_bench (`timing` auto or
// do_bench), such a side's zygote is started with the variables a do_bench plan gives its zygote
// (FLAGGEMS_CACHE_DIR, ISOBENCH_TUNER_REPLAY: start_python_sides), which FlagGems reads when
// imported; a plan without do_bench instances takes it where flag_gems was not imported, the
// variables taken out again, and starts a side anew where it was.
class EarlyZygotes {
 public:
  // Starts a zygote per side: `workers` holds each side's worker executable as the plan will
  // name it, `run_dir` the run's directory as it will be (absolute), `timing` the first file's
  // (auto | fixture | do_bench).
  EarlyZygotes(const PythonOptions& options, const std::vector<std::string>& workers, const std::string& run_dir,
               const std::string& timing);
  // Each zygote collects `file` (absolute) with the entry's pytest `args` while the sweep is
  // loaded. Returns the run log's lines of it (zygote-early), one per side.
  std::vector<LogLine> import_pytest(const std::string& file, const std::vector<std::string>& args);
  // The zygote of `side`, when it was started as `spec` (benchmarks aside) starts one and is
  // running (and, where `import_in_worker`, imported with CUDA deferred), loaded with `benchmarks`;
  // else null, and the caller starts one.
  std::shared_ptr<Zygote> take(std::size_t side, const ZygoteSpec& spec, const nlohmann::json& benchmarks,
                               bool import_in_worker);
  // Stops the zygotes no plan took; the run log's lines of it.
  std::vector<LogLine> finish();
  // The run directory, where it was unused when they started and they were given the do_bench
  // variables (FlagGems makes its folder in it when imported); else "", and a used one is left to
  // the run's own check, which refuses it as before.
  const std::string& found_unused() const { return found_unused_; }

 private:
  std::string found_unused_;
  std::vector<std::shared_ptr<Zygote>> zygotes_;              // by side; null once taken
  std::vector<bool> defer_cuda_;                              // by side: imports with CUDA deferred
  std::vector<std::vector<std::string>> do_bench_variables_;  // by side: NAME=VALUE it was given for do_bench
};

// `early`: a new run's zygotes started while its sweep was loaded, taken where they fit. Two
// sides that would compile into one Triton cache folder they were given are warned in `log`.
PythonSides start_python_sides(const Plan& plan, const std::vector<std::string>& workers, const PythonOptions& options,
                               const RunDirectory* resumed, const std::string& sweep_path, const Log& log,
                               const std::string& run_dir = "", EarlyZygotes* early = nullptr);

// Hands each side's zygote to the runner, points its output at the run's workers.log, and writes
// python.json (with what each zygote said about itself); a zygote's notes are warned in `warnings`.
void attach_python_sides(PythonSides& sides, RunnerOptions& runner, const RunDirectory& dir, RunLog& log,
                         const Log& warnings);

// After the run: the instances of the run's plan whose FlagGems tuner replay fell back (their
// <artifact_root>/side-<s>/<artifact folder>/tuner_replay.json, python/isobench/autotune.py) into
// python.json's side, "tuner_replay": {"instances_replayed", "fallbacks": [{"instance" (its id),
// "folder" (its artifact folder), "kernel", "key", "reason"}]}, each side with fallbacks warned of
// in `warnings`. Nothing without a side's "tuner_replay" (a run with no do_bench instances).
void note_tuner_fallbacks(const RunDirectory& dir, const std::string& artifact_root, const Log& warnings);

}  // namespace isobench::orchestrator
