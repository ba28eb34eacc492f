// What the power simulations' Monte Carlo budget (stats::kSimulationBudget: a quarter of a
// verdict's draws per p, the verdict's outcome predicted for a p still near its level) changes
// against the verdict's own budget (docs/results/stats-speed.md): power_budget [seeds]
// (default 5). For lognormal pilots of 120 values at 1%, 3% and 5% noise, and for each seed of
// the simulation: the sample size that reaches 90% power for a 5% slowdown under compare's
// verdict rule (alpha 0.001 over 10 instances, Holm's factor at its largest, 2% floor) and the
// power at every n the search evaluated, with both budgets on the same simulated samples; then
// the sequential rule's A/A false-verdict rate and power at 5% (looks 8, 12, 16, 24, 32). The
// seed-to-seed scatter of the verdict budget's own figures is the yardstick: a simulation of
// 1,000 comparisons moves its power by about one point and its sample size by a sample or two
// from seed to seed.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "stats/power.hpp"
#include "stats/sequential_design.hpp"

namespace {

using namespace isobench::stats;

std::vector<double> lognormal_pilot(double sigma, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::lognormal_distribution<double> noise(0.0, sigma);
  std::vector<double> pilot(n);
  for (double& v : pilot) v = 1e-4 * noise(engine);
  return pilot;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t seeds = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 5;
  constexpr std::size_t kInstances = 10;
  const MonteCarloBudget verdict_budget{};  // a verdict's: kDrawsPerLevel, undecided stays above
  std::printf("sample size for 90%% power at a 5%% slowdown, verdict rule (alpha 0.001, m = %zu, floor 2%%), "
              "1000 repetitions\n", kInstances);
  std::printf("%-6s %-5s %9s %9s   power at each n searched (verdict budget / simulation budget)\n", "noise",
              "seed", "n verdict", "n sim");
  std::size_t differ = 0, runs = 0;
  for (double sigma : {0.01, 0.03, 0.05}) {
    const auto pilot = lognormal_pilot(sigma, 120, 1000 + static_cast<std::uint64_t>(sigma * 1000));
    for (std::size_t s = 0; s < seeds; ++s) {
      PowerOptions options;
      options.seed = 20261129 + s;
      options.verdict = VerdictRule{0.02, 0.95, kInstances};
      options.budget = kSimulationBudget;
      const auto sim = sample_size_for_power(pilot, 0.05, 0.90, 512, options);
      options.budget = verdict_budget;
      const auto full = sample_size_for_power(pilot, 0.05, 0.90, 512, options);
      std::printf("%-6.2f %-5zu %9zu %9zu  ", sigma, s, full.n, sim.n);
      for (const auto& point : full.curve) {
        double other = NAN;
        for (const auto& q : sim.curve)
          if (q.n == point.n) other = q.power;
        std::printf(" n=%zu %.3f/%.3f", point.n, point.power, other);
      }
      std::printf("\n");
      differ += full.n != sim.n;
      ++runs;
    }
  }
  std::printf("sample sizes that differ: %zu of %zu\n\n", differ, runs);

  const auto design = sequential_design({8, 12, 16, 24, 32}, 0.001, kInstances);
  std::printf("sequential rule (looks 8, 12, 16, 24, 32, Pocock, m = %zu), 1000 repetitions: verdict budget / "
              "simulation budget\n", kInstances);
  std::printf("%-6s %-5s %21s %21s %25s\n", "noise", "seed", "A/A false verdicts", "power at 5%", "mean n at 5%");
  for (double sigma : {0.01, 0.03, 0.05}) {
    const auto pilot = lognormal_pilot(sigma, 120, 1000 + static_cast<std::uint64_t>(sigma * 1000));
    for (std::size_t s = 0; s < seeds; ++s) {
      const std::uint64_t seed = 20261129 + s;
      const auto aa_full = sequential_slowdown_power(pilot, 0.0, design, 0.02, 1000, seed, verdict_budget);
      const auto aa_sim = sequential_slowdown_power(pilot, 0.0, design, 0.02, 1000, seed, kSimulationBudget);
      const auto full = sequential_slowdown_power(pilot, 0.05, design, 0.02, 1000, seed, verdict_budget);
      const auto sim = sequential_slowdown_power(pilot, 0.05, design, 0.02, 1000, seed, kSimulationBudget);
      std::printf("%-6.2f %-5zu %10.4f / %-8.4f %10.4f / %-8.4f %12.3f / %-10.3f\n", sigma, s,
                  aa_full.slower + aa_full.faster, aa_sim.slower + aa_sim.faster, full.slower, sim.slower,
                  full.mean_samples, sim.mean_samples);
    }
  }
  return 0;
}
