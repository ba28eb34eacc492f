#include "stats/brunner_munzel_statistic.hpp"

#include <cmath>
#include <limits>

namespace isobench::stats {

StudentizedStatistic studentized_statistic(std::size_t n_x, std::size_t n_y, const PlacementSums& sums) {
  const auto n = static_cast<double>(n_x), m = static_cast<double>(n_y);
  const double u = sums.u, v = n * m - sums.u;  // v: the placements of y add up to n m - u
  // n (n-1) s_x^2 and m (m-1) s_y^2, each an exact multiple of 1/16 (see PlacementSums), so a
  // vanishing variance is exactly 0.
  const double nsx = (n * sums.squares_x - u * u) / (n - 1);
  const double msy = (m * sums.squares_y - v * v) / (m - 1);
  const double spread = nsx + msy;
  const double numerator = n * m / 2 - u;
  StudentizedStatistic s;
  if (spread <= 0) {
    s.degenerate = true;
    s.df = std::numeric_limits<double>::quiet_NaN();
    s.value = numerator > 0 ? std::numeric_limits<double>::infinity()
              : numerator < 0 ? -std::numeric_limits<double>::infinity()
                              : 0.0;
    return s;
  }
  s.value = numerator / std::sqrt(spread);
  s.df = spread * spread / (nsx * nsx / (n - 1) + msy * msy / (m - 1));
  return s;
}

}  // namespace isobench::stats
