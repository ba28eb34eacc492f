#pragma once

#include <cstddef>

namespace isobench::stats {

struct ProportionInterval {
  double estimate = 0;  // successes / trials; 0 when trials == 0
  double lower = 0;
  double upper = 1;
};

// Wilson score interval of a binomial proportion (statsmodels' proportion_confint(method=
// "wilson")). Unlike the normal (Wald) interval it stays inside [0, 1] and keeps a width at 0
// successes, which is what a false-positive rate of 0 out of a few hundred comparisons needs:
// 0/1000 gives [0, 0.38%] at 95%. trials == 0 gives the uninformative [0, 1].
// Throws std::invalid_argument when successes > trials or confidence is not in (0, 1).
ProportionInterval wilson_interval(std::size_t successes, std::size_t trials, double confidence = 0.95);

}  // namespace isobench::stats
