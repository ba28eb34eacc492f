#include "stats/hodges_lehmann.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

using namespace isobench::stats;

namespace {
// Direct O(nm log nm) reference: sort all pairwise log differences.
std::vector<double> all_differences(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> d;
  for (double x : a)
    for (double y : b) d.push_back(std::log(y) - std::log(x));
  std::sort(d.begin(), d.end());
  return d;
}
}  // namespace

TEST_SUITE("hodges_lehmann") {
  TEST_CASE("estimate equals the median of pairwise log ratios") {
    std::mt19937_64 engine(7);
    std::lognormal_distribution<double> noise(0.0, 0.1);
    for (int n : {2, 3, 7, 20}) {
      for (int m : {2, 5, 20, 101}) {
        std::vector<double> a(n), b(m);
        for (double& v : a) v = 1e-5 * noise(engine);
        for (double& v : b) v = 1.1e-5 * noise(engine);
        const auto d = all_differences(a, b);
        const std::size_t k = d.size();
        const double med = k % 2 ? d[k / 2] : 0.5 * (d[k / 2 - 1] + d[k / 2]);
        const auto r = hodges_lehmann_ratio(a, b);
        CAPTURE(n);
        CAPTURE(m);
        CHECK(std::log(r.ratio) == doctest::Approx(med).epsilon(1e-12));
        CHECK(r.lo <= r.ratio);
        CHECK(r.ratio <= r.hi);
      }
    }
  }

  TEST_CASE("the estimate and interval are the sorted differences' order statistics, with few pairs and many") {
    // Up to 64 (n + m) pairs the differences are selected from all of them; beyond, bisected.
    // Both must give the very doubles a full sort gives.
    std::mt19937_64 engine(11);
    std::lognormal_distribution<double> noise(0.0, 0.05);
    for (const auto& [n, m] : {std::pair<std::size_t, std::size_t>{20, 20}, {3, 40}, {129, 129}, {300, 200}}) {
      std::vector<double> a(n), b(m);
      for (double& v : a) v = noise(engine);
      for (double& v : b) v = 1.03 * noise(engine);
      const auto d = all_differences(a, b);
      const auto r = hodges_lehmann_ratio(a, b, 0.95);
      const std::size_t pairs = d.size(), k = hodges_lehmann_interval_rank(n, m, 0.95);
      const double middle = pairs % 2 == 1 ? d[pairs / 2] : 0.5 * (d[pairs / 2 - 1] + d[pairs / 2]);
      CAPTURE(n);
      CAPTURE(m);
      REQUIRE(k >= 1);
      CHECK(r.ratio == std::exp(middle));
      CHECK(r.lo == std::exp(d[k - 1]));
      CHECK(r.hi == std::exp(d[pairs - k]));
      // The interval alone: the same doubles, no estimate.
      const auto interval = hodges_lehmann_interval(a, b, 0.95);
      CHECK(interval.lo == r.lo);
      CHECK(interval.hi == r.hi);
      CHECK(std::isnan(interval.ratio));
      // The rank is kept per size: asked again, the same.
      CHECK(hodges_lehmann_interval_rank(n, m, 0.95) == k);
    }
  }

  TEST_CASE("interval from the exact U distribution, by hand for n = m = 5") {
    // P(U <= 2) = 4/252 = 0.0159 <= 0.025 < P(U <= 3) = 7/252: k = 3 at 95%.
    const std::vector<double> a{1, 2, 3, 4, 5}, b{1.5, 2.5, 3.5, 4.5, 6};
    const auto d = all_differences(a, b);
    const auto r = hodges_lehmann_ratio(a, b, 0.95);
    CHECK(std::log(r.lo) == doctest::Approx(d[2]));
    CHECK(std::log(r.hi) == doctest::Approx(d[25 - 3]));
  }

  TEST_CASE("the interval covers the true ratio of a constructed shift") {
    std::mt19937_64 engine(11);
    std::lognormal_distribution<double> noise(0.0, 0.05);
    int covered = 0;
    const int trials = 200;
    for (int t = 0; t < trials; ++t) {
      std::vector<double> a(40), b(40);
      for (double& v : a) v = 2e-3 * noise(engine);
      for (double& v : b) v = 1.07 * 2e-3 * noise(engine);
      const auto r = hodges_lehmann_ratio(a, b, 0.95);
      if (r.lo <= 1.07 && 1.07 <= r.hi) ++covered;
    }
    // Coverage 95% nominal: 200 trials put at least 180 inside with overwhelming probability.
    CHECK(covered >= 180);
    // A large constructed case pins the estimate near the truth.
    std::vector<double> a(3000), b(3000);
    for (double& v : a) v = 1e-4 * noise(engine);
    for (double& v : b) v = 1.07e-4 * noise(engine);
    const auto r = hodges_lehmann_ratio(a, b, 0.99);
    CHECK(r.lo < 1.07);
    CHECK(r.hi > 1.07);
    CHECK(r.ratio == doctest::Approx(1.07).epsilon(0.005));
    CHECK(r.hi / r.lo < 1.02);
  }

  TEST_CASE("tiny samples give the whole half-line; bad input throws") {
    const auto r = hodges_lehmann_ratio(std::vector<double>{1, 2}, std::vector<double>{3, 4}, 0.95);
    CHECK(r.lo == 0);
    CHECK(std::isinf(r.hi));
    CHECK_THROWS_AS(hodges_lehmann_ratio(std::vector<double>{1, 0}, std::vector<double>{3}), std::invalid_argument);
    CHECK_THROWS_AS(hodges_lehmann_ratio(std::vector<double>{}, std::vector<double>{3}), std::invalid_argument);
    CHECK_THROWS_AS(hodges_lehmann_ratio(std::vector<double>{1}, std::vector<double>{3}, 1.0), std::invalid_argument);
  }
  TEST_CASE("hodges_lehmann_lower_exceeds answers as the interval's lower end does, at its very double too") {
    std::mt19937_64 engine(29);
    std::lognormal_distribution<double> noise(0.0, 0.04);
    int by_counts = 0, at_the_end = 0;
    for (const auto& [n, m] : {std::pair<std::size_t, std::size_t>{13, 13}, {20, 24}, {48, 48}, {3, 40}, {129, 129}}) {
      for (int rep = 0; rep < 20; ++rep) {
        std::vector<double> a(n), b(m);
        for (double& v : a) v = noise(engine);
        for (double& v : b) v = (1 + 0.01 * rep) * noise(engine);
        if (rep % 2 == 1) std::sort(a.begin(), a.end()), std::sort(b.begin(), b.end());  // sorted or not
        if (rep % 5 == 0)  // ties
          for (double& v : b) v = std::round(v * 100) / 100;
        const double lo = hodges_lehmann_interval(a, b, 0.95).lo;
        CAPTURE(n);
        CAPTURE(rep);
        // Floors far from the end, and the end itself with its neighbouring doubles (the exact path).
        for (double bound : {1.02, 1.05, 0.9, lo * 0.99, lo * 1.01}) {
          CHECK(hodges_lehmann_lower_exceeds(a, b, 0.95, bound) == (lo > bound));
          ++by_counts;
        }
        for (double bound : {lo, std::nextafter(lo, 0.0), std::nextafter(lo, 2.0)}) {
          CHECK(hodges_lehmann_lower_exceeds(a, b, 0.95, bound) == (lo > bound));
          ++at_the_end;
        }
      }
    }
    // Bounds with no cuts either side: not positive, infinite.
    const std::vector<double> a{1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7}, b{2, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7};
    const double lo = hodges_lehmann_interval(a, b, 0.95).lo;
    for (double bound : {0.0, -1.0, std::numeric_limits<double>::infinity()})
      CHECK(hodges_lehmann_lower_exceeds(a, b, 0.95, bound) == (lo > bound));
    // Too few values for an interval: [0, inf], nothing exceeds a positive bound.
    CHECK_FALSE(hodges_lehmann_lower_exceeds(std::vector<double>{1, 2}, std::vector<double>{3, 4}, 0.95, 1.0));
    CHECK(hodges_lehmann_lower_exceeds(std::vector<double>{1, 2}, std::vector<double>{3, 4}, 0.95, -1.0));
    CHECK_THROWS_AS(hodges_lehmann_lower_exceeds(std::vector<double>{1, 0}, std::vector<double>{3}, 0.95, 1.0),
                    std::invalid_argument);
    CHECK_THROWS_AS(hodges_lehmann_lower_exceeds(a, b, 1.0, 1.0), std::invalid_argument);
    CHECK(by_counts == 500);
    CHECK(at_the_end == 300);
  }
}
