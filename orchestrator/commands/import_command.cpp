#include "orchestrator/commands/import_command.hpp"

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "orchestrator/compare/compare_inputs.hpp"
#include "orchestrator/import/tool_readers.hpp"
#include "orchestrator/json_errors.hpp"

namespace isobench::orchestrator {

int run_import(const ImportOptions& options, std::ostream& out, std::ostream& err) {
  return exit_code_of("import", err, [&] {
    std::ifstream in(options.file, std::ios::binary);
    if (!in) throw UsageError(options.file + ": cannot read");
    std::ostringstream text;
    text << in.rdbuf();
    nlohmann::json root;
    try {
      root = nlohmann::json::parse(text.str());
    } catch (const nlohmann::json::exception& e) {
      throw UsageError(options.file + ": invalid JSON: " + json_error_text(e));
    }
    const std::string tool = options.format == "auto" ? import::detect_tool(root) : options.format;
    if (tool.empty())
      throw UsageError(options.file + ": not Google Benchmark, nvbench or pytest-benchmark JSON (a \"benchmarks\" "
                                      "array beside \"context\", \"devices\" or \"machine_info\"); --format names the tool");
    const import::ImportedRun run = tool == "google-benchmark" ? import::read_google_benchmark(options.file, root)
                                    : tool == "nvbench"        ? import::read_nvbench(options.file, root)
                                                               : import::read_pytest_benchmark(options.file, root);
    import::write_imported_run(run, options.out, options.command_line);
    std::size_t samples = 0, summaries = 0;
    for (const auto& inst : run.instances) {
      samples += inst.values.size();
      if (inst.summary_only) ++summaries;
    }
    for (const auto& note : run.notes) err << "import: note: " << note << "\n";
    out << options.out << ": " << run.instances.size() << " instances from " << tool << " (" << options.file << "), "
        << samples << " samples";
    if (summaries) out << "; " << summaries << " with a summary only (flagged \"summary\": not comparable sample by sample)";
    out << "\n";
    return exit_ok;
  });
}

void register_import_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ImportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "import",
      "Turn another tool's JSON results into a run directory that compare, history and report read: Google "
      "Benchmark (--benchmark_out_format=json; each repetition a sample), nvbench (--json, with --jsonbin for every "
      "sample) and pytest-benchmark (--benchmark-json, with --benchmark-save-data for every round). Where the file "
      "holds only summaries, the instance gets one value flagged \"summary\". Exit 2 on a malformed file");
  cmd->add_option("file", options->file, "the JSON file")->required();
  cmd->add_option("--out", options->out, "the run directory to write (must not exist, or be empty)")->required();
  cmd->add_option("--format", options->format, "the tool that wrote the file")
      ->check(CLI::IsMember({"auto", "google-benchmark", "nvbench", "pytest-benchmark"}))
      ->capture_default_str();
  cmd->callback([options, &exit_code, &app] {
    ImportOptions o = *options;
    o.command_line = {app.get_name(), "import", o.file, "--out", o.out};
    exit_code = run_import(o, std::cout, std::cerr);
  });
}

}  // namespace isobench::orchestrator
