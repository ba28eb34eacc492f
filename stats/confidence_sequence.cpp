#include "stats/confidence_sequence.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

namespace isobench::stats {
namespace {

// The last values computed for some keys, kept per thread in `Slots` slots (the slot the key's
// hash picks; the newest key wins it), one table per call site: the looks of Monte Carlo p-values
// ask for the same few values again and again.
template <std::size_t Slots, class Key, class Compute>
auto kept(const Key& key, std::uint64_t hash, Compute&& compute) {
  using Value = decltype(compute());
  struct Slot {
    bool used = false;
    Key key{};
    Value value{};
  };
  thread_local Slot slots[Slots];
  Slot& slot = slots[hash % Slots];
  if (!slot.used || !(slot.key == key)) slot = {true, key, compute()};
  return slot.value;
}

// lgamma(k + shift) for whole k: below kTabled from a table made once by the same expression (the
// same doubles), lgamma itself above. The looks of a Monte Carlo p ask for the same few counts
// again and again: the log-gamma calls were a tenth of calibrate's analysis.
class ShiftedLogGamma {
 public:
  explicit ShiftedLogGamma(double shift) : shift_(shift), values_(kTabled) {
    for (std::size_t k = 0; k < kTabled; ++k) values_[k] = std::lgamma(static_cast<double>(k) + shift_);
  }
  // Above the table, the last counts' values are kept per thread (256 slots): a Monte Carlo p's
  // looks fall at the same counts in every count that goes that far.
  double operator()(std::size_t k) const {
    if (k < kTabled) return values_[k];
    return kept<256>(std::pair{shift_, k}, (k * 0x9E3779B97F4A7C15ull) >> 56,
                     [&] { return std::lgamma(static_cast<double>(k) + shift_); });
  }

 private:
  static constexpr std::size_t kTabled = std::size_t{1} << 14;
  double shift_;
  std::vector<double> values_;
};

// ln of the mixture's marginal likelihood of `hits` in `draws`: the part of ln M_n(p) without p.
double log_mixture(std::size_t hits, std::size_t draws) {
  static const ShiftedLogGamma by_shape(kMixtureShape), by_one(1.0);
  static const double log_shape = std::log(kMixtureShape);
  // lgamma(s + a) + lgamma(f + 1) - lgamma(s + f + 1 + a), s the hits and f the misses.
  return log_shape + by_shape(hits) + by_one(draws - hits) - by_shape(draws + 1);
}

// ln p and ln(1 - p), for ln M_n(p).
struct LogsOf {
  double log_p = 0, log_q = 0;
};

// The same for a level: a Monte Carlo p-value's looks ask about the same few levels again and
// again (their logarithms showed in a calibration's profile: docs/evidence.md#behind-the-code), so
// the last levels' are kept.
LogsOf level_logs(double level) {
  const auto bits = std::bit_cast<std::uint64_t>(level);
  return kept<16>(level, bits ^ (bits >> 29) ^ (bits >> 47),
                  [&] { return LogsOf{std::log(level), std::log1p(-level)}; });
}

// ln M_n(p) given its mixture part, written so that 0 ln 0 = 0 (p = 0 with no hit, p = 1 with no
// miss); at a level, from its kept logarithms (the same doubles).
double log_ratio(double mixture, std::size_t hits, std::size_t draws, double p) {
  const double s = static_cast<double>(hits), f = static_cast<double>(draws - hits);
  const double log_at_p = (s > 0 ? s * std::log(p) : 0.0) + (f > 0 ? f * std::log1p(-p) : 0.0);
  return mixture - log_at_p;
}
double log_ratio(double mixture, std::size_t hits, std::size_t draws, const LogsOf& at) {
  const double s = static_cast<double>(hits), f = static_cast<double>(draws - hits);
  const double log_at_p = (s > 0 ? s * at.log_p : 0.0) + (f > 0 ? f * at.log_q : 0.0);
  return mixture - log_at_p;
}

}  // namespace

ConfidenceSequence::ConfidenceSequence(double risk) : risk_(risk), log_bound_(-std::log(risk)) {
  if (!(risk > 0 && risk < 1)) throw std::invalid_argument("ConfidenceSequence: risk must lie in (0, 1)");
}

bool ConfidenceSequence::contains(std::size_t hits, std::size_t draws, double p) const {
  return log_ratio(log_mixture(hits, draws), hits, draws, level_logs(p)) < log_bound_;
}

ProportionBounds ConfidenceSequence::bounds(std::size_t hits, std::size_t draws) const {
  if (draws == 0) return {};
  // Kept for the last counts asked (64 slots by hits and draws): Monte Carlo p-values that stop
  // at a look with no hit, the most common end in a power simulation, stop at the same few
  // counts, and bisected's bisection takes about 90 logarithms.
  return kept<64>(std::tuple{risk_, hits, draws}, (hits * 0x9E3779B1u + draws * 0x85EBCA77u) >> 7,
                  [&] { return bisected(hits, draws); });
}

ProportionBounds ConfidenceSequence::bisected(std::size_t hits, std::size_t draws) const {
  ProportionBounds b;
  const double centre = static_cast<double>(hits) / static_cast<double>(draws);
  const double mixture = log_mixture(hits, draws);
  // Bisection between a point inside (the centre) and one outside, keeping the inside one.
  const auto edge = [&](double inside, double outside) {
    for (int i = 0; i < 200 && std::abs(outside - inside) > 1e-12 * std::max(std::abs(inside), 1e-300); ++i) {
      const double mid = 0.5 * (inside + outside);
      (log_ratio(mixture, hits, draws, mid) < log_bound_ ? inside : outside) = mid;
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
  const double mixture = log_mixture(hits, draws);
  const auto inside = [&](double p) { return log_ratio(mixture, hits, draws, level_logs(p)) < log_bound_; };
  if (above != levels.end() && inside(*above)) return false;
  if (above != levels.begin() && inside(*std::prev(above))) return false;
  return true;
}

}  // namespace isobench::stats
