// One entry of `benchmarks:` expanded into instances: what it measures (benchmark_kinds.cpp), its
// settings over the file's, its axes (each a list, the first slowest), its cases (whole
// combinations of further axes), its exclusions, and the product axes x cases.

#include <algorithm>
#include <cstdio>
#include <unordered_set>

#include "orchestrator/interrupt.hpp"
#include "orchestrator/sweep/pytest_collection.hpp"
#include "orchestrator/sweep/sweep_parser.hpp"

namespace isobench::orchestrator::sweep_detail {

namespace {

std::size_t axis_index(const kernels::KernelSpec& spec, const kernels::AxisSpec& axis) {
  return static_cast<std::size_t>(&axis - spec.axes.data());
}

bool excluded(const kernels::Params& params, const std::vector<std::pair<std::string, std::vector<json>>>& match) {
  for (const auto& [axis, values] : match)
    if (std::find(values.begin(), values.end(), params.at(axis)) == values.end()) return false;
  return true;
}

}  // namespace

void SweepParser::expand_benchmark(const YAML::Node& node, std::size_t index, std::vector<Instance>& instances) {
  const Entry entry = read_entry(node, index);
  const Kind kind = resolve_kind(entry);
  const MeasureSettings measure = entry_settings(entry);
  if (!kind.pytest_file.empty()) return produce_pytest(entry, kind, measure, instances);
  const Axes axes = parse_axes(entry, *kind.spec);
  const auto cases = parse_cases(entry, *kind.spec, axes.given);
  const auto exclusions = parse_exclusions(entry, *kind.spec);
  produce(entry, kind, measure, axes, cases, exclusions, instances);
}

SweepParser::Entry SweepParser::read_entry(const YAML::Node& node, std::size_t index) const {
  Entry e;
  e.node = node;
  e.index = index;
  e.path = "benchmarks[" + std::to_string(index) + "]";
  if (!node.IsMap()) fail(node.Mark(), e.path, "expected a mapping with a kernel and its axes");
  for (const auto& [key, value] : entries(node, e.path)) {
    const std::string& k = key.Scalar();
    std::optional<YAML::Node>* field = k == "kernel"     ? &e.kernel
                                       : k == "axes"     ? &e.axes
                                       : k == "cases"    ? &e.cases
                                       : k == "exclude"  ? &e.exclude
                                       : k == "settings" ? &e.settings
                                       : k == "plugin"   ? &e.plugin
                                       : k == "command"  ? &e.command
                                       : k == "name"     ? &e.name
                                       : k == "python"   ? &e.python
                                       : k == "function" ? &e.function
                                       : k == "device"   ? &e.device
                                       : k == "pytest"   ? &e.pytest
                                       : k == "select"   ? &e.select
                                       : k == "args"     ? &e.args
                                       : k == "timing"   ? &e.timing
                                       : k == "script"   ? &e.script
                                                         : nullptr;
    if (!field)
      fail(key.Mark(), e.path + "." + k,
           "unknown key" + suggestion(k, {"kernel", "plugin", "command", "python", "function", "device", "name",
                                          "axes", "cases", "exclude", "settings", "pytest", "select", "args", "timing",
                                          "script"}));
    *field = value;
  }
  return e;
}

// Measurement settings: the file's, this benchmark's, then the command line's.
MeasureSettings SweepParser::entry_settings(const Entry& entry) const {
  RunSettings unused_run;
  MeasureSettings measure = file_measure_;
  if (entry.settings) parse_settings(*entry.settings, entry.path + ".settings", unused_run, measure, true);
  for (const auto& [setting, value] : overrides_)
    if (setting->scope == ipc::SettingScope::measure) ipc::apply_setting(*setting, value, unused_run, measure);
  ipc::finalize(measure);
  if (entry.command && measure.realloc) {
    // A command sample is a fresh program run already; there is no instance to set up again.
    // Point at this benchmark's own realloc when it has one, else at the command.
    std::optional<YAML::Node> own;
    if (entry.settings && entry.settings->IsMap())
      for (const auto& [key, value] : entries(*entry.settings, entry.path + ".settings"))
        if (key.Scalar() == "realloc") own = key;
    const bool from_command_line =
        std::any_of(overrides_.begin(), overrides_.end(), [](const auto& o) { return o.first->name == "realloc"; });
    // No hint when the command line set it: --realloc was typed there, and a calibrate variant
    // names itself in front of this message.
    fail(own ? own->Mark() : entry.command->Mark(), own ? entry.path + ".settings.realloc" : entry.path + ".command",
         std::string("realloc does not apply to a command benchmark (each sample is a fresh run of the program)") +
             (from_command_line ? ""
              : own             ? "; remove it here"
                                : "; set realloc: false in this benchmark's settings"));
  }
  return measure;
}

SweepParser::Axes SweepParser::parse_axes(const Entry& entry, const kernels::KernelSpec& spec) const {
  Axes axes;
  axes.given.assign(spec.axes.size(), false);
  if (!entry.axes || entry.axes->IsNull()) return axes;
  if (!entry.axes->IsMap()) fail(entry.axes->Mark(), entry.path + ".axes", "expected a mapping of axis values");
  for (const auto& [key, value] : entries(*entry.axes, entry.path + ".axes")) {
    const std::string field = entry.path + ".axes." + key.Scalar();
    const auto& axis = parse_axis_name(spec, key, field);
    axes.order.push_back(axis_index(spec, axis));
    axes.values.push_back(parse_axis_values(axis, value, field));
    axes.given[axes.order.back()] = true;
  }
  return axes;
}

std::vector<SweepParser::Combination> SweepParser::parse_cases(const Entry& entry, const kernels::KernelSpec& spec,
                                                               const std::vector<bool>& given) const {
  std::vector<Combination> cases;
  if (!entry.cases) {
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
      if (!given[a] && !spec.axes[a].default_value)
        fail(entry.node.Mark(), entry.path + ".axes",
             "axis \"" + spec.axes[a].name + "\" has no default; give it in axes or in cases");
    cases.emplace_back();
    return cases;
  }
  const std::string cases_path = entry.path + ".cases";
  if (!entry.cases->IsSequence()) fail(entry.cases->Mark(), cases_path, "expected a list of mappings");
  if (entry.cases->size() == 0) fail(entry.cases->Mark(), cases_path, "empty list: the product would be empty");
  for (std::size_t c = 0; c < entry.cases->size(); ++c) {
    const YAML::Node item = (*entry.cases)[c];
    const std::string case_path = cases_path + "[" + std::to_string(c) + "]";
    if (!item.IsMap()) fail(item.Mark(), case_path, "expected a mapping of axis values");
    Combination combination;
    std::vector<bool> in_case(spec.axes.size(), false);
    for (const auto& [key, value] : entries(item, case_path)) {
      const std::string field = case_path + "." + key.Scalar();
      const auto& axis = parse_axis_name(spec, key, field);
      const std::size_t a = axis_index(spec, axis);
      if (given[a]) fail(key.Mark(), field, "also given in axes; give each axis in one place");
      combination.values.emplace_back(a, parse_axis_scalar(axis, value, field));
      in_case[a] = true;
    }
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
      if (!given[a] && !in_case[a] && !spec.axes[a].default_value)
        fail(item.Mark(), case_path,
             "axis \"" + spec.axes[a].name + "\" has no default; give it in this case or in axes");
    cases.push_back(std::move(combination));
  }
  return cases;
}

// Each a mapping of axis -> value or list of values, validated like the axes.
std::vector<SweepParser::Exclusion> SweepParser::parse_exclusions(const Entry& entry,
                                                                  const kernels::KernelSpec& spec) const {
  std::vector<Exclusion> exclusions;
  if (!entry.exclude) return exclusions;
  const std::string exclude_path = entry.path + ".exclude";
  if (!entry.exclude->IsSequence()) fail(entry.exclude->Mark(), exclude_path, "expected a list of mappings");
  for (std::size_t e = 0; e < entry.exclude->size(); ++e) {
    const YAML::Node item = (*entry.exclude)[e];
    const std::string item_path = exclude_path + "[" + std::to_string(e) + "]";
    if (!item.IsMap() || item.size() == 0) fail(item.Mark(), item_path, "expected a non-empty mapping of axis values");
    Exclusion exclusion;
    for (const auto& [key, value] : entries(item, item_path)) {
      const std::string field = item_path + "." + key.Scalar();
      const auto& axis = parse_axis_name(spec, key, field);
      exclusion.match.emplace_back(axis.name, parse_axis_values(axis, value, field));
    }
    exclusions.push_back(std::move(exclusion));
  }
  return exclusions;
}

// The product axes x cases, with an odometer over the axes (last entry fastest).
void SweepParser::produce(const Entry& entry, const Kind& kind, const MeasureSettings& measure, const Axes& axes,
                          const std::vector<Combination>& cases, const std::vector<Exclusion>& exclusions,
                          std::vector<Instance>& instances) {
  const kernels::KernelSpec& spec = *kind.spec;
  // The product's size is known before anything is built: refuse a sweep past the limit
  // (kMaxSweepInstances, orchestrator/sweep.hpp) now.
  double product = static_cast<double>(cases.size());
  for (const auto& v : axes.values) product *= static_cast<double>(v.size());
  if (product + static_cast<double>(instances.size()) > static_cast<double>(kMaxSweepInstances))
    fail(entry.node.Mark(), entry.path,
         "expands to " + std::to_string(static_cast<unsigned long long>(product)) + " instances, and the sweep " +
             "to more than the " + std::to_string(kMaxSweepInstances) + " one sweep may hold; split it into several sweeps");
  // Defaults are spelled like written values (1.0 on a number axis is 1), so an id does not
  // depend on whether a value was written out or defaulted.
  std::vector<json> defaults(spec.axes.size());
  for (std::size_t a = 0; a < spec.axes.size(); ++a)
    if (spec.axes[a].default_value) defaults[a] = normalize_number(*spec.axes[a].default_value);

  std::vector<std::size_t> odometer(axes.values.size(), 0);
  const std::size_t first_new = instances.size();
  std::size_t produced = 0;
  for (bool more = true; more;) {
    for (const auto& combination : cases) {
      std::vector<const json*> chosen(spec.axes.size(), nullptr);
      for (std::size_t e = 0; e < axes.order.size(); ++e) chosen[axes.order[e]] = &axes.values[e][odometer[e]];
      for (const auto& [a, value] : combination.values) chosen[a] = &value;
      kernels::Params params = json::object();
      for (std::size_t a = 0; a < spec.axes.size(); ++a)
        params[spec.axes[a].name] = chosen[a] ? *chosen[a] : defaults[a];
      // Ctrl-C works while a large sweep is expanded (100,000 instances take seconds).
      if (++produced % 4096 == 0 && interrupt_requested())
        throw Interrupted("interrupted while reading " + file_ + "; nothing was measured");
      if (std::any_of(exclusions.begin(), exclusions.end(),
                      [&](const Exclusion& x) { return excluded(params, x.match); }))
        continue;

      Instance instance;
      instance.id = kernels::instance_id(spec, params);
      instance.kernel = spec.name;
      instance.family = spec.family;
      instance.backend = spec.backend;
      instance.measure = measure;
      instance.device_bytes =
          spec.device_bytes ? spec.device_bytes(params) * static_cast<std::uint64_t>(measure.rotate_buffers) : 0;
      instance.params = std::move(params);
      instance.benchmark_index = entry.index;
      instance.plugin = kind.plugin;
      instance.command = kind.command;
      if (!kind.command.empty()) {
        instance.family = "command";
        instance.command_dir = folder();
      }
      if (!kind.python_module.empty()) {
        instance.backend = kind.python_backend;
        instance.python_module = kind.python_module;
        instance.python_function = kind.python_function;
      }
      claim_id(entry, instance.id, "two cases give the same values");
      instances.push_back(std::move(instance));
    }
    more = false;
    for (std::size_t e = odometer.size(); e-- > 0;) {
      if (++odometer[e] < axes.values[e].size()) {
        more = true;
        break;
      }
      odometer[e] = 0;
    }
  }
  if (instances.size() == first_new)
    fail(entry.exclude ? entry.exclude->Mark() : entry.node.Mark(), entry.path + ".exclude",
         "excludes all " + std::to_string(produced) + " instances of this benchmark");
}

const kernels::AxisSpec& SweepParser::parse_axis_name(const kernels::KernelSpec& spec, const YAML::Node& key,
                                                      const std::string& path) const {
  if (const auto* axis = spec.find_axis(key.Scalar())) return *axis;
  std::vector<std::string> names;
  for (const auto& a : spec.axes) names.push_back(a.name);
  fail(key.Mark(), path, "unknown axis for kernel " + spec.name + suggestion(key.Scalar(), names));
}

json SweepParser::parse_axis_scalar(const kernels::AxisSpec& axis, const YAML::Node& node,
                                    const std::string& path) const {
  if (!node.IsScalar()) fail(node.Mark(), path, "expected a value");
  json value = axis_value(axis, node);
  if (auto problem = kernels::check_value(axis, value); !problem.empty()) fail(node.Mark(), path, problem);
  return value;
}

std::vector<json> SweepParser::parse_axis_values(const kernels::AxisSpec& axis, const YAML::Node& node,
                                                 const std::string& path) const {
  if (node.IsScalar()) return {parse_axis_scalar(axis, node, path)};
  if (!node.IsSequence()) fail(node.Mark(), path, "expected a value or a list of values");
  if (node.size() == 0) fail(node.Mark(), path, "empty list: the product would be empty");
  std::vector<json> values;
  values.reserve(node.size());
  std::unordered_set<std::string> seen;  // dumped values: linear in long lists
  for (std::size_t j = 0; j < node.size(); ++j) {
    const YAML::Node item = node[j];
    const std::string item_path = path + "[" + std::to_string(j) + "]";
    json value = parse_axis_scalar(axis, item, item_path);
    if (!seen.insert(value.dump()).second) fail(item.Mark(), item_path, "value " + value.dump() + " is listed twice");
    values.push_back(std::move(value));
  }
  return values;
}

// A test of a do_bench suite: each timing call it made at collection is an instance, named
// TEST::CALL ("test_softmax::softmax/gems/float16/1024x1024"), its parameters the test's with the
// call's name as "call" (which the worker's set-up runs the test up to: isobench.do_bench). They
// are made one after another in call order, which the plan reads as the test's call chain.
void SweepParser::produce_timing_calls(const Entry& entry, const Kind& kind, const MeasureSettings& measure,
                                       const CollectedTest& test, std::vector<Instance>& instances) {
  for (const auto& call : test.calls) {
    const std::string name = call.at("name").get<std::string>();
    Instance instance;
    instance.id = test.test + "::" + name;
    instance.kernel = test.function;
    instance.family = "python";
    instance.backend = kind.python_backend;
    instance.measure = measure;
    // No realloc: the test owns its inputs, made by the test itself on its way to the call, and a
    // set-up again before each sample would run the test again up to the call, where the worker's
    // tasks take the test forward through its calls once (the plan's call_chains, isobench.do_bench).
    instance.measure.realloc = false;
    instance.params = test.params.is_object() ? test.params : nlohmann::json::object();
    instance.params["call"] = name;
    instance.benchmark_index = entry.index;
    instance.python_module = kind.pytest_file;
    instance.python_function = test.test;
    instance.pytest = {{"args", kind.pytest_args}, {"timing", "do_bench"}, {"import_in_worker", test.import_in_worker}};
    if (!test.node_id.empty()) instance.pytest["node_id"] = test.node_id;
    // A control (a FlagGems torch-operator call): what an A/B of the code under test leaves alone.
    if (call.value("control", false)) instance.pytest["control"] = true;
    // A benchmark script's run (isobench.script_bridge) rather than a pytest test.
    if (kind.pytest_timing == "script") instance.pytest["script"] = true;
    claim_id(entry, instance.id, "the test makes two timing calls named " + name);
    instances.push_back(std::move(instance));
  }
}

}  // namespace isobench::orchestrator::sweep_detail

