#pragma once

#include <span>

#include "stats/alternative.hpp"

namespace isobench::stats {

enum class BrunnerMunzelDistribution { t, normal };

// How the p-value was obtained.
enum class BrunnerMunzelMethod {
  asymptotic,  // Student t (Welch-Satterthwaite df) or normal, as scipy.stats.brunnermunzel
  separation,  // every x below every y (or above): exact permutation p-value, see below
  all_tied,    // all values equal: no evidence of a difference, p = 1
};

struct BrunnerMunzelResult {
  // scipy's statistic: n_x n_y (mean rank of y - mean rank of x) / ((n_x+n_y) sqrt(...)).
  // Positive when y tends to be larger. +-infinity at separation, 0 when all tied.
  double statistic = 0;
  double df = 0;  // Welch-Satterthwaite df; NaN for the normal distribution and defined cases
  double p_value = 1;
  // Estimated P(X < Y) + P(X = Y) / 2: 0.5 means no tendency, 1 means y always larger.
  double relative_effect = 0.5;
  BrunnerMunzelMethod method = BrunnerMunzelMethod::asymptotic;
};

// Brunner-Munzel test of x against y, O((n+m) log(n+m)). Alternatives mean what they mean for
// scipy.stats.brunnermunzel(x, y, alternative=...). Where scipy returns NaN (and, for the
// normal distribution at separation, a bare 0 or 1 from an infinite statistic) this returns:
//  - all values equal: statistic 0, p = 1 for every alternative (method all_tied);
//  - complete separation (max x < min y or max y < min x, the rank variances vanish): the
//    p-value of the permutation test that relabels the pooled values, with the relative
//    effect as statistic. The observed labelling is the most extreme one, so the tail holds
//    exactly the labellings that separate the same way (one) and, two-sided, the other way
//    (one if the pooled order allows it): p = count / C(n+m, n), exact for any size, e.g.
//    n = m = 3 gives 1/20 one-sided in the observed direction, 2/20 two-sided, 1 against it.
// Throws std::invalid_argument when a sample has fewer than 2 values or a value is not finite.
BrunnerMunzelResult brunner_munzel(std::span<const double> x, std::span<const double> y,
                                   Alternative alternative = Alternative::two_sided,
                                   BrunnerMunzelDistribution distribution =
                                       BrunnerMunzelDistribution::t);

}  // namespace isobench::stats
