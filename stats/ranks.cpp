#include "stats/ranks.hpp"

#include <algorithm>
#include <utility>

namespace isobench::stats {

Midranks midranks(std::span<const double> values) {
  const std::size_t n = values.size();
  // Sorting (value, index) pairs in place is several times faster than sorting indices
  // through the values.
  std::vector<std::pair<double, std::size_t>> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = {values[i], i};
  std::sort(order.begin(), order.end());
  Midranks result;
  result.rank.resize(n);
  for (std::size_t start = 0; start < n;) {
    std::size_t end = start + 1;
    while (end < n && order[end].first == order[start].first) ++end;
    // Ranks start+1 .. end share their mean.
    const double shared = 0.5 * static_cast<double>(start + 1 + end);
    for (std::size_t k = start; k < end; ++k) result.rank[order[k].second] = shared;
    const double t = static_cast<double>(end - start);
    if (end - start > 1) {
      result.has_ties = true;
      result.tie_term += t * t * t - t;
    }
    start = end;
  }
  return result;
}

}  // namespace isobench::stats
