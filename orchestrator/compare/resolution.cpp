#include "orchestrator/compare/resolution.hpp"

#include <algorithm>
#include <cmath>

#include <boost/math/distributions/normal.hpp>

#include "orchestrator/format/numbers.hpp"

namespace isobench::orchestrator {

namespace {

// The two-sided normal quantile of p: |z| with P(|Z| > z) = p.
double z_of(double p) {
  const boost::math::normal_distribution<double> normal;
  return boost::math::quantile(boost::math::complement(normal, std::clamp(p, 1e-300, 1.0) / 2));
}

// Two-sided p of complete separation at n per side, 2 / C(2n, n): no permutation test at n can
// give a smaller one.
double separation_p(std::size_t n) {
  return 2 * std::exp(std::lgamma(static_cast<double>(n) + 1) * 2 - std::lgamma(2 * static_cast<double>(n) + 1));
}

std::string per_side(double n) { return format("%.0f", n); }

// How to take more samples per side for an instance that only p keeps from a verdict: a
// sequential run already samples until a verdict, so only its cap can grow: the extension's
// (--extend-to), which such an instance went on to, where the run had one.
std::string how(const ComparisonReport& report, double n) {
  if (report.sequential && report.sequential->extension.from > 0) return "--extend-to " + per_side(n);
  if (report.sequential) return "--max-samples " + per_side(n);
  return "--samples " + per_side(n) + ", or ab --until-verdict";
}

// The raw two-sided level the instance's p must reach: Holm's level for its rank among the
// instances compared (alpha / (m - k), k the instances with a smaller p), or, sampled until a
// verdict, the level its last look spent.
double level_of(const ComparisonReport& report, const Comparison& c) {
  if (report.sequential && c.look) {
    const auto design = report.sequential->design();
    if (*c.look < design.looks.size() && design.looks[*c.look].alpha > 0) return design.looks[*c.look].alpha;
    return report.rule.alpha / static_cast<double>(std::max<std::size_t>(1, report.sequential->instances));
  }
  std::size_t smaller = 0;
  for (const auto& o : report.compared) smaller += o.bm.p_value < c.bm.p_value;
  return report.rule.alpha / static_cast<double>(report.compared.size() - smaller);
}

std::string width_note(const ComparisonReport& report, const Comparison& widest, double width) {
  const double floor = report.rule.threshold;
  std::string note = "where UNCERTAIN, this run cannot resolve a change of " + format_percent(floor) +
                     " (the noise floor, --threshold): intervals as wide as " + format_interval(widest.hl) + " (" +
                     widest.id + ")";
  const std::size_t n = std::min(widest.n_a, widest.n_b);
  const std::string at = " at " + std::to_string(n) + " samples per side";
  // An interval no wider than the floor tells a change of the floor's size from none.
  const double target = std::log1p(floor);
  if (!std::isfinite(width) || !(target > 0))
    return note + at + "; more samples per side narrow it (" +
           (report.sequential ? std::string("--max-samples") : std::string("--samples")) + ")";
  const double needed =
      std::max(std::ceil(static_cast<double>(n) * (width / target) * (width / target)), static_cast<double>(n) + 1);
  return note + ", " + format("%.1f", 100 * (std::exp(width) - 1)) + "% of the ratio" + at + "; about " +
         per_side(needed) + " samples per side would narrow it to the floor (" +
         (report.sequential ? "--max-samples N" : "--samples N, or ab --until-verdict") + ")";
}

// About how many samples per side would bring c's p below the level it must reach: the test's z
// grows about as sqrt(n) for a fixed effect, and the smooth asymptotic p says where it stands (a
// permutation p is resolved only near its levels; its upper end, which p_adjusted holds, is often
// clamped at 1). Infinite where p gives no z.
double samples_for_p(const ComparisonReport& report, const Comparison& c) {
  const std::size_t n = std::min(c.n_a, c.n_b);
  const double level = level_of(report, c);
  const double p =
      std::isfinite(c.bm.asymptotic_p_value) && c.bm.asymptotic_p_value > 0 ? c.bm.asymptotic_p_value : c.bm.p_value;
  const double z_now = z_of(p), z_target = z_of(level);
  const double needed =
      z_now > 0 ? std::ceil(static_cast<double>(n) * (z_target / z_now) * (z_target / z_now)) : INFINITY;
  std::size_t separable = n + 1;
  while (separation_p(separable) >= level && separable < 100000) ++separable;
  return std::max(needed, static_cast<double>(separable));
}

std::string p_note(const ComparisonReport& report, const Comparison& worst, double needed, std::size_t count) {
  const std::size_t n = std::min(worst.n_a, worst.n_b);
  const std::string across =
      report.sequential ? "p at the level its last look spent (alpha " + format("%g", report.rule.alpha) + " over " +
                              std::to_string(report.sequential->instances) + " instances and the looks)"
                        : "p after Holm across " + std::to_string(report.compared.size()) + " instances";
  std::string note = "where UNCERTAIN with the interval beyond the floor (" + std::to_string(count) +
                     (count == 1 ? " instance), " : " instances), ") + across + " is not below alpha " +
                     format("%g", report.rule.alpha) + ": " + format_p(worst.p_adjusted) + " for " + worst.id + " at " +
                     std::to_string(n) + " samples per side";
  if (!std::isfinite(needed)) return note + "; more samples per side would lower it (" + how(report, n + 1) + ")";
  return note + "; about " + per_side(needed) + " samples per side would bring it below (" + how(report, needed) + ")";
}

// The instances the futility rule stopped early: how many, where, and how to sample them on.
std::string futility_note(const ComparisonReport& report) {
  std::size_t count = 0, least = 0;
  for (const auto& c : report.compared)
    if (c.futile) {
      const std::size_t n = std::min(c.n_a, c.n_b);
      least = count++ == 0 ? n : std::min(least, n);
    }
  if (count == 0 || !report.sequential) return "";
  const std::size_t last = stats::last_ordinary_look_n(report.sequential->design());
  return std::to_string(count) + (count == 1 ? " instance" : " instances") + " stopped early (from " +
         std::to_string(least) + " per side): by " + (count == 1 ? "its interval" : "their intervals") +
         " so far, unlikely to settle inside or beyond the floor by " + std::to_string(last) +
         " per side (--futility 0 samples to the last look)";
}

}  // namespace

std::string unresolved_note(const ComparisonReport& report) {
  const Comparison* widest = nullptr;  // of the instances whose interval is too wide
  double width = 0;                    // its width, in log ratio
  const Comparison* worst = nullptr;   // of those only p keeps from a verdict: the one needing most samples
  double worst_needs = 0;              // its samples per side
  std::size_t p_short = 0;
  for (const auto& c : report.compared) {
    if (c.verdict != stats::Verdict::uncertain) continue;
    if (stats::clears_floor(c.hl.lo, c.hl.hi, report.rule.threshold)) {
      ++p_short;
      const double needs = samples_for_p(report, c);
      if (!worst || needs > worst_needs) worst = &c, worst_needs = needs;
      continue;
    }
    const double w = c.hl.lo > 0 && std::isfinite(c.hl.hi) ? std::log(c.hl.hi / c.hl.lo) : INFINITY;
    if (!widest || w > width) widest = &c, width = w;
  }
  std::string note;
  if (widest) note = width_note(report, *widest, width);
  if (const auto futile = futility_note(report); !futile.empty()) note += (note.empty() ? "" : "; ") + futile;
  if (worst) note += (note.empty() ? "" : "; ") + p_note(report, *worst, worst_needs, p_short);
  return note;
}

}  // namespace isobench::orchestrator
