#include "stats/brunner_munzel_statistic.hpp"

#include <cmath>
#include <limits>

namespace isobench::stats {

StudentizedStatistic studentized_statistic(std::size_t n_x, std::size_t n_y, const PlacementSums& sums) {
  StudentizedStatistic s;
  s.value = studentized_value(n_x, n_y, sums);
  const auto n = static_cast<double>(n_x), m = static_cast<double>(n_y);
  const double u = sums.u, v = n * m - sums.u;  // v: the placements of y add up to n m - u
  // n (n-1) s_x^2 and m (m-1) s_y^2, each an exact multiple of 1/16 (see PlacementSums), so a
  // vanishing variance is exactly 0.
  const double nsx = (n * sums.squares_x - u * u) / (n - 1);
  const double msy = (m * sums.squares_y - v * v) / (m - 1);
  const double spread = nsx + msy;
  if (spread <= 0) {
    s.degenerate = true;
    s.df = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  s.df = spread * spread / (nsx * nsx / (n - 1) + msy * msy / (m - 1));
  return s;
}

}  // namespace isobench::stats
