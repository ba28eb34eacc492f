#pragma once
// Renders a calibration for people: report.md (tables and a plain-language reading) and three
// SVG charts (fpr.svg, power_delta.svg, power_n.svg). Every number shown is in calibration.json.

#include <string>
#include <vector>

#include "orchestrator/calibration/analysis.hpp"

namespace isobench::orchestrator::calibration {

struct ReportContext {
  std::string sweep_name;
  std::string device;
  std::size_t runs_per_mode = 0;
  std::vector<double> real_slowdowns;  // percent
};

std::string report_markdown(const CalibrationResult& result, const ReportContext& context);

// The FPR table alone (markdown), also printed on stdout at the end of `orchestrate calibrate`.
std::string fpr_table_markdown(const CalibrationResult& result);

std::string fpr_chart_svg(const CalibrationResult& result);
std::string power_delta_chart_svg(const CalibrationResult& result);
std::string power_n_chart_svg(const CalibrationResult& result);

// The smallest two-sided p-value Brunner-Munzel can give with n values per side (complete
// separation: 2 / C(2n, n)); an alpha below it can never be reached.
double smallest_p_value(std::size_t n);

}  // namespace isobench::orchestrator::calibration
