#include "orchestrator/format/numbers.hpp"

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
  // Appended rather than "[" + ...: GCC 12 warns (-Wrestrict) on a literal prepended to a
  // temporary string, a false positive of its inlined std::string code.
  std::string text = "[";
  text += format_ratio(hl.lo);
  text += ", ";
  text += format_ratio(hl.hi);
  return text += "]";
}

std::string format_p(double p) { return format("%.3g", p); }

std::string format_p(const stats::BrunnerMunzelResult& test) {
  if (test.method != stats::BrunnerMunzelMethod::monte_carlo_permutation) return format_p(test.p_value);
  if (test.extreme == 0 || test.p_lower < test.p_value / 10) return "< " + format("%.2g", test.p_value);
  return format("%.3g", test.extreme / test.labellings) + " [" + format("%.2g", test.p_lower) + ", " +
         format("%.2g", test.p_value) + "]";
}

std::string format_p_adjusted(const stats::BrunnerMunzelResult& test, double p_adjusted) {
  if (test.method != stats::BrunnerMunzelMethod::monte_carlo_permutation || p_adjusted >= 1) return format_p(p_adjusted);
  return "< " + format("%.2g", p_adjusted);
}

std::string format_percent(double fraction) { return format("%.2f%%", fraction * 100); }

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char ch : s) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace isobench::orchestrator
