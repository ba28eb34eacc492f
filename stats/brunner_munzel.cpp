#include "stats/brunner_munzel.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "stats/brunner_munzel_statistic.hpp"

namespace isobench::stats {

std::string_view to_string(Alternative alternative) {
  switch (alternative) {
    case Alternative::two_sided: return "two-sided";
    case Alternative::less: return "less";
    case Alternative::greater: return "greater";
  }
  return "?";
}

std::string_view to_string(BrunnerMunzelMethod method) {
  switch (method) {
    case BrunnerMunzelMethod::exact_permutation: return "exact permutation";
    case BrunnerMunzelMethod::monte_carlo_permutation: return "Monte Carlo permutation";
    case BrunnerMunzelMethod::separation: return "separation permutation";
    case BrunnerMunzelMethod::asymptotic: return "asymptotic";
    case BrunnerMunzelMethod::all_tied: return "all tied";
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

// The pooled values as tie groups, from the two sorted samples (a merge walk).
TiedLabelling tie_groups(const std::vector<double>& x, const std::vector<double>& y) {
  TiedLabelling l;
  l.n_x = x.size();
  l.n_y = y.size();
  l.group_size.reserve(x.size() + y.size());
  l.x_count.reserve(x.size() + y.size());
  std::size_t i = 0, j = 0;
  while (i < x.size() || j < y.size()) {
    const double v = j == y.size() || (i < x.size() && x[i] <= y[j]) ? x[i] : y[j];
    std::uint32_t in_x = 0, in_y = 0;
    while (i < x.size() && x[i] == v) ++i, ++in_x;
    while (j < y.size() && y[j] == v) ++j, ++in_y;
    l.group_size.push_back(in_x + in_y);
    l.x_count.push_back(in_x);
  }
  return l;
}

// Whether `size` values of the pooled sample end exactly at a group boundary.
bool boundary_after(const TiedLabelling& l, std::size_t size) {
  std::size_t seen = 0;
  for (std::uint32_t g : l.group_size) {
    seen += g;
    if (seen >= size) return seen == size;
  }
  return false;
}

BrunnerMunzelResult test(std::span<const double> x, std::span<const double> y, Alternative alternative,
                         BrunnerMunzelDistribution distribution, const PermutationOptions& permutation,
                         bool always_asymptotic) {
  check_sample(x, "x");
  check_sample(y, "y");
  const std::size_t nx = x.size(), ny = y.size();
  std::vector<double> sorted_x(x.begin(), x.end()), sorted_y(y.begin(), y.end());
  for (auto* sample : {&sorted_x, &sorted_y})  // a power simulation's samples come sorted (power.cpp)
    if (!std::is_sorted(sample->begin(), sample->end())) std::sort(sample->begin(), sample->end());
  const TiedLabelling observed = tie_groups(sorted_x, sorted_y);
  const PlacementSums sums = placement_sums(observed);
  const auto dnx = static_cast<double>(nx), dny = static_cast<double>(ny);

  BrunnerMunzelResult result;
  result.relative_effect = (dnx * dny - sums.u) / (dnx * dny);  // the placements of y over n_x n_y
  if (observed.group_size.size() == 1) {
    result.method = BrunnerMunzelMethod::all_tied;
    result.df = result.asymptotic_p_value = std::numeric_limits<double>::quiet_NaN();
    return result;
  }
  // Complete separation, told from the groups rather than from a vanishing variance, which
  // rounding could miss on huge samples: every x below every y is u = 0, above is u = n m.
  if (sums.u == 0 || sums.u == dnx * dny) {
    const bool x_below = sums.u == 0;
    result.method = BrunnerMunzelMethod::separation;
    result.statistic = x_below ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    result.df = result.asymptotic_p_value = std::numeric_limits<double>::quiet_NaN();
    // The reverse separation exists when the smallest `size of the upper sample` pooled values
    // lie strictly below the rest.
    const bool reverse_possible = boundary_after(observed, x_below ? ny : nx);
    const bool observed_direction =
        (alternative == Alternative::less && x_below) || (alternative == Alternative::greater && !x_below);
    if (alternative == Alternative::two_sided)
      result.p_value = labelling_probability(reverse_possible ? 2.0 : 1.0, nx, ny);
    else if (observed_direction)
      result.p_value = labelling_probability(1.0, nx, ny);
    else
      result.p_value = 1.0;
    result.labellings = 1 / labelling_probability(1.0, nx, ny);
    result.p_lower = result.p_value;
    return result;
  }

  const StudentizedStatistic s = studentized_statistic(nx, ny, sums);
  result.statistic = s.value;
  result.df = distribution == BrunnerMunzelDistribution::t ? s.df : std::numeric_limits<double>::quiet_NaN();
  const bool permutation_p = nx + ny <= kPermutationMaxValues;
  if (!permutation_p || always_asymptotic)
    result.asymptotic_p_value =
        distribution == BrunnerMunzelDistribution::t
            ? tail_p_value(boost::math::students_t_distribution<double>(s.df), s.value, alternative)
            : tail_p_value(boost::math::normal_distribution<double>(), s.value, alternative);
  else
    result.asymptotic_p_value = std::numeric_limits<double>::quiet_NaN();
  if (!permutation_p) {
    result.method = BrunnerMunzelMethod::asymptotic;
    result.p_value = result.p_lower = result.asymptotic_p_value;
    return result;
  }
  const PermutationPValue p = studentized_permutation_p(observed, s.value, alternative, permutation);
  result.p_value = p.p_value;
  result.p_lower = p.p_lower;
  result.extreme = p.hits;
  result.resolved = p.resolved;
  result.labellings = p.labellings;
  result.method = p.method == PermutationMethod::exact ? BrunnerMunzelMethod::exact_permutation
                                                       : BrunnerMunzelMethod::monte_carlo_permutation;
  return result;
}

}  // namespace

BrunnerMunzelResult brunner_munzel(std::span<const double> x, std::span<const double> y,
                                   Alternative alternative, BrunnerMunzelDistribution distribution,
                                   const PermutationOptions& permutation) {
  return test(x, y, alternative, distribution, permutation, true);
}

BrunnerMunzelResult brunner_munzel_permutation(std::span<const double> x, std::span<const double> y,
                                               Alternative alternative, BrunnerMunzelDistribution distribution,
                                               const PermutationOptions& permutation) {
  return test(x, y, alternative, distribution, permutation, false);
}

}  // namespace isobench::stats
