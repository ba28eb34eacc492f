// What one entry of `benchmarks:` measures: a kernel of the built-in catalog, a kernel of a
// user's plugin (docs/plugins.md), a program run as a command (docs/command-protocol.md), or a
// Python set-up function (docs/python.md); the axes of the last two the file itself types.

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <sstream>
#include <unordered_set>

#include "kernels/catalog.hpp"
#include "kernels/plugin_loader.hpp"
#include "orchestrator/sweep/python_benchmark.hpp"
#include "orchestrator/sweep/sweep_parser.hpp"

namespace isobench::orchestrator::sweep_detail {

namespace {

bool plain_name(const std::string& name, bool allow_dot_dash) {
  if (name.empty()) return false;
  for (unsigned char c : name)
    if (!std::isalnum(c) && c != '_' && !(allow_dot_dash && (c == '.' || c == '-'))) return false;
  return true;
}

}  // namespace

SweepParser::Kind SweepParser::resolve_kind(const Entry& entry) {
  Kind kind;
  const std::string& path = entry.path;
  if (entry.script || entry.pytest) {
    const bool script = entry.script.has_value();
    if (script && (entry.pytest || entry.select || entry.timing))
      fail((entry.pytest ? entry.pytest : entry.select ? entry.select : entry.timing)->Mark(), path,
           "a benchmark script is run as it is, with its args: no pytest, select or timing");
    for (const auto* other : {&entry.kernel, &entry.plugin, &entry.command, &entry.python, &entry.function,
                              &entry.name, &entry.axes, &entry.cases, &entry.exclude})
      if (*other)
        fail((*other)->Mark(), path,
             std::string(script ? "a benchmark script takes its instances from its timing calls"
                                : "a pytest benchmark takes its instances from the file's tests and their "
                                  "parametrization") +
                 ": no kernel, plugin, command, python, function, name, axes, cases or exclude");
    if (script)
      parse_script(entry, kind);
    else
      parse_pytest(entry, kind);
    return kind;
  }
  if (entry.select || entry.args || entry.timing)
    fail((entry.select ? entry.select : entry.args ? entry.args : entry.timing)->Mark(),
         path + (entry.select ? ".select" : entry.args ? ".args" : ".timing"),
         "only pytest benchmarks (pytest:) take select, args and timing, and scripts (script:) args");
  if (entry.python) {
    if (entry.kernel || entry.plugin || entry.command)
      fail((entry.kernel ? entry.kernel : entry.plugin ? entry.plugin : entry.command)->Mark(), path,
           "a benchmark is a kernel, a command or a Python function, not several");
    parse_python(entry, kind);
    kind.spec = &free_form_spec(entry, "python");
    return kind;
  }
  if (entry.function || entry.device)
    fail((entry.function ? entry.function : entry.device)->Mark(), path + (entry.function ? ".function" : ".device"),
         "only Python benchmarks (python:, pytest:, script:) take a function and a device");
  if (entry.command) {
    if (entry.kernel || entry.plugin)
      fail((entry.kernel ? entry.kernel : entry.plugin)->Mark(), path, "a benchmark is a kernel or a command, not both");
    kind.command = parse_command(*entry.command, path + ".command");
    kind.spec = &free_form_spec(entry, "command");
    return kind;
  }
  if (entry.name) fail(entry.name->Mark(), path + ".name", "only command and Python benchmarks take a name");
  if (!entry.kernel) fail(entry.node.Mark(), path + ".kernel", "missing: which kernel to measure");
  if (entry.plugin) {
    kind.plugin = parse_plugin_path(*entry.plugin, path + ".plugin");
    kind.spec = &parse_plugin_kernel(*entry.kernel, path + ".kernel", kind.plugin);
  } else {
    kind.spec = &parse_kernel(*entry.kernel, path + ".kernel");
  }
  return kind;
}

const kernels::KernelSpec& SweepParser::parse_kernel(const YAML::Node& node, const std::string& path) const {
  if (!node.IsScalar()) fail(node.Mark(), path, "expected a kernel name");
  auto it = kernels_by_name_.find(node.Scalar());
  if (it != kernels_by_name_.end()) return *it->second;
  std::vector<std::string> names;
  for (const auto& spec : catalog_) names.push_back(spec.name);
  fail(node.Mark(), path, "unknown kernel \"" + node.Scalar() + "\"" + suggestion(node.Scalar(), names));
}

// The sweep file's folder, absolute: plugin paths and commands are relative to it.
std::string SweepParser::folder() const {
  const auto parent = std::filesystem::path(file_).parent_path();
  return (parent.empty() ? std::filesystem::current_path() : std::filesystem::absolute(parent))
      .lexically_normal()
      .string();
}

std::string SweepParser::parse_plugin_path(const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar() || node.Scalar().empty()) fail(node.Mark(), path, "expected the path of a shared library");
  std::string absolute = (std::filesystem::path(folder()) / node.Scalar()).lexically_normal().string();
  try {
    kernels::load_plugin(absolute);
  } catch (const kernels::PluginError& e) {
    fail(node.Mark(), path, e.what());
  }
  if (std::find(plugins_.begin(), plugins_.end(), absolute) == plugins_.end()) plugins_.push_back(absolute);
  return absolute;
}

