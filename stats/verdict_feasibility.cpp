#include "stats/verdict_feasibility.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "stats/hodges_lehmann.hpp"

namespace isobench::stats {

VerdictFeasibility verdict_feasibility(std::size_t n_x, std::size_t n_y, double alpha, std::size_t instances,
                                       double confidence) {
  if (n_x < 2 || n_y < 2) throw std::invalid_argument("verdict_feasibility: the test needs at least 2 values per side");
  if (instances == 0) throw std::invalid_argument("verdict_feasibility: no instances");
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("verdict_feasibility: alpha must lie in (0, 1)");
  if (!(confidence > 0 && confidence < 1))
    throw std::invalid_argument("verdict_feasibility: confidence must lie in (0, 1)");
  const double log_labellings = std::lgamma(static_cast<double>(n_x + n_y) + 1) -
                                std::lgamma(static_cast<double>(n_x) + 1) - std::lgamma(static_cast<double>(n_y) + 1);
  // Compared as 2 m < alpha C on the log scale: exact enough, and no overflow for large n.
  const double log_needed = std::log(2.0 * static_cast<double>(instances)) - std::log(alpha);
  VerdictFeasibility f;
  f.smallest_p = std::min(1.0, 2 * std::exp(-log_labellings));
  f.smallest_adjusted_p = std::min(1.0, static_cast<double>(instances) * f.smallest_p);
  f.interval_bounded = hodges_lehmann_interval_rank(n_x, n_y, confidence) >= 1;
  f.reachable = log_labellings > log_needed && f.interval_bounded;
  return f;
}

std::size_t smallest_feasible_n(double alpha, std::size_t instances, double confidence, std::size_t max_n) {
  for (std::size_t n = 2; n <= max_n; ++n)
    if (verdict_feasibility(n, n, alpha, instances, confidence).reachable) return n;
  return 0;
}

}  // namespace isobench::stats
