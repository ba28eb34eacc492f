#include "stats/sweep_verdict.hpp"

#include "stats/multiple_testing.hpp"

namespace isobench::stats {
namespace {

// Whether a p-value's side of `level` is known: exact, or a Monte Carlo interval that does not
// hold it (the confidence sequence holds the exact p at every draw at once, so a level outside
// the interval at the stop is outside for good).
bool side_known(const BrunnerMunzelResult& test, double level) {
  return test.method != BrunnerMunzelMethod::monte_carlo_permutation || test.p_value < level ||
         test.p_lower > level;
}

}  // namespace

std::vector<InstanceVerdict> decide_sweep(std::span<const SamplePair> sweep, const SweepRule& rule) {
  const std::size_t m = sweep.size();
  const auto levels = holm_levels(rule.alpha, m);  // ascending: step j of Holm asks p < levels[j]
  std::vector<InstanceVerdict> out(m);
  PermutationOptions permutation;
  permutation.seed = rule.seed;
  const auto test = [&](std::size_t i, std::size_t up_to_step) {
    permutation.levels.assign(levels.begin(), levels.begin() + static_cast<std::ptrdiff_t>(up_to_step + 1));
    out[i].test = brunner_munzel(sweep[i].baseline, sweep[i].candidate, Alternative::two_sided,
                                 BrunnerMunzelDistribution::t, permutation);
  };
  for (std::size_t i = 0; i < m; ++i) {
    out[i].ratio = hodges_lehmann_ratio(sweep[i].baseline, sweep[i].candidate, rule.confidence);
    if (m > 0) test(i, 0);
  }
  // Holm step by step, resolving each p only as far as the steps reached need it: step j passes
  // when at least j + 1 p-values lie below levels[j]. A p whose side of levels[j] is not yet
  // known is drawn again (the same seeded draws, further) with the levels up to levels[j]. An
  // A/A sweep stops at the first step: no p-value is resolved against alpha itself.
  for (std::size_t step = 0; step < m; ++step) {
    std::size_t below = 0;
    for (std::size_t i = 0; i < m; ++i) {
      if (!side_known(out[i].test, levels[step])) test(i, step);
      below += out[i].test.p_value < levels[step];
    }
    if (below < step + 1) break;
  }
  std::vector<double> p(m);
  for (std::size_t i = 0; i < m; ++i) p[i] = out[i].test.p_value;
  const auto adjusted = holm_adjust(p);
  for (std::size_t i = 0; i < m; ++i) {
    out[i].p_adjusted = adjusted[i];
    out[i].verdict = decide({out[i].ratio.lo, out[i].ratio.hi, adjusted[i], rule.alpha, rule.threshold});
  }
  return out;
}

}  // namespace isobench::stats
