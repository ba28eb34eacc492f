#include "stats/bimodality.hpp"

#include <algorithm>
#include <vector>

namespace isobench::stats {
namespace {

double median_of_sorted(std::span<const double> v) {
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

Bimodality bimodality(std::span<const double> values) {
  Bimodality out;
  const std::size_t n = values.size();
  const std::size_t least = std::max<std::size_t>(3, n / 5);
  if (n < 2 * least) return out;
  std::vector<double> v(values.begin(), values.end());
  std::sort(v.begin(), v.end());
  const double median = median_of_sorted(v);
  double best = 0;
  for (std::size_t k = least; k + least <= n; ++k) {  // lower cluster v[0..k), upper v[k..n)
    const double gap = v[k] - v[k - 1];
    const double spread = std::max(v[k - 1] - v[0], v[n - 1] - v[k]);
    if (gap > kGapOverSpread * spread && gap > kMinGap * median && gap > best) {
      best = gap;
      out.bimodal = true;
      out.lower = k;
      out.upper = n - k;
      out.gap = gap;
      out.lower_median = median_of_sorted(std::span(v).first(k));
      out.upper_median = median_of_sorted(std::span(v).subspan(k));
    }
  }
  return out;
}

}  // namespace isobench::stats
