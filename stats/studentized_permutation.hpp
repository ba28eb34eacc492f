#pragma once

#include <cstddef>
#include <cstdint>
#include <climits>
#include <span>
#include <vector>

#include "stats/alternative.hpp"
#include "stats/brunner_munzel_statistic.hpp"

namespace isobench::stats {

// Two samples pooled and sorted, as groups of equal values in ascending order, and how many
// values of each group belong to x. A labelling of the pooled values (which n_x of them are x)
// is, as far as any rank statistic can tell, one choice of x_count per group: all labellings
// that agree on the counts get the same statistic, and there are prod C(size, x_count) of them.
struct TiedLabelling {
  std::vector<std::uint32_t> group_size;
  std::vector<std::uint32_t> x_count;
  std::size_t n_x = 0, n_y = 0;
  bool untied() const { return group_size.size() == n_x + n_y; }
};

// The placement sums of a labelling (O(groups)).
PlacementSums placement_sums(const TiedLabelling& labelling);

enum class PermutationMethod { exact, monte_carlo };

struct PermutationPValue {
  // Exact: the p-value. Monte Carlo: the upper end of the confidence sequence's interval, on the
  // same side of every level as the exact p (but with probability kMonteCarloRisk), or above
  // the levels still undecided when the draws ran out.
  double p_value = 1;
  double p_lower = 1;  // Monte Carlo: the interval's lower end; exact: the p-value
  PermutationMethod method = PermutationMethod::exact;
  // exact: labellings counted, C(n_x + n_y, n_x); Monte Carlo: labellings drawn.
  double labellings = 0;
  double hits = 0;       // Monte Carlo: the drawn labellings at least as extreme
  bool resolved = true;  // Monte Carlo: every level's side known before the draws ran out
};

// Limits of the exact enumeration. Per call it walks every choice of per-group counts, up to
// kExactCompositions of them (a small cost per call; heavily tied samples of 30 a side have that
// many).
// Untied samples of one size all share one
// distribution, so up to kExactTableLabellings it is enumerated once per (n_x, n_y), kept, and
// each p-value is then a binary search (n = 12 per side: 2.7 million labellings, once).
inline constexpr double kExactCompositions = 1e5;
inline constexpr double kExactTableLabellings = 3e6;

// The Monte Carlo's error budget: the chance that it puts the p-value on the wrong side of any
// of its levels (confidence_sequence.hpp), and how far it draws for one p-value:
// kDrawsPerLevel / (the smallest level), within [kMinDraws, kMaxDraws], and a p whose interval
// still holds a level t gives up after kDrawsPerLevel / t. By then the interval's half-width is
// about a third of t, so only a p within about 35% of a level is left undecided, above it (the
// rule it replaced, 100 extreme draws and a 99.9% bound, left p in [0.77, 1] alpha above alpha);
// a p far below the smallest level t is decided after about 8.5 / t draws, well within. 10^7
// draws give levels down to 2e-5 their full budget, and decide a p far below levels down to
// 8.7e-7 (Holm's alpha / m at alpha 0.001 over 1,150 instances).
inline constexpr double kMonteCarloRisk = 1e-3;
inline constexpr double kDrawsPerLevel = 200;
inline constexpr std::size_t kMinDraws = 10'000;
inline constexpr std::size_t kMaxDraws = 10'000'000;

// How far the Monte Carlo goes for a p near a level, and what it says when it gives up there.
// A verdict's p draws up to draws_per_level / level and is then left above the level (the
// conservative side, resolved = false). A power simulation (power.hpp) only counts how often the
// verdict's rule would reject, and its p near a level took most of a calibration's analysis: it
// gives up after a quarter of the draws and predicts the verdict's outcome, the side of the
// level that the interval would reach at the verdict's budget (kDrawsPerLevel / level) were the
// hits to go on at the rate seen so far (kSimulationBudget). A p decided before the give-up is
// decided as the verdict's is: the draws are the same, in the same order. bench/power_budget
// compares the two budgets seed by seed: the same sample sizes, powers within the simulation's
// own scatter; a tenth of the draws made the prediction too noisy (up to 3 points of power
// too many for the sequential rule at 5% noise).
struct MonteCarloBudget {
  double draws_per_level = kDrawsPerLevel;
  bool predict_undecided = false;
};
inline constexpr MonteCarloBudget kSimulationBudget{kDrawsPerLevel / 4, true};

struct PermutationOptions {
  // The levels the p-value will be compared with, ascending: Holm's alpha / m, ..., alpha
  // (holm_levels in multiple_testing.hpp) for m instances at level alpha. The Monte Carlo draws
  // until it knows on which side of each of them the exact p lies, and no further.
  std::vector<double> levels = {0.001};
  std::uint64_t seed = 20261129;
  MonteCarloBudget budget;
};

// The p-value of the studentized permutation test (Neubert and Brunner, 2007): the share of
// all C(n_x + n_y, n_x) labellings of the pooled values whose studentized Brunner-Munzel
// statistic T* is at least as extreme as the observed `statistic` (that of `observed`):
//   less:      T* >= T      (y tends larger, scipy's and R's brunnermunzel meaning)
//   greater:   T* <= T
//   two-sided: |T*| >= |T|
// "At least as extreme" allows a relative 1e-9, so that labellings whose statistic equals the
// observed one in exact arithmetic always count; a labelling with a vanishing variance
// estimate has T* = +-infinity (separation) or 0 (all tied), see StudentizedStatistic. The
// observed labelling always counts, so p > 0.
// Exact where the enumeration is affordable (see the limits above), otherwise seeded Monte
// Carlo that decides rather than estimates: labellings are drawn uniformly, the share of
// extreme ones followed by a confidence sequence (risk kMonteCarloRisk, valid at every draw at
// once), and the drawing stops as soon as no level of `options.levels` lies in its interval:
// the side of each is then known. The p-value is the interval's upper end, below a level
// exactly when the exact p is (but with probability kMonteCarloRisk), so Holm's correction
// over such p-values decides as over the exact ones. A p far from every level costs few draws
// (p = 0.5 against 0.001: 32), one far below the smallest level t about 8.5 / t; one near a
// level t gives up after kDrawsPerLevel / t draws and stays above it (resolved = false): the
// conservative side. Untied samples of one size share their draws, a table kept per
// (n_x, n_y, seed) and extended as far as some p-value needed it, so a sweep of one size draws
// once.
PermutationPValue studentized_permutation_p(const TiedLabelling& observed, double statistic,
                                            Alternative alternative, const PermutationOptions& options = {});

namespace detail {

// A sequential count over drawn statistics, in draw order: `made` drawn, `hits` of them at
// least as extreme as the observed statistic; `stopped` once a look found every level's side
// known. Looks come at block ends (multiples of kLookStep), from kLookStep draws on, then
// every 5% more draws: a stop may come at any draw without harm to the error bound, and looks
// this sparse keep their cost (a few logarithms) below that of the draws.
inline constexpr std::size_t kLookStep = 32;
struct SequentialCount {
  std::size_t hits = 0, made = 0;
  std::size_t next_look = kLookStep;
  bool stopped = false;
  bool operator==(const SequentialCount&) const = default;
};

// After a draw: if `made` is a look, whether the confidence sequence separates the levels or
// the draws have gone as far as the levels still in its interval are worth (draws_per_level /
// level, MonteCarloBudget): the count then stops.
bool look(SequentialCount& c, std::span<const double> levels, double draws_per_level = kDrawsPerLevel);

// Drawn statistics with the lowest, highest and largest-magnitude draw of every block of
// kLookStep draws, so that a sequential count skips the blocks in which no draw can count
// instead of walking through millions of draws one by one. Whether a draw counts is monotone in
// its value (less, greater) or magnitude (two-sided), so a block whose extreme draw does not
// count has none that does, and looks fall on block ends: `count` gives exactly `walk`'s result.
// Both continue a count through the draws the table holds, up to `most` draws in all.
class DrawnTable {
 public:
  static constexpr std::size_t kBlock = kLookStep;
  DrawnTable() = default;
  explicit DrawnTable(const std::vector<float>& draws) { append(draws); }
  void append(const std::vector<float>& draws);
  void count(SequentialCount& c, float statistic, Alternative alternative, std::span<const double> levels,
             std::size_t most = SIZE_MAX, double draws_per_level = kDrawsPerLevel) const;
  void walk(SequentialCount& c, float statistic, Alternative alternative, std::span<const double> levels,
            std::size_t most = SIZE_MAX, double draws_per_level = kDrawsPerLevel) const;
  std::size_t bytes() const { return (draws_.size() + 3 * highest_.size()) * sizeof(float); }
  std::size_t size() const { return draws_.size(); }

 private:
  std::vector<float> draws_;
  // Per block, its lowest, highest and largest-magnitude draw; the last over a partial block
  // while the table is not a multiple of kBlock.
  std::vector<float> lowest_, highest_, magnitude_;
  bool has_nan_ = false;       // then count() walks
};

}  // namespace detail

}  // namespace isobench::stats
