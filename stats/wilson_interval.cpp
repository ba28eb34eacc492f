#include "stats/wilson_interval.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <boost/math/distributions/normal.hpp>

namespace isobench::stats {

ProportionInterval wilson_interval(std::size_t successes, std::size_t trials, double confidence) {
  if (successes > trials) throw std::invalid_argument("wilson_interval: more successes than trials");
  if (!(confidence > 0 && confidence < 1)) throw std::invalid_argument("wilson_interval: confidence must be in (0, 1)");
  if (trials == 0) return {};
  const double n = static_cast<double>(trials);
  const double p = static_cast<double>(successes) / n;
  const double z = boost::math::quantile(boost::math::complement(boost::math::normal(), (1 - confidence) / 2));
  const double z2 = z * z;
  const double denominator = 1 + z2 / n;
  const double center = (p + z2 / (2 * n)) / denominator;
  const double half = z * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator;
  ProportionInterval r;
  r.estimate = p;
  // At 0 (or all) successes the bound is 0 (1) exactly; the formula leaves rounding noise there.
  r.lower = successes == 0 ? 0.0 : std::max(0.0, center - half);
  r.upper = successes == trials ? 1.0 : std::min(1.0, center + half);
  return r;
}

}  // namespace isobench::stats
