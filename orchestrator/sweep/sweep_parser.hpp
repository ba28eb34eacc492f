#pragma once
// Inside the sweep loader (the format: orchestrator/sweep.hpp, docs/sweep-format.md; its entry
// points, load_sweep and parse_sweep: sweep.cpp): the parser of one sweep file, in three parts,
//   sweep_parser.cpp   the file's top level, its settings and the command-line overrides;
//   benchmark_kinds.cpp what a benchmark measures: a built-in kernel, a plugin's kernel, a
//                       command or a Python set-up function (whose axes the file types);
//   expansion.cpp      one benchmark expanded into instances: axes x cases, less exclusions;
// and yaml_values.cpp, how YAML text becomes values (UTF-8, scalars, suggestions). Every problem
// is a SweepError "file:line:column: field.path: problem".

#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "orchestrator/sweep.hpp"

namespace isobench::orchestrator::sweep_detail {

using nlohmann::json;

// Offset of the first byte of `text` that is not well-formed UTF-8 or is a control character YAML
// does not allow; npos when there is none.
std::size_t first_invalid_utf8(const std::string& text);
// " (did you mean X?)" when one known name is close to `given`, else " (known: a, b, c)".
std::string suggestion(const std::string& given, const std::vector<std::string>& known);
// What a YAML scalar stands for: a quoted scalar is a string; a plain one is a boolean, an
// integer, a number or else a string.
json scalar_value(const YAML::Node& node);
// A number written as 1.6e7 or 50.0 on an integer-valued axis means the integer.
json normalize_number(const json& value);
json axis_value(const kernels::AxisSpec& axis, const YAML::Node& node);

class SweepParser {
 public:
  SweepParser(std::string file, const SettingsOverrides& overrides, const std::vector<kernels::KernelSpec>& catalog,
              const SweepLoadOptions& options = {});
  Sweep parse(const std::string& text);

 private:
  // One entry of `benchmarks:`, its keys read once. Absent keys stay empty optionals (a default
  // YAML::Node would count as a null value).
  struct Entry {
    YAML::Node node;
    std::size_t index = 0;
    std::string path;  // "benchmarks[3]"
    std::optional<YAML::Node> kernel, axes, cases, exclude, settings, plugin, command, name;
    std::optional<YAML::Node> python, function, device;  // a Python benchmark (docs/python.md)
    std::optional<YAML::Node> pytest, select, args, timing;  // a pytest file's benchmarks (docs/python.md)
    std::optional<YAML::Node> script;  // a benchmark script's timing calls, with its args (docs/python.md)
  };
  // What an entry measures: the kernel spec (a command's made from its axes), and where it lives.
  struct Kind {
    const kernels::KernelSpec* spec = nullptr;
    std::string plugin;                // absolute path of the kernel's plugin; empty: built-in or command
    std::vector<std::string> command;  // a command benchmark's program and arguments
    // A Python benchmark: its module (an absolute .py path or a module name), set-up function
    // and device (the sweep's device:, default cuda).
    std::string python_module, python_function;
    kernels::Backend python_backend = kernels::Backend::cuda;
    // A pytest file (absolute), its -k selection and its extra pytest arguments; or a benchmark
    // script (absolute) and its arguments, timing "script": its run is one do_bench test.
    std::string pytest_file, pytest_select;
    std::vector<std::string> pytest_args;
    std::string pytest_timing = "auto";  // auto | fixture | do_bench (timing:); script (script:)
  };
  struct Axes {  // the entry's axes, in file order (the first varies slowest)
    std::vector<std::size_t> order;             // spec axis index per axes entry
    std::vector<std::vector<json>> values;      // values per axes entry
    std::vector<bool> given;                    // by spec axis: given in axes
  };
  struct Combination {  // one case: axis index in the spec -> value
    std::vector<std::pair<std::size_t, json>> values;
  };
  struct Exclusion {  // an instance matching every (axis, any of values) pair is dropped
    std::vector<std::pair<std::string, std::vector<json>>> match;
  };

  // sweep_parser.cpp
  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& path, const std::string& problem) const;
  // The (key, value) pairs of a mapping; keys must be scalars and unique.
  std::vector<std::pair<YAML::Node, YAML::Node>> entries(const YAML::Node& map, const std::string& path) const;
  std::string parse_name(const YAML::Node& node) const;
  void parse_settings(const YAML::Node& node, const std::string& path, RunSettings& run, MeasureSettings& measure,
                      bool measure_only) const;

