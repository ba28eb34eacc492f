#include "kernels_command.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "kernels/catalog.hpp"
#include "kernels/plugin_loader.hpp"
#include "orchestrator/errors.hpp"

namespace isobench::orchestrator {

namespace {

namespace fs = std::filesystem;

struct Entry {
  const kernels::KernelSpec* spec = nullptr;
  std::string plugin;  // the library's absolute path; empty for a built-in kernel
};

nlohmann::json axis_json(const kernels::AxisSpec& axis) {
  nlohmann::json j = {{"name", axis.name},
                      {"type", kernels::to_string(axis.type)},
                      {"help", axis.help},
                      {"default", axis.default_value ? *axis.default_value : nlohmann::json(nullptr)},
                      {"required", !axis.default_value}};
  if (axis.type == kernels::AxisType::integer || axis.type == kernels::AxisType::number) {
    // An integer axis's bounds are integers (they are whole numbers below 2^63).
    auto bound = [&](double v) {
      return axis.type == kernels::AxisType::integer ? nlohmann::json(static_cast<long long>(v)) : nlohmann::json(v);
    };
    j["min"] = kernels::has_min(axis) ? bound(axis.min) : nlohmann::json(nullptr);  // null: unbounded
    j["max"] = kernels::has_max(axis) ? bound(axis.max) : nlohmann::json(nullptr);
  }
  if (axis.type == kernels::AxisType::string) j["choices"] = axis.choices;  // empty: any string
  return j;
}

nlohmann::json catalog_json(const std::vector<Entry>& entries) {
  auto list = nlohmann::json::array();
  for (const auto& e : entries) {
    auto axes = nlohmann::json::array();
    for (const auto& a : e.spec->axes) axes.push_back(axis_json(a));
    list.push_back({{"name", e.spec->name},
                    {"family", e.spec->family},
                    {"backend", kernels::to_string(e.spec->backend)},
                    {"description", e.spec->description},
                    {"plugin", e.plugin.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.plugin)},
                    {"axes", axes}});
  }
  return {{"schema_version", kKernelsSchemaVersion}, {"kernels", list}};
}

// A kernel per block: its name, backend and family (and plugin), its description, then one
// aligned row per axis: name, type, default, the values it takes, help.
void print_catalog(const std::vector<Entry>& entries, std::ostream& out) {
  for (const auto& e : entries) {
    const auto& spec = *e.spec;
    out << spec.name << "  (" << kernels::to_string(spec.backend) << ", family " << spec.family
        << (e.plugin.empty() ? "" : ", plugin " + e.plugin) << ")\n";
    if (!spec.description.empty()) out << "  " << spec.description << "\n";
    std::vector<std::array<std::string, 5>> rows;
    for (const auto& a : spec.axes) {
      std::string def = "required";
      if (a.default_value) def = a.default_value->is_string() ? a.default_value->get<std::string>() : a.default_value->dump();
      rows.push_back({a.name, kernels::to_string(a.type), def, kernels::axis_domain(a), a.help});
    }
    std::array<std::size_t, 4> width{};
    for (const auto& r : rows)
      for (std::size_t c = 0; c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
    for (const auto& r : rows) {
      out << "    ";
      for (std::size_t c = 0; c < width.size(); ++c) out << r[c] << std::string(width[c] - r[c].size() + 2, ' ');
      out << r[4] << "\n";
    }
    if (rows.empty()) out << "    (no axes)\n";
    out << "\n";
  }
  out << entries.size() << " kernels; a sweep names one under `kernel:` and gives its axes under `axes:` "
      << "(docs/sweep-format.md)\n";
}

}  // namespace

int run_kernels(const KernelsOptions& options, std::ostream& out, std::ostream& err) {
  return exit_code_of("orchestrate kernels", err, [&] {
    std::vector<Entry> entries;
    for (const auto& spec : kernels::builtin_catalog()) entries.push_back({&spec, {}});
    for (const auto& library : options.plugins) {
      const std::string path = fs::absolute(library).lexically_normal().string();
      try {
        for (const auto& spec : kernels::load_plugin(path).specs()) entries.push_back({&spec, path});
      } catch (const kernels::PluginError& e) {
        throw UsageError("--plugin " + library + ": " + e.what());
      }
    }
    if (options.json)
      out << catalog_json(entries).dump(2) << "\n";
    else
      print_catalog(entries, out);
    return exit_ok;
  });
}

void register_kernels_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<KernelsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "kernels",
      "List every kernel a sweep can name, with its backend, family and axes (type, default, bounds or "
      "choices, help); plugins' kernels too with --plugin. Exit code 0: listed; 2: a plugin that does not load "
      "(one line naming it).");
  cmd->add_option("--plugin", options->plugins, "a plugin library whose kernels to list too; repeatable")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_flag("--json", options->json, "print JSON (schema_version, kernels: name, family, backend, axes...)");
  cmd->callback([options, &exit_code] { exit_code = run_kernels(*options, std::cout, std::cerr); });
}

}  // namespace isobench::orchestrator
