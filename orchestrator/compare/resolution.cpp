#include "orchestrator/compare/resolution.hpp"

#include <algorithm>
#include <cmath>

#include "orchestrator/format/numbers.hpp"

namespace isobench::orchestrator {

std::string unresolved_note(const ComparisonReport& report) {
  const Comparison* widest = nullptr;
  double width = 0;  // of the widest interval, in log ratio
  for (const auto& c : report.compared) {
    if (c.verdict != stats::Verdict::uncertain) continue;
    const double w = c.hl.lo > 0 && std::isfinite(c.hl.hi) ? std::log(c.hl.hi / c.hl.lo) : INFINITY;
    if (!widest || w > width) widest = &c, width = w;
  }
  if (!widest) return {};
  const double floor = report.rule.threshold;
  std::string note = "where UNCERTAIN, this run cannot resolve a change of " + format_percent(floor) +
                     " (the noise floor, --threshold): intervals as wide as " + format_interval(widest->hl) + " (" +
                     widest->id + ")";
  const std::size_t n = std::min(widest->n_a, widest->n_b);
  const std::string at = " at " + std::to_string(n) + " samples per side";
  // An interval no wider than the floor tells a change of the floor's size from none.
  const double target = std::log1p(floor);
  if (!std::isfinite(width) || !(target > 0)) return note + at + "; more samples per side narrow it (--samples)";
  const double needed = std::ceil(static_cast<double>(n) * (width / target) * (width / target));
  return note + ", " + format("%.1f", 100 * (std::exp(width) - 1)) + "% of the ratio" + at + "; about " +
         format("%.0f", std::max(needed, static_cast<double>(n) + 1)) +
         " samples per side would narrow it to the floor (--samples N, or ab --until-verdict)";
}

}  // namespace isobench::orchestrator
