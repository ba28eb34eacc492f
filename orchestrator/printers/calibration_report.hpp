#pragma once
// A calibration's files for people, beside calibration.json (which holds every number shown):
// report.md (tables and a plain-language reading) and three SVG charts (fpr.svg,
// power_delta.svg, power_n.svg). What `orchestrate calibrate` prints on stdout is
// Printer::calibration (printer.hpp); all of it is rendered in calibration_printer.cpp.

#include <string>
#include <vector>

#include "orchestrator/calibration/analysis.hpp"

namespace isobench::orchestrator {

// What report.md says beside the result: the sweep, where it ran, K, the real slowdowns asked for.
struct CalibrationReportContext {
  std::string sweep_name;
  std::string device;
  std::size_t runs_per_mode = 0;
  std::vector<double> real_slowdowns;  // percent
};

std::string calibration_report_markdown(const calibration::CalibrationResult& result,
                                        const CalibrationReportContext& context);

// The FPR table alone (Markdown): report.md's first table, and the table calibrate prints.
std::string fpr_table_markdown(const calibration::CalibrationResult& result);

std::string fpr_chart_svg(const calibration::CalibrationResult& result);
std::string power_delta_chart_svg(const calibration::CalibrationResult& result);
std::string power_n_chart_svg(const calibration::CalibrationResult& result);

}  // namespace isobench::orchestrator
