#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "stats/sequential_design.hpp"

namespace isobench::stats {

// The verdict compare ships, as a detection rule: SLOWER needs Holm's adjusted p below alpha and
// the Hodges-Lehmann interval (at `confidence`) wholly above 1 + threshold. One instance
// simulated alone cannot know the other instances' p-values, so Holm's factor is taken at its
// largest, m (the factor of the smallest p): the power of that instance when it is the only
// one that changed, and a lower bound otherwise.
struct VerdictRule {
  double threshold = 0.02;
  double confidence = 0.95;
  std::size_t instances = 1;
};

struct PowerOptions {
  double alpha = 0.001;
  std::size_t repetitions = 1000;  // simulated comparisons per (delta, n)
  std::uint64_t seed = 20261129;
  // Unset: the raw test, two-sided Brunner-Munzel p < alpha with the candidate tending larger.
  std::optional<VerdictRule> verdict;
  // Called every few repetitions when set: a caller stops a long simulation by throwing from it.
  std::function<void()> checkpoint;
  // How far each simulated p is drawn (studentized_permutation.hpp): a quarter of a verdict's
  // draws, and the verdict's outcome predicted for a p still near its level then
  // (bench/power_budget compares it with the verdict's own budget).
  MonteCarloBudget budget = kSimulationBudget;
};

// Power to detect a slowdown of `delta` (0.05 = 5%) with n samples per side: each repetition
// draws n values with replacement from the pilot for the baseline and n more, multiplied by
// 1+delta, for the candidate, and applies the rule of `options`. Resampling a finite pilot
// repeats values that new measurements would not repeat, so every drawn value is also moved by
// a relative jitter below 1e-9 (far below any timing noise): the test sees untied samples, as
// it would on new measurements, and takes its per-size permutation tables. The same seed gives
// the same draws for every delta and n (common random numbers), so curves are smooth.
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

// The sequential rule (sequential_design.hpp) on simulated sequences, drawn as for
// slowdown_power up to the design's last look: the share of instances it stops SLOWER (power;
// with delta = 0 the false-positive rate, FASTER counting too), SAME, and the mean samples per
// side it took.
struct SequentialPower {
  double slower = 0;
  double faster = 0;
  double same = 0;
  double mean_samples = 0;
};
SequentialPower sequential_slowdown_power(std::span<const double> pilot, double delta,
                                          const SequentialDesign& design, double threshold,
                                          std::size_t repetitions = 1000, std::uint64_t seed = 20261129,
                                          const MonteCarloBudget& budget = kSimulationBudget);

}  // namespace isobench::stats
