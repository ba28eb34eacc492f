#include "kernels_command.hpp"

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <memory>

#include "kernels/catalog.hpp"
#include "kernels/plugin_loader.hpp"
#include "orchestrator/errors.hpp"
#include "orchestrator/printers/printer.hpp"

namespace isobench::orchestrator {

namespace fs = std::filesystem;

int run_kernels(const KernelsOptions& options, std::ostream& out, std::ostream& err) {
  return exit_code_of("orchestrate kernels", err, [&] {
    std::vector<CatalogEntry> entries;
    for (const auto& spec : kernels::builtin_catalog()) entries.push_back({&spec, {}});
    for (const auto& library : options.plugins) {
      const std::string path = fs::absolute(library).lexically_normal().string();
      try {
        for (const auto& spec : kernels::load_plugin(path).specs()) entries.push_back({&spec, path});
      } catch (const kernels::PluginError& e) {
        throw UsageError("--plugin " + library + ": " + e.what());
      }
    }
    make_printer(options.json ? Format::json : Format::table)->kernel_catalog(out, entries);
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
