#include "stats/power.hpp"

#include <doctest/doctest.h>

#include <random>
#include <stdexcept>
#include <vector>

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
}