namespace isobench::orchestrator::sweep_detail {

void SweepParser::claim_id(const Entry& entry, const std::string& id, const std::string& what) {
  const auto [it, inserted] = first_producer_.emplace(id, entry.index);
  if (inserted) return;
  if (it->second == entry.index) fail(entry.node.Mark(), entry.path, "instance " + id + " is produced twice (" + what + ")");
  fail(entry.node.Mark(), entry.path,
       "instance " + id + " is also produced by benchmarks[" + std::to_string(it->second) + "]");
}

// Each collected test that takes the benchmark fixture (or is marked benchmark, pytest-codspeed's
// style) is an instance named by its pytest id ("test_add", "test_getall[BeforeValidator]",
// "TestX::test_y[1]": what pytest -v names it, the same on both sides), its parametrization its
// parameters; the others, and the doctests --doctest-modules collects, are named in a note and
// left out, as a pytest-benchmark run would time nothing for them.
void SweepParser::produce_pytest(const Entry& entry, const Kind& kind, const MeasureSettings& measure,
                                 std::vector<Instance>& instances) {
  // A refusal of the file is pytest's line naming it; in a sweep the user wrote, placed in it.
  const auto refuse = [&](const std::string& problem) {
    if (options_.generated) throw SweepError(problem);
    const bool script = kind.pytest_timing == "script";
    fail((script ? entry.script : entry.pytest)->Mark(), entry.path + (script ? ".script" : ".pytest"), problem);
  };
  std::vector<CollectedTest> tests;
  try {
    tests = options_.collect_pytest
                ? options_.collect_pytest(name_, kind.pytest_file, kind.pytest_select, kind.pytest_args,
                                          kind.pytest_timing)
                : collect_pytest_tests(kind.pytest_file, kind.pytest_select, kind.pytest_args, "", {},
                                       kind.pytest_timing);
  } catch (const std::runtime_error& e) {
    refuse(e.what());
  }
  std::vector<std::string> without, doctests, skipped;
  std::size_t produced = 0, timed_tests = 0;
  for (const auto& test : tests) {
    if (!test.skipped.empty()) {
      skipped.push_back(test.test + " (" + test.skipped + ")");
      continue;
    }
    if (!test.calls.empty()) {
      produce_timing_calls(entry, kind, measure, test, instances);
      produced += test.calls.size();
      ++timed_tests;
      continue;
    }
    if (!test.uses_benchmark) {
      (test.doctest ? doctests : without).push_back(test.test);
      continue;
    }
    Instance instance;
    instance.id = test.test;
    instance.kernel = test.function;
    instance.family = "python";
    instance.backend = kind.python_backend;
    instance.measure = measure;
    instance.params = test.params;
    instance.benchmark_index = entry.index;
    instance.python_module = kind.pytest_file;
    instance.python_function = test.test;
    instance.pytest = {{"args", kind.pytest_args}};
    if (!test.node_id.empty()) instance.pytest["node_id"] = test.node_id;
    claim_id(entry, instance.id, "pytest collects " + test.test + " twice");
    instances.push_back(std::move(instance));
    ++produced;
  }
  const auto note = [&](const std::vector<std::string>& names, const std::string& noun, const std::string& why) {
    if (names.empty()) return;
    std::string listed;
    for (const auto& name : names) listed += (listed.empty() ? "" : ", ") + name;
    notes_.push_back((options_.generated ? "" : file_ + ": " + entry.path + ": ") + std::to_string(names.size()) +
                     " " + noun + (names.size() == 1 ? "" : "s") + " of " + kind.pytest_file + why +
                     ", not measured: " + listed);
  };
  if (timed_tests > 0) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.2f", tests.front().import_seconds);
    notes_.push_back((options_.generated ? "" : file_ + ": " + entry.path + ": ") + kind.pytest_file +
                     " times through triton.testing.do_bench: " + std::to_string(produced) + " timing calls in " +
                     std::to_string(timed_tests) + " tests, each an instance" +
                     (tests.front().import_in_worker
                          ? std::string(" (importing it initialises CUDA, so the zygotes import it with CUDA "
                                        "deferred, or each worker does: ") + seconds + " s at collection)"
                          : std::string()));
    without.clear();  // tests that made no timing call: named by the note below as without one
    for (const auto& test : tests)
      if (test.calls.empty() && !test.doctest && test.skipped.empty()) without.push_back(test.test);
    note(without, "test", " that made no timing call");
    note(doctests, "doctest", "");
    note(skipped, "test", " that a skip or skipif mark skips here");
    return;
  }
  note(without, "test", " without the benchmark fixture or mark");
  note(doctests, "doctest", "");
  note(skipped, "test", " that a skip or skipif mark skips here");
  if (produced == 0)
    refuse(kind.pytest_file + ": no collected test takes the benchmark fixture or is marked benchmark (" +
           std::to_string(tests.size()) + " collected" +
           (kind.pytest_select.empty() ? "" : " with -k " + kind.pytest_select) +
           (skipped.empty() ? "" : ", " + std::to_string(skipped.size()) + " skipped by their marks") + ")");
}

}  // namespace isobench::orchestrator::sweep_detail
