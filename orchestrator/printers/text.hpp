#pragma once
// How numbers read in printed output, shared by every printer: times with their unit, ratios,
// intervals, p-values, CSV fields.

#include <string>

#include <nlohmann/json.hpp>

#include "stats/hodges_lehmann.hpp"

namespace isobench::orchestrator {

std::string format(const char* printf_spec, double v);
std::string format_time(double seconds);  // 1.234e-5 -> "12.34 us"
std::string format_ratio(double r);       // "1.0523", "inf"
std::string format_interval(const stats::HodgesLehmannRatio& hl);  // "[1.0410, 1.0637]"
std::string format_p(double p);           // "0.000155"
std::string format_percent(double fraction);  // 0.0123 -> "1.23%"
std::string csv_field(const std::string& s);  // quoted when it holds a comma, quote or newline
nlohmann::json finite_or_null(double v);

}  // namespace isobench::orchestrator
