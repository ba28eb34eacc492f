#include "stats/change_point.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <stdexcept>
#include <string>

namespace isobench::stats {

double ChangePoint::forward_change() const { return mean_before == 0 ? 0 : mean_after / mean_before - 1; }

double ChangePoint::magnitude() const {
  const double backward = mean_after == 0 ? 0 : mean_before / mean_after - 1;
  return std::max(std::abs(forward_change()), std::abs(backward));
}

namespace {

struct Moments {
  double mean = 0, stddev = 0;  // population standard deviation, as numpy.std
};

Moments moments(std::span<const double> values) {
  Moments m;
  for (double v : values) m.mean += v;
  m.mean /= static_cast<double>(values.size());
  if (values.size() < 2) return m;
  double squares = 0;
  for (double v : values) squares += (v - m.mean) * (v - m.mean);
  m.stddev = std::sqrt(squares / static_cast<double>(values.size()));
  return m;
}

// Otava's TTestSignificanceTester.compare: scipy's ttest_ind_from_stats (pooled variance,
// two-sided) on the population standard deviations.
ChangePoint t_test(std::span<const double> before, std::span<const double> after) {
  const Moments l = moments(before), r = moments(after);
  ChangePoint cp;
  cp.mean_before = l.mean;
  cp.mean_after = r.mean;
  cp.stddev_before = l.stddev;
  cp.stddev_after = r.stddev;
  const double n1 = static_cast<double>(before.size()), n2 = static_cast<double>(after.size());
  if (n1 + n2 <= 2) return cp;  // p = 1, as Otava
  const double df = n1 + n2 - 2;
  const double pooled = ((n1 - 1) * l.stddev * l.stddev + (n2 - 1) * r.stddev * r.stddev) / df;
  const double denom = std::sqrt(pooled * (1 / n1 + 1 / n2));
  const double difference = l.mean - r.mean;
  if (denom == 0) {
    cp.p_value = difference == 0 ? 1 : 0;  // scipy: NaN (see the header) or t = +-inf
    return cp;
  }
  const double t = std::abs(difference / denom);
  cp.p_value = std::min(1.0, 2 * boost::math::cdf(boost::math::complement(boost::math::students_t(df), t)));
  return cp;
}

// Half-open [begin, end) pieces of a series of `length` cut at the sorted change points.
struct Interval {
  std::size_t begin, end;
};
std::vector<Interval> intervals(const std::vector<ChangePoint>& cps, std::size_t length) {
  std::vector<Interval> out;
  std::size_t begin = 0;
  for (const auto& cp : cps) {
    if (cp.index != begin) out.push_back({begin, cp.index});
    begin = cp.index;
  }
  if (begin != length) out.push_back({begin, length});
  return out;
}

// A candidate's statistics, as Otava's TTestSignificanceTester.change_point: a new candidate
// inside an interval is tested between the interval's two parts; an existing change point (an
// interval ends there) between the interval before it and the one after.
ChangePoint tested(std::span<const double> series, const std::vector<Interval>& pieces, std::size_t index,
                   double qhat) {
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const Interval& piece = pieces[i];
    std::size_t left_begin, right_end;
    if (piece.end == index && i + 1 < pieces.size()) {
      left_begin = piece.begin;
      right_end = pieces[i + 1].end;
    } else if (piece.begin < index && index < piece.end) {
      left_begin = piece.begin;
      right_end = piece.end;
    } else {
      continue;
    }
    ChangePoint cp = t_test(series.subspan(left_begin, index - left_begin), series.subspan(index, right_end - index));
    cp.index = index;
    cp.qhat = qhat;
    return cp;
  }
  throw std::logic_error("change point " + std::to_string(index) + " lies in no interval");
}

// Otava's ChangePointDetector on one window: E-divisive cuts while the t test passes.
std::vector<ChangePoint> detect(std::span<const double> window, double max_p) {
  std::vector<ChangePoint> cps;
  for (;;) {
    const auto pieces = intervals(cps, window.size());
    bool found = false;
    SplitCandidate best;
    for (const auto& piece : pieces) {
      if (piece.end - piece.begin < 2) continue;
      const SplitCandidate c = best_split(window, piece.begin, piece.end);
      if (!found || c.qhat > best.qhat) best = c;  // Python's max(): the first on ties
      found = true;
    }
    if (!found) break;
    const ChangePoint cp = tested(window, pieces, best.index, best.qhat);
    if (!(cp.p_value <= max_p)) break;
    cps.insert(std::upper_bound(cps.begin(), cps.end(), cp.index,
                                [](std::size_t i, const ChangePoint& c) { return i < c.index; }),
               cp);
  }
  return cps;
}

void check(std::span<const double> series, const ChangePointOptions& options) {
  if (options.window < 2) throw std::invalid_argument("change_points: the window must hold at least 2 values");
  if (!(options.max_p > 0 && options.max_p <= 1)) throw std::invalid_argument("change_points: max_p must lie in (0, 1]");
  if (!(options.min_magnitude >= 0)) throw std::invalid_argument("change_points: min_magnitude must be >= 0");
  for (double v : series)
    if (!std::isfinite(v)) throw std::invalid_argument("change_points: a value of the series is not finite");
}

// Otava's first-pass threshold: the split step keeps more (weak) candidates than the merge step.
double first_pass_p(double max_p) { return max_p < 0.05 ? max_p * 10 : max_p < 0.5 ? max_p * 2 : max_p; }

std::vector<ChangePoint> split(std::span<const double> series, std::size_t window, double max_p) {
  std::vector<ChangePoint> found;
  const std::size_t step = window / 2;
  for (std::size_t start = 0; start < series.size();) {
    const std::size_t end = std::min(start + window, series.size());
    auto fresh = detect(series.subspan(start, end - start), max_p);
    for (auto& cp : fresh) cp.index += start;
    const std::size_t last = fresh.empty() ? 0 : fresh.back().index;
    start = std::max(last, start + step);
    for (const auto& cp : fresh)
      if (std::none_of(found.begin(), found.end(), [&](const ChangePoint& c) { return c.index == cp.index; }))
        found.push_back(cp);
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  const auto pieces = intervals(found, series.size());
  for (auto& cp : found) cp = tested(series, pieces, cp.index, cp.qhat);
  return found;
}

}  // namespace

SplitCandidate best_split(std::span<const double> series, std::size_t begin, std::size_t end) {
  if (end > series.size() || end < begin + 2) throw std::invalid_argument("best_split: needs an interval of 2 values or more");
  const std::size_t n = end - begin;
  const auto d = [&](std::size_t i, std::size_t j) { return std::abs(series[begin + i] - series[begin + j]); };
  // below[k][t] = sum of d(t', k) over t' < t: the distances from k to the values before t.
  std::vector<std::vector<double>> below(n, std::vector<double>(n + 1, 0));
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t t = 0; t < n; ++t) below[k][t + 1] = below[k][t] + d(t, k);
  // Otava evaluates q-hat(X = [0, tau), Y = [tau, kappa)) for every 0 < tau < kappa <= n as a
  // matrix Q[tau - 1][kappa - 2] that is 0 below the diagonal, and takes numpy's argmax: the first
  // largest in row-major order, zeros included (they win when every split scores below 0).
  SplitCandidate best{1, 0};
  bool first = true;
  double within_x = 0;  // pairs inside [0, tau)
  for (std::size_t tau = 1; tau < n; ++tau) {
    if (tau >= 2) within_x += below[tau - 1][tau - 1];
    const double nx = static_cast<double>(tau);
    double across = 0, within_y = 0;
    for (std::size_t kappa = 2; kappa <= n; ++kappa) {
      double q = 0;
      if (kappa > tau) {
        const std::size_t k = kappa - 1;  // the value Y gains
        across += below[k][tau];
        within_y += below[k][k] - below[k][tau];
        const double total = static_cast<double>(kappa), ny = static_cast<double>(kappa - tau);
        q = 2 / total * across;
        if (nx > 1) q -= 2 * ny / (total * (nx - 1)) * within_x;
        if (ny > 1) q -= 2 * nx / (total * (ny - 1)) * within_y;
      }
      if (first || q > best.qhat) best = {begin + tau, q};
      first = false;
    }
  }
  return best;
}

