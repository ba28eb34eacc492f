#include "stats/descriptive.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace isobench::stats {

double quantile_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("quantile of an empty sample");
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  // numpy's _lerp: exact at both ends of the interval.
  const double a = sorted[below], b = sorted[above];
  const double diff = b - a;
  return fraction >= 0.5 ? b - diff * (1.0 - fraction) : a + diff * fraction;
}

double median(std::span<const double> values) {
  if (values.empty()) throw std::invalid_argument("median of an empty sample");
  std::vector<double> copy(values.begin(), values.end());
  const std::size_t half = copy.size() / 2;
  std::nth_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(half), copy.end());
  const double upper = copy[half];
  if (copy.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(half));
  return lower + (upper - lower) * 0.5;
}

Descriptive describe(std::span<const double> values) {
  if (values.empty()) throw std::invalid_argument("describe: empty sample");
  Descriptive d;
  d.n = values.size();
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  d.min = sorted.front();
  d.max = sorted.back();
  double sum = 0;
  for (double v : sorted) sum += v;
  d.mean = sum / static_cast<double>(d.n);
  double squares = 0;
  for (double v : sorted) squares += (v - d.mean) * (v - d.mean);
  d.sd = d.n > 1 ? std::sqrt(squares / static_cast<double>(d.n - 1)) : 0.0;
  d.median = quantile_sorted(sorted, 0.5);
  d.q1 = quantile_sorted(sorted, 0.25);
  d.q3 = quantile_sorted(sorted, 0.75);
  d.iqr = d.q3 - d.q1;
  std::vector<double> deviations(d.n);
  for (std::size_t i = 0; i < d.n; ++i) deviations[i] = std::abs(values[i] - d.median);
  d.mad_raw = median(deviations);
  d.mad_scaled = 1.4826 * d.mad_raw;
  d.cv = d.mean != 0 ? d.sd / d.mean : 0.0;
  d.outlier.assign(d.n, false);
  if (d.mad_raw > 0) {
    for (std::size_t i = 0; i < d.n; ++i) {
      if (std::abs(0.6745 * (values[i] - d.median) / d.mad_raw) > 3.5) {
        d.outlier[i] = true;
        ++d.outlier_count;
      }
    }
  }
  return d;
}

}  // namespace isobench::stats
