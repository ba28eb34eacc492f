#include "stats/brunner_munzel.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>


namespace isobench::stats {

std::string_view to_string(Alternative alternative) {
  switch (alternative) {
    case Alternative::two_sided: return "two-sided";
    case Alternative::less: return "less";
    case Alternative::greater: return "greater";
  }
  return "?";
}

namespace {

void check_sample(std::span<const double> sample, const char* name) {
  if (sample.size() < 2)
    throw std::invalid_argument(std::string("brunner_munzel: sample ") + name + " has " +
                                std::to_string(sample.size()) +
                                " value(s); the test needs at least 2 per sample");
  for (double v : sample)
    if (!std::isfinite(v))
      throw std::invalid_argument(std::string("brunner_munzel: sample ") + name +
                                  " holds a value that is not finite");
}

// p-value of scipy's _get_pvalue(-statistic, distribution, alternative).
template <class Distribution>
double tail_p_value(const Distribution& distribution, double statistic, Alternative alternative) {
  using boost::math::cdf;
  using boost::math::complement;
  const double s = -statistic;
  switch (alternative) {
    case Alternative::less: return cdf(distribution, s);
    case Alternative::greater: return cdf(complement(distribution, s));
    case Alternative::two_sided: return std::min(1.0, 2.0 * cdf(complement(distribution, std::abs(s))));
  }
  return 1.0;
}

// Probability of one particular labelling among C(n+m, n), times `count`.
double labelling_probability(double count, std::size_t n, std::size_t m) {
  const double total = static_cast<double>(n + m);
  const double log_labellings = std::lgamma(total + 1) - std::lgamma(static_cast<double>(n) + 1) -
                                std::lgamma(static_cast<double>(m) + 1);
  if (log_labellings < 34.0) {
    // C(n+m, n) < 6e14: the running product of exact binomials stays an integer below 2^53
    // (up to rounding that std::round removes), so small cases such as 2/20 come out exact.
    double labellings = 1;
    const std::size_t k = std::min(n, m);
    for (std::size_t i = 1; i <= k; ++i)
      labellings = labellings * static_cast<double>(n + m - k + i) / static_cast<double>(i);
    return count / std::round(labellings);
  }
  return std::exp(std::log(count) - log_labellings);
}

// For each value of `own` (sorted), the number of values of `other` (sorted) below it plus half
// the number equal to it, in O(n + m).
std::vector<double> placements(const std::vector<double>& own, const std::vector<double>& other) {
  std::vector<double> result(own.size());
  std::size_t below = 0, not_above = 0;
  for (std::size_t i = 0; i < own.size(); ++i) {
    while (below < other.size() && other[below] < own[i]) ++below;
    not_above = std::max(not_above, below);
    while (not_above < other.size() && other[not_above] <= own[i]) ++not_above;
    result[i] = static_cast<double>(below) + 0.5 * static_cast<double>(not_above - below);
  }
  return result;
}

double mean(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

}  // namespace

BrunnerMunzelResult brunner_munzel(std::span<const double> x, std::span<const double> y,
                                   Alternative alternative,
                                   BrunnerMunzelDistribution distribution) {
  check_sample(x, "x");
  check_sample(y, "y");
  const std::size_t nx = x.size(), ny = y.size();
  std::vector<double> sorted_x(x.begin(), x.end()), sorted_y(y.begin(), y.end());
  std::sort(sorted_x.begin(), sorted_x.end());
  std::sort(sorted_y.begin(), sorted_y.end());
  // A value's midrank in the pooled sample minus its midrank in its own sample is its
  // placement: how many values of the other sample lie below it, ties counting half. scipy's
  // rank differences are exactly these, so they come from two sorted copies and a merge walk.
  const std::vector<double> placements_x = placements(sorted_x, sorted_y);
  const std::vector<double> placements_y = placements(sorted_y, sorted_x);

  const auto dnx = static_cast<double>(nx), dny = static_cast<double>(ny);
  const double within_mean_x = (dnx + 1) / 2, within_mean_y = (dny + 1) / 2;
  const double mean_placement_x = mean(placements_x), mean_placement_y = mean(placements_y);
  const double mean_x = within_mean_x + mean_placement_x;  // mean pooled midrank of x
  const double mean_y = within_mean_y + mean_placement_y;
  double sx = 0, sy = 0;
  for (double p : placements_x) sx += (p - mean_placement_x) * (p - mean_placement_x);
  for (double p : placements_y) sy += (p - mean_placement_y) * (p - mean_placement_y);
  sx /= dnx - 1;
  sy /= dny - 1;

  BrunnerMunzelResult result;
  result.relative_effect = mean_placement_y / dnx;
  const double spread = dnx * sx + dny * sy;
  if (spread == 0) {
    // The placements are constant within each sample: either every value ties, or the samples
    // are completely separated.
    result.df = std::numeric_limits<double>::quiet_NaN();
    if (mean_x == mean_y) {
      result.method = BrunnerMunzelMethod::all_tied;
      result.statistic = 0;
      result.p_value = 1;
      return result;
    }
    result.method = BrunnerMunzelMethod::separation;
    const bool x_below = mean_x < mean_y;
    result.statistic = x_below ? std::numeric_limits<double>::infinity()
                               : -std::numeric_limits<double>::infinity();
    // The reverse separation exists when the smallest `size of the upper sample` pooled values
    // lie strictly below the rest.
    std::vector<double> pooled;
    pooled.reserve(nx + ny);
    std::merge(sorted_x.begin(), sorted_x.end(), sorted_y.begin(), sorted_y.end(), std::back_inserter(pooled));
    const std::size_t upper_size = x_below ? ny : nx;
    const bool reverse_possible = pooled[upper_size - 1] < pooled[upper_size];
    const bool observed_direction =
        (alternative == Alternative::less && x_below) || (alternative == Alternative::greater && !x_below);
    if (alternative == Alternative::two_sided)
      result.p_value = labelling_probability(reverse_possible ? 2.0 : 1.0, nx, ny);
    else if (observed_direction)
      result.p_value = labelling_probability(1.0, nx, ny);
    else
      result.p_value = 1.0;
    return result;
  }

  result.statistic = dnx * dny * (mean_y - mean_x) / ((dnx + dny) * std::sqrt(spread));
  if (distribution == BrunnerMunzelDistribution::t) {
    const double df_denominator =
        std::pow(dnx * sx, 2.0) / (dnx - 1) + std::pow(dny * sy, 2.0) / (dny - 1);
    result.df = spread * spread / df_denominator;
    result.p_value =
        tail_p_value(boost::math::students_t_distribution<double>(result.df), result.statistic, alternative);
  } else {
    result.df = std::numeric_limits<double>::quiet_NaN();
    result.p_value = tail_p_value(boost::math::normal_distribution<double>(), result.statistic, alternative);
  }
  return result;
}

}  // namespace isobench::stats
