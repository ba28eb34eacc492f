#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace isobench::stats {

struct PowerOptions {
  double alpha = 0.001;
  std::size_t repetitions = 1000;  // simulated comparisons per (delta, n)
  std::uint64_t seed = 20261129;
};

// Power of the two-sided Brunner-Munzel test (Student t; permutation p at separation) to
// detect a slowdown of `delta` (0.05 = 5%) with n samples per side: each repetition draws n
// values with replacement from the pilot for the baseline and n more, multiplied by 1+delta,
// for the candidate; a detection is p < alpha with the candidate tending larger. The same seed
// gives the same draws for every delta and n (common random numbers), so curves are smooth.
// Throws std::invalid_argument for a pilot of fewer than 2 values, n < 2 or zero repetitions.
double slowdown_power(std::span<const double> pilot, double delta, std::size_t n,
                      const PowerOptions& options = {});

struct PowerPoint {
  std::size_t n = 0;
  double power = 0;
};

struct SampleSizeResult {
  std::vector<PowerPoint> curve;  // every n evaluated, ascending
  std::size_t n = 0;              // smallest n reaching the target; 0 when none up to max_n
};

// Smallest n in [2, max_n] whose power reaches `target`, assuming power grows with n: powers
// on the grid 2, 3, 4, 6, 8, 12, 16, 24, ... (up to max_n), then bisection between the last
// grid point below the target and the first at or above it.
SampleSizeResult sample_size_for_power(std::span<const double> pilot, double delta = 0.05,
                                       double target = 0.90, std::size_t max_n = 512,
                                       const PowerOptions& options = {});

}  // namespace isobench::stats
