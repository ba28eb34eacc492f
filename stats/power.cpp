#include "stats/power.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

#include "stats/brunner_munzel.hpp"
#include "stats/random.hpp"

namespace isobench::stats {

double slowdown_power(std::span<const double> pilot, double delta, std::size_t n,
                      const PowerOptions& options) {
  if (pilot.size() < 2) throw std::invalid_argument("slowdown_power: the pilot needs at least 2 values");
  if (n < 2) throw std::invalid_argument("slowdown_power: n must be at least 2");
  if (options.repetitions == 0) throw std::invalid_argument("slowdown_power: zero repetitions");
  std::mt19937_64 engine(options.seed);
  std::vector<double> baseline(n), candidate(n);
  std::size_t detections = 0;
  for (std::size_t rep = 0; rep < options.repetitions; ++rep) {
    for (double& v : baseline) v = pilot[uniform_below(engine, pilot.size())];
    for (double& v : candidate) v = pilot[uniform_below(engine, pilot.size())] * (1 + delta);
    const BrunnerMunzelResult r = brunner_munzel(baseline, candidate);
    if (r.p_value < options.alpha && r.relative_effect > 0.5) ++detections;
  }
  return static_cast<double>(detections) / static_cast<double>(options.repetitions);
}

SampleSizeResult sample_size_for_power(std::span<const double> pilot, double delta, double target,
                                       std::size_t max_n, const PowerOptions& options) {
  SampleSizeResult result;
  auto evaluate = [&](std::size_t n) {
    const double power = slowdown_power(pilot, delta, n, options);
    result.curve.push_back({n, power});
    return power;
  };
  std::size_t below = 0;  // largest evaluated n known to miss the target
  std::size_t reached = 0;
  for (std::size_t n = 2; n <= max_n;) {
    if (evaluate(n) >= target) {
      reached = n;
      break;
    }
    below = n;
    // 2, 3, 4, 6, 8, 12, 16, ...: alternately x1.5 and x4/3.
    const std::size_t next = (n & (n - 1)) == 0 ? n + n / 2 : n / 3 * 4;
    n = std::max(next, n + 1);
  }
  if (reached != 0) {
    std::size_t lo = below, hi = reached;  // power(lo) < target <= power(hi)
    while (lo != 0 && hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (evaluate(mid) >= target)
        hi = mid;
      else
        lo = mid;
    }
    result.n = hi;
  }
  std::sort(result.curve.begin(), result.curve.end(),
            [](const PowerPoint& a, const PowerPoint& b) { return a.n < b.n; });
  return result;
}

}  // namespace isobench::stats
