#include "orchestrator/commands/report_command.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "orchestrator/compare/compare_inputs.hpp"
#include "orchestrator/commands/history_command.hpp"
#include "orchestrator/history/sqlite_database.hpp"

namespace isobench::orchestrator {

int run_report(const report::ReportInputs& inputs, const std::string& out_dir, std::ostream& out, std::ostream& err) {
  return exit_code_of("report", err, [&] {
    report::write_report(inputs, out_dir, err);
    out << "report: " << out_dir << "/index.html\n";
    return exit_ok;
  });
}

void register_report_command(CLI::App& app, int& exit_code) {
  auto inputs = std::make_shared<report::ReportInputs>();
  auto out_dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Write a static HTML report (DIR/index.html; no server, no network to view it): the history's series per "
      "instance and machine with every sample and the change points marked, A/B runs' verdicts with their "
      "Hodges-Lehmann intervals, calibration charts, environments. See docs/history.md");
  cmd->add_option("--out", *out_dir, "the folder to write index.html into")->required();
  cmd->add_option("--history", inputs->history, "a history file (orchestrate history) whose series to show")
      ->type_name("FILE");
  cmd->add_option("dirs", inputs->dirs, "run directories (A/B runs get their verdict table) and calibration folders")
      ->type_name("RUN...");
  add_change_options(*cmd, inputs->changes);
  cmd->callback([inputs, out_dir, &exit_code] { exit_code = run_report(*inputs, *out_dir, std::cout, std::cerr); });
}

}  // namespace isobench::orchestrator
