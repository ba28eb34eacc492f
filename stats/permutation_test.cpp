#include "stats/permutation_test.hpp"

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "stats/descriptive.hpp"
#include "stats/random.hpp"

namespace isobench::stats {

PermutationTestResult median_difference_permutation_test(std::span<const double> x,
                                                         std::span<const double> y,
                                                         Alternative alternative,
                                                         std::size_t permutations,
                                                         std::uint64_t seed) {
  if (x.empty() || y.empty()) throw std::invalid_argument("permutation test: empty sample");
  if (permutations == 0) throw std::invalid_argument("permutation test: needs at least one permutation");
  PermutationTestResult result;
  result.permutations = permutations;
  result.statistic = median(x) - median(y);
  const double tolerance = 1e-12 * std::max(std::abs(result.statistic), 1e-300);
  std::vector<double> pooled(x.begin(), x.end());
  pooled.insert(pooled.end(), y.begin(), y.end());
  const std::span<const double> all(pooled);
  std::mt19937_64 engine(seed);
  std::size_t extreme = 0;
  for (std::size_t draw = 0; draw < permutations; ++draw) {
    // Shuffling the first n_x slots suffices: they form a uniform random x sample.
    partial_shuffle(pooled, x.size(), engine);
    const double s = median(all.first(x.size())) - median(all.subspan(x.size()));
    bool counts = false;
    switch (alternative) {
      case Alternative::less: counts = s <= result.statistic + tolerance; break;
      case Alternative::greater: counts = s >= result.statistic - tolerance; break;
      case Alternative::two_sided: counts = std::abs(s) >= std::abs(result.statistic) - tolerance; break;
    }
    if (counts) ++extreme;
  }
  result.p_value = static_cast<double>(extreme + 1) / static_cast<double>(permutations + 1);
  return result;
}

}  // namespace isobench::stats
