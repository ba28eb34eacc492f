#include "stats/hodges_lehmann.hpp"

#include <algorithm>
#include <bit>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "stats/mann_whitney.hpp"

namespace isobench::stats {
namespace {

// Maps doubles to integers in the same order, so bisection can walk every double between two.
std::int64_t order_key(double v) {
  const auto bits = std::bit_cast<std::int64_t>(v);
  return bits >= 0 ? bits : std::numeric_limits<std::int64_t>::min() - bits;
}
double from_order_key(std::int64_t key) {
  return std::bit_cast<double>(key >= 0 ? key : std::numeric_limits<std::int64_t>::min() - key);
}

// Number of pairs with upper_j - lower_i <= t, both ascending, in O(n+m): the difference grows
// with j and shrinks with i (floating subtraction keeps both orders), so the cut in j only moves
// right as i grows.
std::uint64_t count_at_most(const std::vector<double>& lower, const std::vector<double>& upper, double t) {
  std::uint64_t count = 0;
  std::size_t j = 0;
  for (std::size_t i = 0; i < lower.size(); ++i) {
    while (j < upper.size() && upper[j] - lower[i] <= t) ++j;
    count += j;
  }
  return count;
}

class PairwiseDifferences {
 public:
  PairwiseDifferences(std::vector<double> lower, std::vector<double> upper)
      : lower_(std::move(lower)), upper_(std::move(upper)) {
    // Few pairs (n m <= 64 (n + m), 20 per side: 400): every difference at hand, each order
    // statistic a selection, where a bisection costs 64 counts of n + m steps. Both give the
    // same double, the k-th smallest of the same differences; only the bisection needs the
    // samples sorted.
    if (pairs() <= 64 * (lower_.size() + upper_.size())) {
      all_.reserve(pairs());
      for (double l : lower_)
        for (double u : upper_) all_.push_back(u - l);
      return;
    }
    for (auto* sample : {&lower_, &upper_})
      if (!std::is_sorted(sample->begin(), sample->end())) std::sort(sample->begin(), sample->end());
  }

  // The k-th smallest difference, k in 1..n*m.
  double order_statistic(std::uint64_t k) {
    if (!all_.empty()) {
      const auto kth = all_.begin() + static_cast<std::ptrdiff_t>(k - 1);
      std::nth_element(all_.begin(), kth, all_.end());
      return *kth;
    }
    std::int64_t lo = order_key(upper_.front() - lower_.back());  // smallest difference
    std::int64_t hi = order_key(upper_.back() - lower_.front());  // largest
    while (lo < hi) {
      // The keys span more than int64 allows as a difference: halve it unsigned.
      const std::int64_t mid = lo + static_cast<std::int64_t>(
                                        (static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo)) / 2);
      if (count_at_most(lower_, upper_, from_order_key(mid)) >= k)
        hi = mid;
      else
        lo = mid + 1;
    }
    return from_order_key(lo);
  }

  std::uint64_t pairs() const { return static_cast<std::uint64_t>(lower_.size()) * upper_.size(); }

 private:
  std::vector<double> lower_, upper_;
  std::vector<double> all_;  // every difference, in no particular order, where there are few
};

std::vector<double> logs(std::span<const double> values, const char* name) {
  if (values.empty()) throw std::invalid_argument(std::string("hodges_lehmann_ratio: empty ") + name);
  std::vector<double> out;
  out.reserve(values.size());
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v))
      throw std::invalid_argument(std::string("hodges_lehmann_ratio: ") + name +
                                  " holds a value that is not a positive finite number");
    out.push_back(std::log(v));
  }
  return out;
}

}  // namespace

namespace {

// The rank from the exact U distribution (building it is O(k^2 (n+m)^2 / 4)), or from the normal
// approximation where that would cost more.
std::uint64_t compute_interval_rank(std::size_t n, std::size_t m, double confidence) {
  // Largest k with P(U <= k-1) <= tail (0 when even k = 1 fails).
  const double tail = (1 - confidence) / 2;
  const std::uint64_t pairs_half = static_cast<std::uint64_t>(n) * m / 2;
  if (MannWhitneyUDistribution::affordable(n, m, 2e7)) {
    const MannWhitneyUDistribution distribution(n, m);
    std::uint64_t k = 0;
    while (k <= distribution.max_u() && distribution.cdf(k) <= tail) ++k;
    return std::min(k, pairs_half);
  }
  const double nm = static_cast<double>(n) * static_cast<double>(m);
  const double z = boost::math::quantile(boost::math::complement(boost::math::normal_distribution<double>(), tail));
  const double k = std::round(nm / 2 - z * std::sqrt(nm * static_cast<double>(n + m + 1) / 12));
  return k < 0 ? 0 : std::min(static_cast<std::uint64_t>(k), pairs_half);
}

}  // namespace

