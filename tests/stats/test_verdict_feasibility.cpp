#include "stats/verdict_feasibility.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

using namespace isobench::stats;

TEST_SUITE("verdict_feasibility") {
  TEST_CASE("n = 4..12 per side at alpha 0.001: the most instances Holm allows") {
    // Complete separation's two-sided p is 2 / C(2n, n); Holm multiplies the smallest p by m,
    // so SLOWER is reachable while 2 m < 0.001 C(2n, n). By hand: C(8,4) = 70, C(10,5) = 252,
    // C(12,6) = 924, C(14,7) = 3432, C(16,8) = 12870, C(18,9) = 48620, C(20,10) = 184756,
    // C(22,11) = 705432, C(24,12) = 2704156.
    struct Row {
      std::size_t n;
      std::size_t most;  // largest m that can reach SLOWER; 0: not even one instance
      double smallest_p;
    };
    const Row table[] = {{4, 0, 2.0 / 70},        {5, 0, 2.0 / 252},       {6, 0, 2.0 / 924},
                         {7, 1, 2.0 / 3432},      {8, 6, 2.0 / 12870},     {9, 24, 2.0 / 48620},
                         {10, 92, 2.0 / 184756},  {11, 352, 2.0 / 705432}, {12, 1352, 2.0 / 2704156}};
    for (const Row& row : table) {
      CAPTURE(row.n);
      const auto one = verdict_feasibility(row.n, row.n, 0.001, 1);
      CHECK(one.smallest_p == doctest::Approx(row.smallest_p).epsilon(1e-12));
      CHECK(one.interval_bounded);  // from n = 4 on, 1 / C(2n, n) <= 0.025
      if (row.most == 0) {
        CHECK_FALSE(one.reachable);
        continue;
      }
      const auto at_most = verdict_feasibility(row.n, row.n, 0.001, row.most);
      const auto beyond = verdict_feasibility(row.n, row.n, 0.001, row.most + 1);
      CHECK(at_most.reachable);
      CHECK_FALSE(beyond.reachable);
      CHECK(at_most.smallest_adjusted_p == doctest::Approx(row.most * row.smallest_p).epsilon(1e-12));
      CHECK(at_most.smallest_adjusted_p < 0.001);
      CHECK(beyond.smallest_adjusted_p >= 0.001);
    }
  }

  TEST_CASE("the smallest n per side for m instances at alpha 0.001") {
    CHECK(smallest_feasible_n(0.001, 1) == 7);
    CHECK(smallest_feasible_n(0.001, 2) == 8);
    CHECK(smallest_feasible_n(0.001, 6) == 8);
    CHECK(smallest_feasible_n(0.001, 7) == 9);
    CHECK(smallest_feasible_n(0.001, 9) == 9);  // configs/calibration.yaml's nine kernels
    CHECK(smallest_feasible_n(0.001, 50) == 10);
    CHECK(smallest_feasible_n(0.001, 93) == 11);
    CHECK(smallest_feasible_n(0.001, 1353) == 13);  // C(26,13) = 10400600: up to 5200 instances
    CHECK(smallest_feasible_n(0.001, 100000, 0.95, 12) == 0);
  }

  TEST_CASE("the Hodges-Lehmann interval must be able to exclude the floor") {
    // n = 3 per side: separation's p = 2/20 = 0.1 is below alpha 0.2, but U = 0 already has
    // probability 1/20 > 0.025, so the 95% interval is [0, inf] and no data give SLOWER.
    const auto three = verdict_feasibility(3, 3, 0.2, 1);
    CHECK(three.smallest_p == doctest::Approx(0.1));
    CHECK_FALSE(three.interval_bounded);
    CHECK_FALSE(three.reachable);
    CHECK(smallest_feasible_n(0.2, 1) == 4);
    // Unequal sides: 3 against 7 has 1/C(10,3) = 1/120 <= 0.025, and p = 2/120.
    const auto unequal = verdict_feasibility(3, 7, 0.05, 1);
    CHECK(unequal.interval_bounded);
    CHECK(unequal.reachable);
    CHECK(unequal.smallest_p == doctest::Approx(2.0 / 120));
    CHECK_FALSE(verdict_feasibility(2, 30, 0.001, 1).reachable);  // 2 / C(32, 2) = 2/496
  }

  TEST_CASE("bad arguments throw") {
    CHECK_THROWS_AS(verdict_feasibility(1, 5, 0.001, 1), std::invalid_argument);
    CHECK_THROWS_AS(verdict_feasibility(5, 5, 0.001, 0), std::invalid_argument);
    CHECK_THROWS_AS(verdict_feasibility(5, 5, 0, 1), std::invalid_argument);
    CHECK_THROWS_AS(verdict_feasibility(5, 5, 0.001, 1, 1.0), std::invalid_argument);
  }
}
