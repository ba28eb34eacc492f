#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

namespace isobench::stats {

// What the Brunner-Munzel statistic of a labelling depends on. A value's placement is the
// number of values of the other sample below it, ties counting half; these are the sums of the
// placements of x (u, the Mann-Whitney U of x counting x above y) and of the squared placements
// of x and of y. All are multiples of 1/4, so they are exact in a double (up to about 5,000
// values per side) and two labellings with the same sums get bit for bit the same statistic,
// whichever order the sums were taken in.
struct PlacementSums {
  double u = 0;
  double squares_x = 0;
  double squares_y = 0;
};

struct StudentizedStatistic {
  // scipy's statistic, n m (mean rank of y - mean rank of x) / ((n+m) sqrt(n s_x^2 + m s_y^2)),
  // which reduces to (n m / 2 - u) / sqrt(n s_x^2 + m s_y^2). Positive when y tends larger.
  // Where the variance estimate vanishes (s_x = s_y = 0) the value is defined, so that every
  // labelling has its place in one order: complete separation (every x below every y, or
  // above) is +infinity (-infinity), the most extreme labelling there is; all values tied is 0.
  double value = 0;
  double df = 0;      // Welch-Satterthwaite df; NaN where the variance estimate vanishes
  bool degenerate = false;  // the variance estimate vanishes: separation or all tied
};

StudentizedStatistic studentized_statistic(std::size_t n_x, std::size_t n_y, const PlacementSums& sums);

// The statistic's value alone, without the degrees of freedom: what a permutation draw needs,
// inline (a Monte Carlo p takes millions); studentized_statistic takes its value from here.
inline double studentized_value(std::size_t n_x, std::size_t n_y, const PlacementSums& sums) {
  const auto n = static_cast<double>(n_x), m = static_cast<double>(n_y);
  const double u = sums.u, v = n * m - sums.u;
  const double spread = (n * sums.squares_x - u * u) / (n - 1) + (m * sums.squares_y - v * v) / (m - 1);
  const double numerator = n * m / 2 - u;
  if (spread <= 0) return numerator > 0 ? std::numeric_limits<double>::infinity()
                          : numerator < 0 ? -std::numeric_limits<double>::infinity()
                                          : 0.0;
  return numerator / std::sqrt(spread);
}

}  // namespace isobench::stats
