#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace isobench::stats {

// Hodges-Lehmann shift of candidate over baseline on log time, read as a ratio:
// ratio = exp(median over all pairs of log(candidate_j) - log(baseline_i)), so 1.10 means the
// candidate takes 10% longer. The interval is the distribution-free one that inverts the
// Mann-Whitney test: [d_(k), d_(nm+1-k)] of the nm pairwise log differences, with k the
// largest integer such that P(U <= k-1) <= (1-confidence)/2 under the exact U distribution
// (used while it is cheap, about n, m <= 60) or k = round(nm/2 - z sqrt(nm(n+m+1)/12)) with
// z the normal (1+confidence)/2 quantile. Its coverage is at least `confidence` for continuous
// data. When no k >= 1 exists (tiny samples) the interval is [0, +inf].
// Time O((n+m) log(n+m)) and memory O(n+m): order statistics of the pairwise differences are
// found by bisection over doubles, counting pairs below a value with two pointers.
struct HodgesLehmannRatio {
  double ratio = 1;
  double lo = 0, hi = 0;
  double confidence = 0.95;
};

// Throws std::invalid_argument for an empty sample, a value that is not > 0 and finite, or a
// confidence outside (0, 1).
// The k above for n and m values per side (capped at n m / 2): the interval is the k-th
// smallest to the k-th largest pairwise difference, and 0 means it is [0, +inf]: no sample of
// that size can bound the ratio, whatever its values.
std::uint64_t hodges_lehmann_interval_rank(std::size_t n, std::size_t m, double confidence);

HodgesLehmannRatio hodges_lehmann_ratio(std::span<const double> baseline,
                                        std::span<const double> candidate,
                                        double confidence = 0.95);

// The interval alone (`ratio` left NaN), the same doubles as hodges_lehmann_ratio's: two order
// statistics fewer, for callers that only ask whether the interval clears a floor (the power
// simulations, thousands of times).
HodgesLehmannRatio hodges_lehmann_interval(std::span<const double> baseline,
                                           std::span<const double> candidate,
                                           double confidence = 0.95);

// Whether hodges_lehmann_interval(baseline, candidate, confidence).lo > bound, the same answer from
// counts of the pairs whose log difference lies at or below a cut just either side of ln(bound)
// (two pointers over the sorted logarithms, O(n + m) each), where the interval takes two order
// statistics of all n m differences: a power simulation asks only this of each simulated comparison
// (SLOWER needs the lower end above 1 + threshold), and the order statistics showed in a
// calibration's profile (docs/evidence.md#behind-the-code). The k-th difference is taken only where
// it lies within 1e-12 of ln(bound), where exp's rounding could decide. Throws as
// hodges_lehmann_ratio.
bool hodges_lehmann_lower_exceeds(std::span<const double> baseline, std::span<const double> candidate,
                                  double confidence, double bound);

}  // namespace isobench::stats
