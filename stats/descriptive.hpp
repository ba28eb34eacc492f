#pragma once

#include <span>
#include <vector>

namespace isobench::stats {

// Quantile q in [0, 1] with linear interpolation between order statistics
// (numpy.percentile's default 'linear' method). `sorted` must be ascending and non-empty.
double quantile_sorted(std::span<const double> sorted, double q);

// Median of an unsorted sample (copies it). Throws std::invalid_argument on an empty sample.
double median(std::span<const double> values);

struct Descriptive {
  std::size_t n = 0;
  double min = 0, max = 0, mean = 0;
  double sd = 0;  // sample standard deviation (divisor n-1); 0 when n == 1
  double median = 0;
  double q1 = 0, q3 = 0, iqr = 0;  // numpy-default linear quartiles
  // Median absolute deviation from the median: mad_raw is the plain median |x - median|;
  // mad_scaled = 1.4826 * mad_raw estimates the sd of normal data.
  double mad_raw = 0, mad_scaled = 0;
  double cv = 0;  // sd / mean
  // Iglewicz-Hoaglin: |0.6745 (x - median) / mad_raw| > 3.5. When mad_raw == 0 (more than half
  // the values equal) the modified z-score is undefined and nothing is flagged.
  std::vector<bool> outlier;
  std::size_t outlier_count = 0;
};

// Throws std::invalid_argument on an empty sample.
Descriptive describe(std::span<const double> values);

}  // namespace isobench::stats
