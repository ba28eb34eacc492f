#pragma once
// Whether a sample splits into two clusters, so that a median or a ratio of medians describes
// neither (a clock or cache state flipping between samples, as an RMSNorm's did under the graph
// timer on the H200: docs/evidence.md#behind-the-code).
//
// The rule (a gap test on the sorted values): the sample is bimodal when, at some split of the
// sorted values that leaves at least max(3, n/5) on each side, the gap between the two clusters
// is more than kGapOverSpread times the range of the wider cluster and more than kMinGap of the
// median. The minimum cluster size keeps one or two outliers (a heavy tail) from counting as a
// mode; the spread condition keeps a wide unimodal sample, whose largest gaps are small next to
// its clusters' ranges, from counting; the relative floor ignores splits too small to matter.
// A sample on a coarse clock with exactly two distinct values far enough apart is bimodal by
// this rule, and is reported as such: its median is one of the two.

#include <cstddef>
#include <span>

namespace isobench::stats {

inline constexpr double kGapOverSpread = 1.5;
inline constexpr double kMinGap = 0.01;

struct Bimodality {
  bool bimodal = false;
  std::size_t lower = 0, upper = 0;  // values in each cluster (0 when not bimodal)
  double lower_median = 0, upper_median = 0;
  double gap = 0;  // between the clusters, in the values' unit
};

// Fewer than 6 values are never bimodal (no split leaves 3 a side).
Bimodality bimodality(std::span<const double> values);

}  // namespace isobench::stats
