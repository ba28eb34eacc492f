#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "stats/alternative.hpp"

namespace isobench::stats {

struct PermutationTestResult {
  double statistic = 0;  // median(x) - median(y)
  double p_value = 1;
  std::size_t permutations = 0;
};

// Two-sample permutation test on the difference of medians, by `permutations` random
// relabellings drawn with std::mt19937_64(seed) and our own Fisher-Yates (so results are the
// same with every standard library). p = (1 + #{as extreme}) / (1 + permutations), where as
// extreme means s* <= s (less), s* >= s (greater) or |s*| >= |s| (two-sided), with a relative
// tolerance of 1e-12 so that ties of the statistic count. Alternatives as scipy: less means x
// tends to be smaller than y. Throws std::invalid_argument for an empty sample or zero
// permutations.
PermutationTestResult median_difference_permutation_test(std::span<const double> x,
                                                         std::span<const double> y,
                                                         Alternative alternative = Alternative::two_sided,
                                                         std::size_t permutations = 10000,
                                                         std::uint64_t seed = 20261129);

}  // namespace isobench::stats
