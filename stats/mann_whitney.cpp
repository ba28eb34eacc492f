#include "stats/mann_whitney.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <stdexcept>

#include "stats/ranks.hpp"

namespace isobench::stats {

bool MannWhitneyUDistribution::affordable(std::size_t n1, std::size_t n2, double budget) {
  const double k = static_cast<double>(std::min(n1, n2));
  const double n = static_cast<double>(n1 + n2);
  return k * k * n * n / 4 <= budget;
}

MannWhitneyUDistribution::MannWhitneyUDistribution(std::size_t n1, std::size_t n2) {
  const std::size_t k = std::min(n1, n2);
  const std::size_t total = n1 + n2;
  // counts[j] holds the coefficients of [N choose j]_q for the current N; the number of
  // labellings with U = u is the coefficient of q^u in [n1+n2 choose n1]_q.
  // Recurrence: [N, j] = [N-1, j-1] + q^j [N-1, j], updated in place from high j to low.
  std::vector<std::vector<double>> counts(k + 1);
  counts[0] = {1.0};
  for (std::size_t big_n = 1; big_n <= total; ++big_n) {
    for (std::size_t j = std::min(k, big_n); j >= 1; --j) {
      std::vector<double>& current = counts[j];  // [N-1, j], degree j (N-1-j)
      const std::vector<double>& lower = counts[j - 1];  // [N-1, j-1]
      const std::size_t degree = j * (big_n - j);
      std::vector<double> next(degree + 1, 0.0);
      for (std::size_t u = 0; u < lower.size(); ++u) next[u] += lower[u];
      if (big_n - 1 >= j)
        for (std::size_t u = 0; u < current.size(); ++u) next[u + j] += current[u];
      current = std::move(next);
    }
  }
  pmf_ = std::move(counts[k]);
  double labellings = 0;
  for (double c : pmf_) labellings += c;
  cdf_.resize(pmf_.size());
  double running = 0;
  for (std::size_t u = 0; u < pmf_.size(); ++u) {
    pmf_[u] /= labellings;
    running += pmf_[u];
    cdf_[u] = running;
  }
}

double MannWhitneyUDistribution::pmf(std::size_t u) const { return u < pmf_.size() ? pmf_[u] : 0.0; }

double MannWhitneyUDistribution::cdf(std::size_t u) const {
  return u < cdf_.size() ? cdf_[u] : 1.0;
}

double MannWhitneyUDistribution::sf(std::size_t u) const {
  // Sum the smaller tail, using the symmetry P(U >= u) = P(U <= n1 n2 - u).
  const std::size_t top = max_u();
  if (u > top) return 0.0;
  const std::size_t complement = top - u;
  if (u < complement) return 1.0 - cdf(u) + pmf(u);
  return cdf(complement);
}

MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y,
                                 Alternative alternative, bool continuity) {
  if (x.empty() || y.empty()) throw std::invalid_argument("mann_whitney_u: empty sample");
  for (auto sample : {x, y})
    for (double v : sample)
      if (!std::isfinite(v)) throw std::invalid_argument("mann_whitney_u: value is not finite");
  const std::size_t n1 = x.size(), n2 = y.size();
  std::vector<double> pooled(x.begin(), x.end());
  pooled.insert(pooled.end(), y.begin(), y.end());
  const Midranks ranks = midranks(pooled);
  double r1 = 0;
  for (std::size_t i = 0; i < n1; ++i) r1 += ranks.rank[i];
  const auto d1 = static_cast<double>(n1), d2 = static_cast<double>(n2);
  MannWhitneyResult result;
  result.u1 = r1 - d1 * (d1 + 1) / 2;
  const double u2 = d1 * d2 - result.u1;
  double u = 0, factor = 1;
  switch (alternative) {
    case Alternative::greater: u = result.u1; break;
    case Alternative::less: u = u2; break;
    case Alternative::two_sided: u = std::max(result.u1, u2); factor = 2; break;
  }
  const bool exact = !(n1 > 8 && n2 > 8) && !ranks.has_ties && MannWhitneyUDistribution::affordable(n1, n2);
  double p = 1;
  if (exact) {
    result.method = MannWhitneyMethod::exact;
    p = MannWhitneyUDistribution(n1, n2).sf(static_cast<std::size_t>(std::llround(u)));
  } else {
    result.method = MannWhitneyMethod::asymptotic;
    const double n = d1 + d2;
    const double s = std::sqrt(d1 * d2 / 12 * ((n + 1) - ranks.tie_term / (n * (n - 1))));
    if (s > 0) {
      double numerator = u - d1 * d2 / 2;
      if (continuity) numerator -= 0.5;
      const double z = numerator / s;
      p = boost::math::cdf(boost::math::complement(boost::math::normal_distribution<double>(), z));
    }
  }
  result.p_value = std::clamp(p * factor, 0.0, 1.0);
  return result;
}

}  // namespace isobench::stats
