#pragma once
// The sweeps whose verdicts bench_stats times (docs/results/stats-speed.md), with their samples:
// one place, so that the "before" driver of that page times the very same samples.

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace isobench::bench {

struct VerdictSweep {
  const char* name;
  std::size_t instances, n_a, n_b, slowed;  // the first `slowed` instances are slower
  double slowdown, sigma;                   // lognormal noise of sigma on every value
  std::uint64_t seed;
  // The baseline and candidate samples of every instance.
  void draw(std::vector<std::vector<double>>& a, std::vector<std::vector<double>>& b) const {
    std::mt19937_64 engine(seed);
    std::lognormal_distribution<double> noise(0.0, sigma);
    a.assign(instances, {});
    b.assign(instances, {});
    for (std::size_t i = 0; i < instances; ++i) {
      for (std::size_t k = 0; k < n_a; ++k) a[i].push_back(noise(engine));
      const double factor = i < slowed ? 1 + slowdown : 1.0;
      for (std::size_t k = 0; k < n_b; ++k) b[i].push_back(factor * noise(engine));
    }
  }
};

inline constexpr VerdictSweep kVerdictSweeps[] = {
    {"1 instance, 50 per side, A/A", 1, 50, 50, 0, 0.0, 0.05, 11},
    {"1 instance, 50 per side, 4% slower", 1, 50, 50, 1, 0.04, 0.05, 12},
    {"1 instance, 54 vs 49, 4% slower", 1, 54, 49, 1, 0.04, 0.05, 13},
    {"1 instance, 200 per side, A/A", 1, 200, 200, 0, 0.0, 0.05, 14},
    {"1 instance, 200 per side, 4% slower", 1, 200, 200, 1, 0.04, 0.05, 15},
    {"1000 instances, 20 per side, A/A", 1000, 20, 20, 0, 0.0, 0.05, 16},
    {"1000 instances, 20 per side, 50 of them 5% slower (1% noise)", 1000, 20, 20, 50, 0.05, 0.01, 17},
};

}  // namespace isobench::bench
