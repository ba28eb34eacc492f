#include "stats/permutation_test.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "stats/random.hpp"

using namespace isobench::stats;

TEST_SUITE("permutation_test") {
  TEST_CASE("seeded draws are reproducible and the engine is the standard one") {
    std::mt19937_64 engine(5489);
    CHECK(engine() == 14514284786278117030ull);  // std::mt19937_64 default-seed first output
    std::mt19937_64 a(1), b(1);
    for (int i = 0; i < 100; ++i) {
      const auto v = uniform_below(a, 7);
      CHECK(v < 7);
      CHECK(v == uniform_below(b, 7));
    }
  }

  TEST_CASE("separated samples are significant, identical ones are not") {
    const std::vector<double> x{1, 2, 3, 4, 5, 6, 7, 8}, y{11, 12, 13, 14, 15, 16, 17, 18};
    const auto r = median_difference_permutation_test(x, y, Alternative::two_sided, 20000, 1);
    CHECK(r.statistic == -10);
    // Exact two-sided p over all C(16, 8) labellings (scipy.stats.permutation_test with
    // n_resamples=inf): 0.003108; 20000 draws have a standard error of 0.0004.
    CHECK(r.p_value == doctest::Approx(0.003108).epsilon(0.4));
    CHECK(std::abs(r.p_value - 0.003108) < 0.0012);
    CHECK(median_difference_permutation_test(x, y, Alternative::less, 2000, 1).p_value < 0.01);
    CHECK(median_difference_permutation_test(x, y, Alternative::greater, 2000, 1).p_value > 0.99);
    const auto same = median_difference_permutation_test(x, x, Alternative::two_sided, 2000, 1);
    CHECK(same.statistic == 0);
    CHECK(same.p_value == 1.0);
  }

  TEST_CASE("same seed, same p; p has the (1 + count) / (1 + B) form") {
    const std::vector<double> x{1.0, 1.3, 0.9, 1.1, 1.2}, y{1.25, 1.4, 1.05, 1.5, 1.35, 1.3};
    const auto a = median_difference_permutation_test(x, y, Alternative::two_sided, 999, 42);
    const auto b = median_difference_permutation_test(x, y, Alternative::two_sided, 999, 42);
    CHECK(a.p_value == b.p_value);
    const double count = a.p_value * 1000 - 1;
    CHECK(count == doctest::Approx(std::round(count)));
    CHECK(a.p_value > 0.01);
    CHECK(a.p_value < 0.5);
  }
}
