#include "stats/confidence_sequence.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace isobench::stats {
namespace {

// ln M_n(p), written so that 0 ln 0 = 0 (p = 0 with no hit, p = 1 with no miss).
double log_ratio(std::size_t hits, std::size_t draws, double p) {
  const double s = static_cast<double>(hits), f = static_cast<double>(draws - hits), a = kMixtureShape;
  const double log_mixture = std::log(a) + std::lgamma(s + a) + std::lgamma(f + 1) - std::lgamma(s + f + 1 + a);
  const double log_at_p = (s > 0 ? s * std::log(p) : 0.0) + (f > 0 ? f * std::log1p(-p) : 0.0);
  return log_mixture - log_at_p;
}

}  // namespace

ConfidenceSequence::ConfidenceSequence(double risk) : risk_(risk), log_bound_(-std::log(risk)) {
  if (!(risk > 0 && risk < 1)) throw std::invalid_argument("ConfidenceSequence: risk must lie in (0, 1)");
}

bool ConfidenceSequence::contains(std::size_t hits, std::size_t draws, double p) const {
  return log_ratio(hits, draws, p) < log_bound_;
}

ProportionBounds ConfidenceSequence::bounds(std::size_t hits, std::size_t draws) const {
  ProportionBounds b;
  if (draws == 0) return b;
  const double centre = static_cast<double>(hits) / static_cast<double>(draws);
  // Bisection between a point inside (the centre) and one outside, keeping the inside one.
  const auto edge = [&](double inside, double outside) {
    for (int i = 0; i < 200 && std::abs(outside - inside) > 1e-12 * std::max(std::abs(inside), 1e-300); ++i) {
      const double mid = 0.5 * (inside + outside);
      (contains(hits, draws, mid) ? inside : outside) = mid;
    }
    return inside;
  };
  b.lower = hits == 0 ? 0.0 : edge(centre, 0.0);
  b.upper = hits == draws ? 1.0 : edge(centre, 1.0);
  return b;
}

bool ConfidenceSequence::separates(std::span<const double> levels, std::size_t hits, std::size_t draws) const {
  if (levels.empty()) return true;
  if (draws == 0) return false;
  // The set is an interval around the centre: the levels next to the centre decide.
  const double centre = static_cast<double>(hits) / static_cast<double>(draws);
  const auto above = std::lower_bound(levels.begin(), levels.end(), centre);
  if (above != levels.end() && contains(hits, draws, *above)) return false;
  if (above != levels.begin() && contains(hits, draws, *std::prev(above))) return false;
  return true;
}

}  // namespace isobench::stats
