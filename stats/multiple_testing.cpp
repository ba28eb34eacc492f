#include "stats/multiple_testing.hpp"

#include <algorithm>
#include <numeric>

namespace isobench::stats {
namespace {

std::vector<std::size_t> ascending_order(std::span<const double> p) {
  std::vector<std::size_t> order(p.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  return order;
}

}  // namespace

std::vector<double> holm_adjust(std::span<const double> p_values) {
  const std::size_t m = p_values.size();
  const auto order = ascending_order(p_values);
  std::vector<double> adjusted(m);
  double running = 0;
  for (std::size_t rank = 0; rank < m; ++rank) {
    const double candidate = std::min(1.0, static_cast<double>(m - rank) * p_values[order[rank]]);
    running = std::max(running, candidate);
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

std::vector<double> holm_levels(double alpha, std::size_t m) {
  std::vector<double> levels;
  for (std::size_t k = m; k >= 1; --k) levels.push_back(alpha / static_cast<double>(k));
  return levels;
}

std::vector<double> benjamini_hochberg_adjust(std::span<const double> p_values) {
  const std::size_t m = p_values.size();
  const auto order = ascending_order(p_values);
  std::vector<double> adjusted(m);
  double running = 1;
  for (std::size_t rank = m; rank-- > 0;) {
    const double candidate = static_cast<double>(m) * p_values[order[rank]] / static_cast<double>(rank + 1);
    running = std::min(running, candidate);
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

}  // namespace isobench::stats
