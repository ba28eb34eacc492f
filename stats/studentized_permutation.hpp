#pragma once

#include <cstddef>
#include <cstdint>
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

struct PermutationOptions {
  // The smallest p-value the Monte Carlo must resolve: alpha / m for Holm's correction over m
  // instances at level alpha. It draws ceil(100 / resolution) labellings at most, clamped to
  // [10^4, 4 x 10^6]: about 100 draws beyond the critical value, so that the upper bound below
  // is close to the estimate there. Below 2.5e-5 the cap leaves fewer, and the bound, still
  // valid, grows relative to the estimate (p-values far below the resolution stay far below).
  double resolution = 1e-5;
  std::uint64_t seed = 20261129;
};

enum class PermutationMethod { exact, monte_carlo };

struct PermutationPValue {
  double p_value = 1;
  PermutationMethod method = PermutationMethod::exact;
  // exact: labellings counted, C(n_x + n_y, n_x); Monte Carlo: labellings drawn.
  double labellings = 0;
};

// Limits of the exact enumeration. Per call it walks every choice of per-group counts, up to
// kExactCompositions of them (about 1 ms; heavily tied samples of 30 a side have that many).
// Untied samples of one size all share one
// distribution, so up to kExactTableLabellings it is enumerated once per (n_x, n_y), kept, and
// each p-value is then a binary search (n = 12 per side: 2.7 million labellings, once).
inline constexpr double kExactCompositions = 1e5;
inline constexpr double kExactTableLabellings = 3e6;

inline constexpr double kMonteCarloRisk = 1e-3;

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
// Carlo: labellings are drawn uniformly until 100 of them are at least as extreme (Besag and
// Clifford's sequential stop: a large p costs about 100 / p draws) or the draws run out, and
// the p-value is the upper end of the one-sided 1 - kMonteCarloRisk Clopper-Pearson interval of
// the exact p from k extreme of L draws. A fixed seed meets the same draws at every call of one
// size, so a plain estimate k / L would realise, for a whole run of comparisons, a level that
// strays above alpha whenever those draws happen to fall short in the tail (one seed's table
// of 10 draws per resolution realised 1.5 alpha at n = 30); the bound exceeds the exact p except
// with probability kMonteCarloRisk over the draws, so the realised level stays at or below
// alpha but for draws that unlucky. It costs power only near the threshold: with k = 100 draws
// beyond it the bound is about 1.3 times the estimate. Never below (k + 1) / (L + 1).
// Untied samples of one size share their draws, which are kept per (n_x, n_y, draws, seed).
PermutationPValue studentized_permutation_p(const TiedLabelling& observed, double statistic,
                                            Alternative alternative, const PermutationOptions& options = {});

namespace detail {

// Besag and Clifford's sequential stop over a table of drawn statistics, in draw order: the
// draws are taken one by one until kStopAfterExtreme of them are at least as extreme as the
// statistic (hits), or the table ends; made is how many were taken.
inline constexpr std::size_t kStopAfterExtreme = 100;
struct SequentialCount {
  std::size_t hits = 0, made = 0;
  bool operator==(const SequentialCount&) const = default;
};

// A table of drawn statistics with the lowest, highest and largest-magnitude draw of every block
// of kBlock draws, so that a sequential count skips the blocks in which no draw can count
// instead of walking through up to 4 million draws one by one (that walk was 85% of a
// calibration's analysis: 5.8 minutes for 12 runs of 10 instances, 2026-12-01-h200-d). Whether
// a draw counts is monotone in its value (less, greater) or magnitude (two-sided), so a block
// whose extreme draw does not count has none that does: `count` gives exactly `walk`'s result.
class DrawnTable {
 public:
  static constexpr std::size_t kBlock = 256;
  explicit DrawnTable(std::vector<float> draws);
  SequentialCount count(float statistic, Alternative alternative) const;
  SequentialCount walk(float statistic, Alternative alternative) const;  // the definition, draw by draw
  std::size_t bytes() const;
  std::size_t size() const { return draws_.size(); }

 private:
  struct Block {
    float lowest, highest, largest_magnitude;
  };
  std::vector<float> draws_;
  std::vector<Block> blocks_;
  bool has_nan_ = false;  // then count() walks
};

}  // namespace detail

}  // namespace isobench::stats
