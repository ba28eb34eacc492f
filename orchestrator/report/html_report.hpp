#pragma once
// `orchestrate report`: one static HTML page (index.html) that needs no server and no network to
// be read: charts are inline SVG (orchestrator/printers/svg_chart), and a small inline script
// only filters the page. It shows, per instance and machine in the history, the series of runs
// with every sample as a point, the medians as a line and the change points marked; per A/B run
// given, compare's verdict table with its Hodges-Lehmann intervals; per calibration folder
// given, its charts; per run, its environment.

#include <iosfwd>
#include <string>
#include <vector>

#include "orchestrator/history/series_changes.hpp"

namespace isobench::orchestrator::report {

struct ReportInputs {
  std::string history;            // the history file; empty: none
  std::vector<std::string> dirs;  // run directories and calibration folders
  history::ChangeOptions changes;
};

// Writes DIR/index.html; throws UsageError (naming the input) or SqliteError on bad input,
// before anything is written.
void write_report(const ReportInputs& inputs, const std::string& out_dir, std::ostream& err);

}  // namespace isobench::orchestrator::report
