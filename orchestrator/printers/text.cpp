#include "orchestrator/printers/text.hpp"

#include <cmath>
#include <cstdio>

namespace isobench::orchestrator {

std::string format(const char* printf_spec, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, printf_spec, v);
  return buffer;
}

std::string format_time(double seconds) {
  const double magnitude = std::abs(seconds);
  if (magnitude >= 1) return format("%#.4g s", seconds);
  if (magnitude >= 1e-3) return format("%#.4g ms", seconds * 1e3);
  if (magnitude >= 1e-6) return format("%#.4g us", seconds * 1e6);
  return format("%#.4g ns", seconds * 1e9);
}

std::string format_ratio(double r) { return std::isfinite(r) ? format("%.4f", r) : "inf"; }

std::string format_interval(const stats::HodgesLehmannRatio& hl) {
  return "[" + format_ratio(hl.lo) + ", " + format_ratio(hl.hi) + "]";
}

std::string format_p(double p) { return format("%.3g", p); }

std::string format_percent(double fraction) { return format("%.2f%%", fraction * 100); }

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char ch : s) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace isobench::orchestrator
