#pragma once
// A sweep file (YAML) turned into the list of benchmark instances a run measures.
//
// Format (docs/sweep-format.md has the full guide and examples):
//
//   name: quick                 # optional; default: the file stem
//   settings:                   # run settings; each can be overridden on the command line
//     samples: 12               # integer >= 2
//     warmup: 3                 # warm-up launches per instance per worker (>= 0)
//     inner: auto               # launches per sample: "auto" or an integer >= 1
//     min_sample_time_ms: 10    # target sample length for inner: auto (> 0)
//     statistic: mean           # mean | min (of the inner launches)
//     isolation: process        # sequential | interleave | process
//     per: batch                # sample | batch (used by isolation: process)
//     seed: 1                   # integer >= 0
//     timer: events             # events | graph (CUDA)
//     graph_chunk: 1024         # graph timer, mean: launches per graph, replayed (0: all inner)
//     cold_cache: false         # true forces inner = 1 (not with cold_launches)
//     cold_launches: false      # an L2 flush before every launch, each timed alone
//     rotate_buffers: 1         # >= 1 copies of every input
//     blocking_kernel: false
//     slowdown_pct: 0           # >= 0, a real extra cost per launch (power experiments)
//     idle_gap_ms: 0            # >= 0: the worker idles this long before each sample
//     realloc: false            # a freshly set-up instance for every sample (not for commands)
//     record_kernels: false     # one untimed CUPTI pass per worker records the CUDA kernels run
//   benchmarks:
//     - kernel: cpu_copy        # a kernel of the catalog
//       axes:                   # axis: scalar or list; the cartesian product, in file order,
//         bytes: [1048576, 16777216]  # first axis slowest
//       cases:                  # optional: combinations given whole; product is axes x cases
//         - {m: 4096, n: 4096, k: 4096}
//       exclude:                # optional: an instance matching every key of one entry is
//         - {bytes: 1048576}    #   dropped (a list value matches any of its items)
//       settings: {inner: 100}  # optional: measurement settings for this benchmark only
//     - plugin: lib/libfoo.so   # a user's kernel from a plugin (docs/plugins.md); the path is
//       kernel: foo_stencil     #   relative to the sweep file's folder
//     - command: [python3, bench.py]  # any program as a benchmark (docs/command-protocol.md):
//       name: my_bench          #   the name in ids; axes are free-form, types from the YAML
//       axes: {size: [1, 2]}
//     - python: kernels.py      # a Python set-up function (docs/python.md): a file relative to
//       function: softmax       #   the sweep's folder or a module name; device cpu or cuda
//       device: cuda            #   (default cuda); name optional (default: the function); axes
//       axes: {rows: [1024, 8192]}  # free-form, passed as keyword arguments
//
// Every problem is found before anything runs and reported as one line,
// "file:line:column: field.path: problem", by SweepError.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ipc/settings.hpp"
#include "orchestrator/errors.hpp"
#include "kernels/kernel_spec.hpp"

namespace isobench::orchestrator {

// Bad input in a sweep file (or an override of its settings): "file:line:column: field: problem".
class SweepError : public UsageError {
 public:
  using UsageError::UsageError;
};

// The settings and their rules: ipc/settings.hpp (the measurement settings travel to the worker).
using ipc::MeasureSettings;
using ipc::RunSettings;

struct Instance {
  std::string id;  // kernels::instance_id: stable across runs, builds and machines
  std::string kernel;
  std::string family;
  kernels::Backend backend = kernels::Backend::cpu;
  kernels::Params params;  // every axis, in the spec's axis order
  MeasureSettings measure;
  // Upper bound of the memory the instance holds: the spec's device_bytes times rotate_buffers.
  std::uint64_t device_bytes = 0;
  std::size_t benchmark_index = 0;  // which entry of `benchmarks:` produced it
  std::string plugin;                // absolute path of the kernel's plugin; empty: built-in
  // A command benchmark: the program and its arguments (a program path with a '/' made
  // absolute), run in command_dir (the sweep's folder). Empty: a kernel.
  std::vector<std::string> command;
  std::string command_dir;
  // A Python benchmark: its module (an absolute .py path or a module name) and set-up function.
  std::string python_module;
  std::string python_function;
  // A test of a pytest file (python_function: its name in the file): {"args": [pytest's extra
  // arguments]}, with "timing": "do_bench" and "import_in_worker" for a timing call of a do_bench
  // suite (its params hold the call's name as "call"), and "control": true where the call is a
  // control (FlagGems' torch operator: SAME expected in an A/B), and "script": true where the
  // test is a benchmark script's run (a `script:` entry; python_function: the file's stem); null
  // for every other kind.
  nlohmann::json pytest;
};

struct Sweep {
  std::string name, path, source_text;
  RunSettings settings;
  std::vector<Instance> instances;  // in expansion order: benchmarks, then axes x cases
  std::vector<std::string> plugins;  // absolute paths of the plugins it uses, first use first
  std::vector<std::string> notes;    // for the person who runs it (the tests a pytest entry skips)
};

// Command-line overrides of settings, by setting name (ipc/settings.hpp), as typed or given: they
// apply to the run and to every instance, over the file's settings and over per-benchmark
// settings, and are checked by the same rules (a problem names the option, --idle-gap-ms).
class SettingsOverrides {
 public:
  // Throws std::invalid_argument for a name that is no setting (a programming error).
  void set(const std::string& name, nlohmann::json value);
  // As typed on a command line: "12" is the integer where the setting takes one, "true" a boolean.
  void set_text(const std::string& name, const std::string& text);
  bool has(const std::string& name) const { return values_.contains(name); }
  const nlohmann::json& values() const { return values_; }  // an object, in name order
  static SettingsOverrides from_json(const nlohmann::json& j);  // throws std::runtime_error

