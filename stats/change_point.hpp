#pragma once

// Change points in a series ordered in time (one value per nightly run): E-divisive means with a
// Student t significance test, as Apache Otava (formerly Hunter; Fleming et al., "Hunter: Using
// Change Point Detection to Hunt for Performance Regressions", ICPE 2023) does it in
// otava/analysis.py, compute_change_points(), with its defaults. tools/otava_reference.py runs
// Otava itself on the cases tests/stats/test_change_point.cpp checks.
//
// 1. Split: windows of `window` values, each half a window after the last (or starting at the
//    last change point found), are cut by E-divisive (Matteson and James, 2014): the split of an
//    interval that maximises the energy statistic q-hat is kept while a two-sided t test between
//    its two sides gives p <= 10 x max_p (the "weak" change points).
// 2. Merge: every weak change point is tested again between its neighbours; the weakest
//    (largest p, or while every p < max_p the smallest relative change unless it exceeds
//    min_magnitude) is dropped and its neighbours retested, until all pass.
//
// Otava's quirks are kept on purpose, so its results are ours, value for value:
// - the t test is Student's pooled-variance test fed with population standard deviations
//   (numpy.std, divisor n), as Otava passes them to scipy's ttest_ind_from_stats;
// - after dropping a change point, the merge step retests the two change points *after* it
//   (Otava recomputes list positions k and k+1 once position k is deleted), not the one before.
// Where Otava's p-value is NaN (two sides of one constant value) ours is 1: no evidence of a
// change, which is how Otava's comparisons treat NaN everywhere it matters.

#include <cstddef>
#include <span>
#include <vector>

namespace isobench::stats {

struct ChangePointOptions {
  std::size_t window = 50;     // Otava's window_len
  double max_p = 0.001;        // Otava's max_pvalue
  double min_magnitude = 0.0;  // Otava's min_magnitude: a relative change
};

struct ChangePoint {
  std::size_t index = 0;  // the first value after the change
  double qhat = 0;        // the E-divisive statistic that chose it, in its window
  double mean_before = 0, mean_after = 0;
  double stddev_before = 0, stddev_after = 0;  // population (divisor n), as Otava's
  double p_value = 1;     // two-sided t test between the segments either side
  // mean_after / mean_before - 1 (0 when mean_before is 0), Otava's forward_rel_change.
  double forward_change() const;
  // The larger of |forward change| and |backward change|, Otava's change_magnitude.
  double magnitude() const;
};

// The best split of series[begin, end): the index tau in (begin, end) and q-hat of the pair
// tau < kappa <= end maximising q-hat(series[begin, tau), series[tau, kappa)), the first in
// (tau, kappa) order on ties (Otava's PairDistanceCalculator with power 1, over a window that
// holds just series[begin, end)). Needs end - begin >= 2.
struct SplitCandidate {
  std::size_t index = 0;
  double qhat = 0;
};
SplitCandidate best_split(std::span<const double> series, std::size_t begin, std::size_t end);

// The split step alone: the weak change points, sorted, each tested between its neighbours.
std::vector<ChangePoint> weak_change_points(std::span<const double> series, const ChangePointOptions& options = {});

// Split and merge: the change points of `series`, sorted by index. Throws std::invalid_argument
// for a window below 2, a max_p outside (0, 1], or a value that is not finite.
std::vector<ChangePoint> change_points(std::span<const double> series, const ChangePointOptions& options = {});

}  // namespace isobench::stats
