#pragma once

// `orchestrate report --out DIR [--history FILE] [RUN...]`: a static HTML page (DIR/index.html)
// of the history's series with their change points, A/B runs' verdicts, calibration charts and
// environments (orchestrator/report/html_report.hpp).
//
// Exit codes: 0 written, 2 bad input (one line naming the input; nothing written).

#include <iosfwd>

#include "orchestrator/report/html_report.hpp"

namespace CLI {
class App;
}

namespace isobench::orchestrator {

int run_report(const report::ReportInputs& inputs, const std::string& out_dir, std::ostream& out, std::ostream& err);

// Adds the `report` subcommand; its callback stores run_report's result in exit_code.
void register_report_command(CLI::App& app, int& exit_code);

}  // namespace isobench::orchestrator