std::uint64_t hodges_lehmann_interval_rank(std::size_t n, std::size_t m, double confidence) {
  // Kept per (n, m, confidence): a power simulation asks for the same few thousand times (the
  // distribution's construction was a sixth of calibrate's analysis).
  static std::mutex mutex;
  static std::map<std::tuple<std::size_t, std::size_t, double>, std::uint64_t> known;
  const auto key = std::tuple{n, m, confidence};
  {
    std::lock_guard lock(mutex);
    if (const auto it = known.find(key); it != known.end()) return it->second;
  }
  const std::uint64_t k = compute_interval_rank(n, m, confidence);
  std::lock_guard lock(mutex);
  known.emplace(key, k);
  return k;
}

namespace {

void check_confidence(double confidence) {
  if (!(confidence > 0 && confidence < 1))
    throw std::invalid_argument("hodges_lehmann_ratio: confidence must lie strictly between 0 and 1");
}

HodgesLehmannRatio estimate(std::span<const double> baseline, std::span<const double> candidate, double confidence,
                            bool with_ratio) {
  check_confidence(confidence);
  PairwiseDifferences differences(logs(baseline, "baseline"), logs(candidate, "candidate"));
  const std::uint64_t pairs = differences.pairs();
  HodgesLehmannRatio result;
  result.confidence = confidence;
  result.ratio = std::numeric_limits<double>::quiet_NaN();
  if (with_ratio) {
    const double middle =
        pairs % 2 == 1 ? differences.order_statistic(pairs / 2 + 1)
                       : 0.5 * (differences.order_statistic(pairs / 2) + differences.order_statistic(pairs / 2 + 1));
    result.ratio = std::exp(middle);
  }
  const std::uint64_t k = hodges_lehmann_interval_rank(baseline.size(), candidate.size(), confidence);
  if (k == 0) {
    result.lo = 0;
    result.hi = std::numeric_limits<double>::infinity();
  } else {
    result.lo = std::exp(differences.order_statistic(k));
    result.hi = std::exp(differences.order_statistic(pairs + 1 - k));
  }
  return result;
}

}  // namespace

HodgesLehmannRatio hodges_lehmann_ratio(std::span<const double> baseline, std::span<const double> candidate,
                                        double confidence) {
  return estimate(baseline, candidate, confidence, true);
}

HodgesLehmannRatio hodges_lehmann_interval(std::span<const double> baseline, std::span<const double> candidate,
                                           double confidence) {
  return estimate(baseline, candidate, confidence, false);
}

bool hodges_lehmann_lower_exceeds(std::span<const double> baseline, std::span<const double> candidate,
                                  double confidence, double bound) {
  check_confidence(confidence);
  std::vector<double> lower = logs(baseline, "baseline"), upper = logs(candidate, "candidate");
  const std::uint64_t k = hodges_lehmann_interval_rank(baseline.size(), candidate.size(), confidence);
  if (k == 0) return 0.0 > bound;  // the interval is [0, +inf]
  // Cuts either side of ln(bound), far enough that exp (within an ulp) puts every difference
  // beyond them on its side of bound; where bound leaves no such cuts (not a positive finite
  // number, or exp too coarse there), the interval itself answers.
  const double cut = std::log(bound);
  const double gap = 1e-12 * std::max(1.0, std::abs(cut));
  const double below = cut - gap, above = cut + gap;
  const bool cuts_hold = bound > 0 && std::isfinite(cut) && std::exp(above) > bound * (1 + 1e-14) &&
                         std::exp(below) < bound * (1 - 1e-14);
  if (cuts_hold) {
    for (auto* sample : {&lower, &upper})
      if (!std::is_sorted(sample->begin(), sample->end())) std::sort(sample->begin(), sample->end());
    if (count_at_most(lower, upper, above) < k) return true;    // the k-th difference lies above `above`
    if (count_at_most(lower, upper, below) >= k) return false;  // at or below `below`
  }
  return estimate(baseline, candidate, confidence, false).lo > bound;
}

}  // namespace isobench::stats
