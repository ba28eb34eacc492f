#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "stats/brunner_munzel.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/verdict.hpp"

namespace isobench::stats {

// The verdict rule over a sweep of instances, the one function that decides: `compare` gives its
// verdicts through it, and calibrate's analysis and bench/verdict_simulation count them through
// it, so what is measured about the rule is what users get.
struct SweepRule {
  double alpha = 0.001;      // after Holm's correction over the sweep
  double threshold = 0.02;   // noise floor: SLOWER needs the interval above 1 + threshold
  double confidence = 0.95;  // of the Hodges-Lehmann interval
  std::uint64_t seed = 20261129;  // of the permutation p's Monte Carlo
};

struct SamplePair {
  std::span<const double> baseline, candidate;
};

struct InstanceVerdict {
  BrunnerMunzelResult test;  // two-sided, its Monte Carlo resolved at Holm's levels
  HodgesLehmannRatio ratio;  // candidate / baseline
  double p_adjusted = 1;     // Holm over the sweep
  Verdict verdict = Verdict::uncertain;
};

// Per instance, in order: the two-sided Brunner-Munzel permutation p, Holm's adjustment over
// the sweep, the Hodges-Lehmann ratio interval and the verdict (verdict.hpp). The p-values are
// resolved against Holm's levels alpha / m ... alpha (holm_levels) only as far as Holm's
// step-down reaches: every p against alpha / m first, then, while step j passes, the p-values
// whose side of the next level is not yet known against it. A Monte Carlo p lies on the same
// side of every level it was resolved at as the exact p but with probability kMonteCarloRisk,
// so the verdicts are those of the exact p-values but with that probability per instance.
// Throws std::invalid_argument as brunner_munzel and hodges_lehmann_ratio do.
std::vector<InstanceVerdict> decide_sweep(std::span<const SamplePair> sweep, const SweepRule& rule = {});

}  // namespace isobench::stats