 private:
  nlohmann::json values_ = nlohmann::json::object();
};

// What one sweep may hold, refused with the limit named before anything is built: planning ten
// times this many instances ran into the OOM killer on a 23 GB machine, where this many plan in
// seconds (docs/evidence.md#behind-the-code).
inline constexpr std::size_t kMaxSweepInstances = 100'000;
inline constexpr std::uint64_t kMaxSweepFileBytes = std::uint64_t{16} << 20;

// A test of a `pytest:` entry's file, as pytest collects it (orchestrator/sweep/pytest_collection.hpp).
struct CollectedTest {
  std::string test;        // its node id after the file: "test_softmax[1024-fp16]", "TestX::test_y": the instance's id
  std::string function;    // "test_softmax", "TestX.test_y": the instance's kernel
  nlohmann::json params;   // its parametrization: argument name -> value (a JSON scalar, else its str())
  bool uses_benchmark = false;  // takes the benchmark fixture, or is marked benchmark (pytest-codspeed's style)
  bool doctest = false;         // a doctest of the file (--doctest-modules): never a benchmark
  std::string node_id;          // pytest's node id from its rootdir: "tests/test_ops.py::test_softmax[1024-fp16]"
  // Why its skip or skipif marks skip it where the collector ran (pytest's reason; "unconditional
  // skip" for a bare mark); empty for a test they do not skip: a skipped test is named in a note
  // and not measured, as pytest and pytest-benchmark leave it out.
  std::string skipped;
  // A test of a do_bench suite (docs/python.md, "do_bench suites"): the timing calls it makes
  // through triton.testing, each {"name", "kind"} (kind: do_bench | do_bench_cudagraph), in order,
  // with "control": true for a control (isobench.do_bench); empty for a test of a fixture suite.
  std::vector<nlohmann::json> calls;
  bool import_in_worker = false;  // importing the file initialised CUDA: each worker imports it, not the zygote
  double import_seconds = 0;      // the collector's import and collection of the file
};

// What a sweep's loading needs beyond the file: how its `pytest:` files are collected. Given the
// sweep's name (a run's directory is named after it), a file (absolute), its -k selection and its
// pytest arguments and its timing (auto | fixture | do_bench; script for a `script:` entry's file
// and its arguments), returns the file's tests or throws
// std::runtime_error with one line naming
// the file. A run collects in its baseline side's environment, its zygotes importing the file
// meanwhile (orchestrator/starters/python_starter.hpp); unset: python3 from PATH collects it, in this
// environment (collect_pytest_tests).
struct SweepLoadOptions {
  std::function<std::vector<CollectedTest>(const std::string& sweep_name, const std::string& file,
                                           const std::string& select, const std::vector<std::string>& args,
                                           const std::string& timing)>
      collect_pytest;
  // The sweep is orchestrate's own text (ab --pytest makes it), not a file the user wrote: its
  // errors name no line, column or key of it, and a pytest file's refusal is pytest's line alone.
  bool generated = false;
};

// Reads and validates a sweep file against the built-in catalog. Throws SweepError (and
// Interrupted when Ctrl-C arrives while a large sweep is expanded).
Sweep load_sweep(const std::string& path, const SettingsOverrides& overrides = {},
                 const SweepLoadOptions& options = {});

// The same from text; `path_for_messages` names the file in errors and gives the default name.
Sweep parse_sweep(const std::string& text, const std::string& path_for_messages,
                  const SettingsOverrides& overrides = {}, const SweepLoadOptions& options = {});

// The same against a given catalog (the built-in kernels plus plugins, or a test's own).
Sweep parse_sweep(const std::string& text, const std::string& path_for_messages,
                  const SettingsOverrides& overrides,
                  const std::vector<kernels::KernelSpec>& catalog, const SweepLoadOptions& options = {});

// Empty when every instance of `backend` fits in `budget_bytes`; else one line naming the
// largest instance that does not, and how many others do not either.
std::string check_memory(const Sweep& sweep, std::uint64_t budget_bytes, kernels::Backend backend);

}  // namespace isobench::orchestrator