  // benchmark_kinds.cpp
  Kind resolve_kind(const Entry& entry);
  const kernels::KernelSpec& parse_kernel(const YAML::Node& node, const std::string& path) const;
  // The sweep file's folder, absolute: plugin paths and commands are relative to it.
  std::string folder() const;
  std::string parse_plugin_path(const YAML::Node& node, const std::string& path);
  const kernels::KernelSpec& parse_plugin_kernel(const YAML::Node& node, const std::string& path,
                                                 const std::string& plugin) const;
  // The program and its arguments. A program named with a '/' is relative to the sweep's folder;
  // one without is looked up in PATH, now, so a typo stops the run before it starts.
  std::vector<std::string> parse_command(const YAML::Node& node, const std::string& path) const;
  // A command's or a Python benchmark's axes are free-form: each axis takes the type its values
  // have in the file (integers and numbers together make a number axis), without bounds or
  // defaults; the entry's `name:` names it in ids (a Python benchmark's default: its function).
  const kernels::KernelSpec& free_form_spec(const Entry& entry, const std::string& family);
  // A `python:` entry's module, function and device, into `kind`.
  void parse_python(const Entry& entry, Kind& kind) const;
  // A `pytest:` entry's file, selection, arguments and device, into `kind`.
  void parse_pytest(const Entry& entry, Kind& kind) const;
  // A `script:` entry's file, arguments and device, into `kind`.
  void parse_script(const Entry& entry, Kind& kind) const;
  // A `pytest:` or `script:` entry's file (`what`, at `key`), made absolute from the sweep's folder.
  std::string parse_file(const YAML::Node& file, const std::string& key, const std::string& what) const;
  // A Python entry's device: (cpu or cuda), into `kind`.
  void parse_device(const Entry& entry, Kind& kind) const;
  // A `pytest:` or `script:` entry's list of arguments.
  std::vector<std::string> parse_args(const Entry& entry, const std::string& what) const;

  // expansion.cpp
  void expand_benchmark(const YAML::Node& node, std::size_t index, std::vector<Instance>& instances);
  Entry read_entry(const YAML::Node& node, std::size_t index) const;
  MeasureSettings entry_settings(const Entry& entry) const;
  Axes parse_axes(const Entry& entry, const kernels::KernelSpec& spec) const;
  std::vector<Combination> parse_cases(const Entry& entry, const kernels::KernelSpec& spec,
                                       const std::vector<bool>& given) const;
  std::vector<Exclusion> parse_exclusions(const Entry& entry, const kernels::KernelSpec& spec) const;
  void produce(const Entry& entry, const Kind& kind, const MeasureSettings& measure, const Axes& axes,
               const std::vector<Combination>& cases, const std::vector<Exclusion>& exclusions,
               std::vector<Instance>& instances);
  // A pytest entry's instances: its collected tests that take the benchmark fixture.
  // A do_bench suite's test: one instance per timing call it makes.
  void produce_timing_calls(const Entry& entry, const Kind& kind, const MeasureSettings& measure,
                            const CollectedTest& test, std::vector<Instance>& instances);
  void produce_pytest(const Entry& entry, const Kind& kind, const MeasureSettings& measure,
                      std::vector<Instance>& instances);
  // Refuses an id another instance has (`what` says which of this entry's made it twice).
  void claim_id(const Entry& entry, const std::string& id, const std::string& what);
  const kernels::AxisSpec& parse_axis_name(const kernels::KernelSpec& spec, const YAML::Node& key,
                                           const std::string& path) const;
  json parse_axis_scalar(const kernels::AxisSpec& axis, const YAML::Node& node, const std::string& path) const;
  // A scalar or a list of distinct scalars.
  std::vector<json> parse_axis_values(const kernels::AxisSpec& axis, const YAML::Node& node,
                                      const std::string& path) const;

  std::string file_;
  std::string name_;  // the sweep's, once its top level is read
  std::vector<std::pair<const ipc::SettingSpec*, json>> overrides_;  // checked once, in parse()
  const std::vector<kernels::KernelSpec>& catalog_;
  SweepLoadOptions options_;
  std::unordered_map<std::string, const kernels::KernelSpec*> kernels_by_name_;
  std::unordered_map<std::string, std::size_t> first_producer_;  // instance id -> benchmark
  MeasureSettings file_measure_;
  std::vector<std::string> plugins_;               // absolute paths, first use first
  std::vector<std::string> notes_;                 // said once the sweep is loaded (Sweep::notes)
  std::deque<kernels::KernelSpec> free_form_specs_;  // stable addresses for command and Python benchmarks
};

}  // namespace isobench::orchestrator::sweep_detail