std::vector<ChangePoint> weak_change_points(std::span<const double> series, const ChangePointOptions& options) {
  check(series, options);
  return split(series, options.window, first_pass_p(options.max_p));
}

std::vector<ChangePoint> change_points(std::span<const double> series, const ChangePointOptions& options) {
  std::vector<ChangePoint> cps = weak_change_points(series, options);
  while (!cps.empty()) {
    // The weakest: the largest p (the first on ties, as Python's max); once every p passes, the
    // smallest change, kept when even that one is larger than min_magnitude.
    auto weakest = std::max_element(cps.begin(), cps.end(), [](const auto& a, const auto& b) { return a.p_value < b.p_value; });
    if (weakest->p_value < options.max_p) {
      weakest = std::min_element(cps.begin(), cps.end(),
                                 [](const auto& a, const auto& b) { return a.magnitude() < b.magnitude(); });
      if (weakest->magnitude() > options.min_magnitude) return cps;
    }
    const std::size_t k = static_cast<std::size_t>(weakest - cps.begin());
    cps.erase(weakest);
    const auto pieces = intervals(cps, series.size());
    for (std::size_t i : {k, k + 1})  // Otava's positions k and k+1 after the deletion (see the header)
      if (i < cps.size()) cps[i] = tested(series, pieces, cps[i].index, cps[i].qhat);
  }
  return cps;
}

}  // namespace isobench::stats
