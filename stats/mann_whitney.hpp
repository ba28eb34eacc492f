#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "stats/alternative.hpp"

namespace isobench::stats {

// Null distribution of the Mann-Whitney U statistic without ties (U in 0..n1*n2), computed
// from the Gaussian binomial coefficient [n1+n2 choose n1]_q by additions only.
// Cost about min(n1,n2)^2 (n1+n2)^2 / 4 additions.
class MannWhitneyUDistribution {
 public:
  MannWhitneyUDistribution(std::size_t n1, std::size_t n2);
  double pmf(std::size_t u) const;
  double cdf(std::size_t u) const;  // P(U <= u)
  double sf(std::size_t u) const;   // P(U >= u), as scipy's _MWU.sf (includes the mass at u)
  std::size_t max_u() const { return pmf_.size() - 1; }
  // Whether building it costs at most `budget` additions.
  static bool affordable(std::size_t n1, std::size_t n2, double budget = 2e8);

 private:
  std::vector<double> pmf_;
  std::vector<double> cdf_;
};

enum class MannWhitneyMethod { exact, asymptotic };

struct MannWhitneyResult {
  double u1 = 0;  // U of x: R_x - n_x (n_x + 1) / 2, scipy's statistic
  double p_value = 1;
  MannWhitneyMethod method = MannWhitneyMethod::asymptotic;
};

// Mann-Whitney U test as scipy.stats.mannwhitneyu(x, y, use_continuity, alternative,
// method='auto') in scipy 1.17: exact when there are no ties and min(n_x, n_y) <= 8, otherwise
// normal with tie correction (and continuity correction when asked). One deviation: where the
// exact distribution would cost more than 2e8 additions (a tiny sample against a huge one) the
// normal approximation is used. When every value ties (zero variance) p = 1.
// Throws std::invalid_argument for an empty sample or a value that is not finite.
MannWhitneyResult mann_whitney_u(std::span<const double> x, std::span<const double> y,
                                 Alternative alternative = Alternative::two_sided,
                                 bool continuity = true);

}  // namespace isobench::stats