const kernels::KernelSpec& SweepParser::parse_plugin_kernel(const YAML::Node& node, const std::string& path,
                                               const std::string& plugin) const {
  if (!node.IsScalar()) fail(node.Mark(), path, "expected a kernel name");
  const auto& loaded = kernels::load_plugin(plugin);
  if (const auto* spec = loaded.find(node.Scalar())) return *spec;
  std::vector<std::string> names;
  for (const auto& spec : loaded.specs()) names.push_back(spec.name);
  fail(node.Mark(), path,
       "plugin " + std::filesystem::path(plugin).filename().string() + " has no kernel \"" + node.Scalar() +
           "\"" + suggestion(node.Scalar(), names));
}

// The program and its arguments. A program named with a '/' is relative to the sweep's folder;
// one without is looked up in PATH, now, so a typo stops the run before it starts.
std::vector<std::string> SweepParser::parse_command(const YAML::Node& node, const std::string& path) const {
  if (!node.IsSequence() || node.size() == 0)
    fail(node.Mark(), path, "expected a list: the program and its arguments, e.g. [python3, bench.py]");
  std::vector<std::string> argv;
  for (std::size_t i = 0; i < node.size(); ++i) {
    if (!node[i].IsScalar()) fail(node[i].Mark(), path + "[" + std::to_string(i) + "]", "expected a string");
    argv.push_back(node[i].Scalar());
  }
  namespace fs = std::filesystem;
  const std::string program_path = path + "[0]";
  if (argv[0].find('/') != std::string::npos) {
    argv[0] = (fs::path(folder()) / argv[0]).lexically_normal().string();
    std::error_code ec;
    if (!fs::is_regular_file(argv[0], ec)) fail(node[0].Mark(), program_path, argv[0] + ": no such file");
  } else {
    bool found = false;
    const char* env_path = std::getenv("PATH");
    std::stringstream dirs(env_path ? env_path : "");
    for (std::string dir; !found && std::getline(dirs, dir, ':');) {
      std::error_code ec;
      found = !dir.empty() && fs::is_regular_file(fs::path(dir) / argv[0], ec);
    }
    if (!found) fail(node[0].Mark(), program_path, "program \"" + argv[0] + "\" is not in PATH");
  }
  return argv;
}


void SweepParser::parse_python(const Entry& entry, Kind& kind) const {
  const std::string& path = entry.path;
  const YAML::Node& python = *entry.python;
  if (!python.IsScalar()) fail(python.Mark(), path + ".python", "expected a .py file or a module name");
  if (const auto problem = resolve_python_module(python.Scalar(), folder(), kind.python_module); !problem.empty())
    fail(python.Mark(), path + ".python", problem);
  if (!entry.function) fail(entry.node.Mark(), path + ".function", "missing: the set-up function to call in the module");
  if (!entry.function->IsScalar() || !is_python_identifier(entry.function->Scalar()))
    fail(entry.function->Mark(), path + ".function", "expected the name of a function (a Python identifier)");
  kind.python_function = entry.function->Scalar();
  parse_device(entry, kind);
}

void SweepParser::parse_pytest(const Entry& entry, Kind& kind) const {
  const std::string& path = entry.path;
  kind.pytest_file = parse_file(*entry.pytest, path + ".pytest", "a test file");
  if (entry.select) {
    if (!entry.select->IsScalar() || entry.select->Scalar().empty())
      fail(entry.select->Mark(), path + ".select", "expected a pytest -k expression");
    kind.pytest_select = entry.select->Scalar();
  }
  if (entry.timing) {
    const std::string timing = entry.timing->IsScalar() ? entry.timing->Scalar() : "";
    if (timing != "auto" && timing != "fixture" && timing != "do_bench")
      fail(entry.timing->Mark(), path + ".timing",
           "expected auto, fixture or do_bench (how the file's tests time: docs/python.md)");
    kind.pytest_timing = timing;
  }
  kind.pytest_args = parse_args(entry, "pytest arguments");
  parse_device(entry, kind);
}

void SweepParser::parse_script(const Entry& entry, Kind& kind) const {
  kind.pytest_file = parse_file(*entry.script, entry.path + ".script", "a script");
  kind.pytest_timing = "script";
  kind.pytest_args = parse_args(entry, "the script's arguments");
  parse_device(entry, kind);
}

std::string SweepParser::parse_file(const YAML::Node& file, const std::string& key, const std::string& what) const {
  if (!file.IsScalar() || file.Scalar().empty()) fail(file.Mark(), key, "expected the path of " + what);
  const std::string absolute = (std::filesystem::path(folder()) / file.Scalar()).lexically_normal().string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(absolute, ec)) fail(file.Mark(), key, absolute + ": no such file");
  return absolute;
}

