#include "stats/power.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "stats/brunner_munzel.hpp"
#include "stats/random.hpp"

using namespace isobench::stats;

namespace {
std::vector<double> pilot_sample() {
  std::mt19937_64 engine(3);
  std::lognormal_distribution<double> noise(0.0, 0.02);
  std::vector<double> pilot(30);
  for (double& v : pilot) v = 1e-4 * noise(engine);
  return pilot;
}
}  // namespace

TEST_SUITE("power") {
  TEST_CASE("power grows with delta and with n") {
    const auto pilot = pilot_sample();
    PowerOptions options;
    options.alpha = 0.01;
    options.repetitions = 300;
    const double small = slowdown_power(pilot, 0.005, 12, options);
    const double medium = slowdown_power(pilot, 0.02, 12, options);
    const double large = slowdown_power(pilot, 0.08, 12, options);
    CHECK(small < medium);
    CHECK(medium < large);
    CHECK(large > 0.95);
    CHECK(slowdown_power(pilot, 0.02, 4, options) < slowdown_power(pilot, 0.02, 24, options));
    // No slowdown: detections are false positives, near alpha.
    CHECK(slowdown_power(pilot, 0.0, 12, options) < 0.05);
  }

  TEST_CASE("power counts the detections of the samples in the order drawn, though it hands them over sorted") {
    // The draws of power.hpp written out in their plain order (a pilot value by index, its
    // jitter), each comparison tested unsorted: slowdown_power sorts each side as it draws, and
    // must count exactly the same detections. The pilot has ties (one value three times) and
    // values closer than the jitter (a relative 1e-10 apart), where the order by pilot value and
    // the order by drawn value differ.
    std::vector<double> pilot = pilot_sample();
    pilot[3] = pilot[7] = pilot[11];
    pilot[5] = pilot[6] * (1 + 1e-10);
    for (const std::size_t n : {std::size_t{6}, std::size_t{20}, std::size_t{90}})
      for (const double delta : {0.0, 0.01, 0.03}) {
        PowerOptions options;
        options.alpha = 0.01;
        options.repetitions = 60;
        std::mt19937_64 engine(options.seed);
        const auto draw = [&] {
          const double v = pilot[uniform_below(engine, pilot.size())];
          const double unit = static_cast<double>(engine() >> 11) * 0x1.0p-53;
          return v * (1 + 1e-9 * unit);
        };
        std::size_t detections = 0;
        std::vector<double> x(n), y(n);
        for (std::size_t rep = 0; rep < options.repetitions; ++rep) {
          for (double& v : x) v = draw();
          for (double& v : y) v = draw() * (1 + delta);
          PermutationOptions permutation;
          permutation.budget = options.budget;
          permutation.levels = {options.alpha};
          const auto r = brunner_munzel(x, y, Alternative::two_sided, BrunnerMunzelDistribution::t, permutation);
          detections += r.p_value < options.alpha && r.relative_effect > 0.5;
        }
        CAPTURE(n);
        CAPTURE(delta);
        CHECK(slowdown_power(pilot, delta, n, options) ==
              static_cast<double>(detections) / static_cast<double>(options.repetitions));
      }
    std::vector<double> bad = pilot_sample();
    bad[2] = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_AS(slowdown_power(bad, 0.01, 8), std::invalid_argument);
  }

  TEST_CASE("sample size reaches the target and the curve crosses it there") {
    const auto pilot = pilot_sample();
    PowerOptions options;
    options.repetitions = 200;
    const auto r = sample_size_for_power(pilot, 0.02, 0.9, 256, options);
    REQUIRE(r.n > 0);
    bool found = false;
    for (std::size_t i = 0; i < r.curve.size(); ++i) {
      if (i > 0) CHECK(r.curve[i - 1].n < r.curve[i].n);
      if (r.curve[i].n == r.n) {
        found = true;
        CHECK(r.curve[i].power >= 0.9);
        if (i > 0) {
          CHECK(r.curve[i - 1].n == r.n - 1);  // bisection pins the boundary
          CHECK(r.curve[i - 1].power < 0.9);
        }
      }
    }
    CHECK(found);
    // At alpha = 0.001 three per side can never be significant (minimum p = 2/20).
    CHECK(r.n > 3);
    CHECK_THROWS_AS(slowdown_power(std::vector<double>{1.0}, 0.05, 10), std::invalid_argument);
  }

  TEST_CASE("the verdict rule: a slowdown inside the noise floor is never SLOWER, one beyond it is") {
    const auto pilot = pilot_sample();  // 2% lognormal noise
    PowerOptions raw;
    raw.alpha = 0.01;
    raw.repetitions = 200;
    PowerOptions verdict = raw;
    verdict.verdict = VerdictRule{0.02, 0.95, 1};
    // 1% slower: the raw test sometimes detects it, but the interval cannot lie above 1.02.
    CHECK(slowdown_power(pilot, 0.01, 24, raw) > 0.1);
    CHECK(slowdown_power(pilot, 0.01, 24, verdict) == 0);
    // 10% slower with 24 samples: the interval clears the floor nearly always.
    CHECK(slowdown_power(pilot, 0.10, 24, verdict) > 0.95);
    // More instances under Holm can only lower it.
    PowerOptions many = verdict;
    many.verdict->instances = 50;
    CHECK(slowdown_power(pilot, 0.05, 12, many) <= slowdown_power(pilot, 0.05, 12, verdict));
  }

  TEST_CASE("sequential power: early stops on a clear slowdown, SAME on identical code") {
    const auto pilot = pilot_sample();
    const auto design = sequential_design({8, 12, 16, 24, 32}, 0.001, 1);
    const auto slow = sequential_slowdown_power(pilot, 0.20, design, 0.02, 200);
    CHECK(slow.slower > 0.95);
    CHECK(slow.mean_samples < 12);  // 20% against 2% noise: separated by the first or second look
    const auto same = sequential_slowdown_power(pilot, 0.0, design, 0.02, 200);
    CHECK(same.slower + same.faster <= 0.01);
    // 2% noise against a 2% floor: the 99% interval fits inside it by n = 32 in most sequences.
    CHECK(same.same > 0.5);
    CHECK(same.mean_samples >= 8);
    CHECK(same.mean_samples <= 32);
  }
}
