#pragma once
// How numbers read in printed output, shared by every printer (orchestrator/printers/) and by
// whatever else words a number for people (compare's notes, calibration's report, bisect's
// log): times with their unit, ratios, intervals, p-values, CSV fields. A leaf: it includes
// nothing of the orchestrator's, so every room may use it.

#include <string>

#include <nlohmann/json.hpp>

#include "stats/brunner_munzel.hpp"
#include "stats/hodges_lehmann.hpp"

namespace isobench::orchestrator {

std::string format(const char* printf_spec, double v);
std::string format_time(double seconds);  // 1.234e-5 -> "12.34 us"
std::string format_ratio(double r);       // "1.0523", "inf"
std::string format_interval(const stats::HodgesLehmannRatio& hl);  // "[1.0410, 1.0637]"
std::string format_p(double p);           // "0.000155"
// A test's p-value as far as it was resolved: exact ones as format_p; a Monte Carlo one that
// its draws put below every level it was compared with as "< 4.3e-05" (the upper end of its
// interval), otherwise its estimate with the interval, "0.5 [0.15, 0.85]".
std::string format_p(const stats::BrunnerMunzelResult& test);
// Holm's adjustment of such a p: of the interval's upper end, so a bound, "< 4.3e-05", where the
// p-value is Monte Carlo.
std::string format_p_adjusted(const stats::BrunnerMunzelResult& test, double p_adjusted);
std::string format_percent(double fraction);  // 0.0123 -> "1.23%"
std::string csv_field(const std::string& s);  // quoted when it holds a comma, quote or newline
nlohmann::json finite_or_null(double v);

}  // namespace isobench::orchestrator