void SweepParser::parse_device(const Entry& entry, Kind& kind) const {
  if (!entry.device) return;
  const std::string device = entry.device->IsScalar() ? entry.device->Scalar() : "";
  if (device != "cpu" && device != "cuda") fail(entry.device->Mark(), entry.path + ".device", "must be cpu or cuda");
  kind.python_backend = device == "cpu" ? kernels::Backend::cpu : kernels::Backend::cuda;
}

std::vector<std::string> SweepParser::parse_args(const Entry& entry, const std::string& what) const {
  std::vector<std::string> args;
  if (!entry.args) return args;
  if (!entry.args->IsSequence()) fail(entry.args->Mark(), entry.path + ".args", "expected a list of " + what);
  for (std::size_t i = 0; i < entry.args->size(); ++i) {
    if (!(*entry.args)[i].IsScalar())
      fail((*entry.args)[i].Mark(), entry.path + ".args[" + std::to_string(i) + "]", "expected a string");
    args.push_back((*entry.args)[i].Scalar());
  }
  return args;
}

// A command's or a Python benchmark's axes are free-form: each axis takes the type its values
// have in the file (integers and numbers together make a number axis), without bounds or
// defaults. A command's axis names an environment variable, a Python benchmark's is a keyword
// argument.
const kernels::KernelSpec& SweepParser::free_form_spec(const Entry& entry, const std::string& family) {
  const std::string& path = entry.path;
  const bool python = family == "python";
  const auto& name_node = entry.name;
  if (!name_node && !python)
    fail(entry.node.Mark(), path + ".name", "missing: a " + family + " benchmark needs a name for its ids");
  if (name_node && (!name_node->IsScalar() || !plain_name(name_node->Scalar(), true)))
    fail(name_node->Mark(), path + ".name", "expected a name of letters, digits, '_', '.' and '-'");
  const YAML::Node& named_by = name_node ? *name_node : *entry.function;
  kernels::KernelSpec spec;
  spec.name = named_by.Scalar();
  if (kernels::find_kernel(spec.name))
    fail(named_by.Mark(), path + ".name",
         "\"" + spec.name + "\" is a built-in kernel's name" + (python ? "; give the benchmark a name" : ""));
  spec.family = family;
  std::unordered_set<std::string> typed;  // axes whose type a value has set
  auto infer = [&](const YAML::Node& key, const YAML::Node& value, const std::string& field) {
    if (python) {
      if (const auto problem = python_axis_name_problem(key.Scalar()); !problem.empty()) fail(key.Mark(), field, problem);
    } else if (!plain_name(key.Scalar(), false)) {
      fail(key.Mark(), field, "a command's axis name is letters, digits and '_' (it names an environment variable)");
    }
    auto found = std::find_if(spec.axes.begin(), spec.axes.end(),
                              [&](const kernels::AxisSpec& a) { return a.name == key.Scalar(); });
    kernels::AxisSpec* axis = found != spec.axes.end() ? &*found : nullptr;
    if (!axis) {
      axis = &spec.axes.emplace_back();
      axis->name = key.Scalar();
      axis->min = std::numeric_limits<double>::lowest();
      axis->max = std::numeric_limits<double>::max();
    }
    std::vector<YAML::Node> items;
    if (value.IsSequence())
      for (std::size_t j = 0; j < value.size(); ++j) items.push_back(value[j]);
    else
      items.push_back(value);
    for (const auto& item : items) {
      if (!item.IsScalar()) continue;  // reported by the axis parser
      const json v = scalar_value(item);
      const kernels::AxisType type = v.is_boolean()          ? kernels::AxisType::boolean
                                     : v.is_number_integer() ? kernels::AxisType::integer
                                     : v.is_number()         ? kernels::AxisType::number
                                                             : kernels::AxisType::string;
      const bool untyped = typed.insert(axis->name).second;
      const bool numeric = type == kernels::AxisType::integer || type == kernels::AxisType::number;
      const bool axis_numeric = axis->type == kernels::AxisType::integer || axis->type == kernels::AxisType::number;
      if (untyped) {
        axis->type = type;
      } else if (numeric && axis_numeric) {
        if (type != axis->type) axis->type = kernels::AxisType::number;
      } else if (type != axis->type) {
        fail(item.Mark(), field,
             "expected " + kernels::to_string(axis->type) + " values like the axis's others, got " + v.dump());
      }
    }
  };
  if (entry.axes && entry.axes->IsMap())
    for (const auto& [key, value] : entries(*entry.axes, path + ".axes"))
      infer(key, value, path + ".axes." + key.Scalar());
  if (entry.cases && entry.cases->IsSequence())
    for (std::size_t c = 0; c < entry.cases->size(); ++c)
      if ((*entry.cases)[c].IsMap())
        for (const auto& [key, value] : entries((*entry.cases)[c], path + ".cases"))
          infer(key, value, path + ".cases[" + std::to_string(c) + "]." + key.Scalar());
  free_form_specs_.push_back(std::move(spec));
  return free_form_specs_.back();
}

}  // namespace isobench::orchestrator::sweep_detail
