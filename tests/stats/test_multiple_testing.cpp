#include "stats/multiple_testing.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "tests/stats/scipy_reference.hpp"

using namespace isobench::stats;
using isobench::stats::testing::agrees;
using isobench::stats::testing::doubles;

TEST_SUITE("multiple_testing") {
  TEST_CASE("Holm and Benjamini-Hochberg agree with the reference") {
    int compared = 0;
    for (const auto& c : isobench::stats::testing::scipy_reference()["multiple_testing"]) {
      const auto p = doubles(c["p"]);
      const auto holm = holm_adjust(p), bh = benjamini_hochberg_adjust(p);
      const auto holm_ref = doubles(c["holm"]), bh_ref = doubles(c["fdr_bh"]);
      REQUIRE(holm.size() == p.size());
      for (std::size_t i = 0; i < p.size(); ++i) {
        CHECK(agrees(holm[i], holm_ref[i]));
        CHECK(agrees(bh[i], bh_ref[i]));
        ++compared;
      }
    }
    CHECK(compared > 200);
  }

  TEST_CASE("by hand") {
    const std::vector<double> p{0.01, 0.04, 0.03, 0.2};
    // Holm: sorted 0.01 0.03 0.04 0.2 -> 0.04 0.09 0.09(max) 0.2
    const auto holm = holm_adjust(p);
    CHECK(holm[0] == doctest::Approx(0.04));
    CHECK(holm[2] == doctest::Approx(0.09));
    CHECK(holm[1] == doctest::Approx(0.09));
    CHECK(holm[3] == doctest::Approx(0.2));
    // BH: 0.01*4/1=0.04, 0.03*4/2=0.06, 0.04*4/3=0.0533, 0.2 -> min from the right: 0.04 .0533 .0533 .2
    const auto bh = benjamini_hochberg_adjust(p);
    CHECK(bh[0] == doctest::Approx(0.04));
    CHECK(bh[2] == doctest::Approx(0.16 / 3));
    CHECK(bh[1] == doctest::Approx(0.16 / 3));
    CHECK(bh[3] == doctest::Approx(0.2));
    CHECK(holm_adjust(std::vector<double>{}).empty());
  }

  TEST_CASE("Holm's decisions depend only on each p's side of Holm's levels") {
    const auto levels = holm_levels(0.01, 4);
    REQUIRE(levels.size() == 4);
    CHECK(levels[0] == doctest::Approx(0.0025));
    CHECK(levels[1] == doctest::Approx(0.01 / 3));
    CHECK(levels[2] == doctest::Approx(0.005));
    CHECK(levels[3] == doctest::Approx(0.01));
    CHECK(holm_levels(0.01, 0).empty());
    // Random p-values near the levels, each then moved anywhere between the same two levels (what
    // a Monte Carlo p resolved at the levels does): the same instances are significant.
    std::mt19937_64 engine(5);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    int changed_values = 0;
    for (int trial = 0; trial < 2000; ++trial) {
      const std::size_t m = 1 + trial % 12;
      const double alpha = 0.001;
      const auto at = holm_levels(alpha, m);
      std::vector<double> p(m), moved(m);
      for (std::size_t i = 0; i < m; ++i) {
        p[i] = alpha * 1.5 * std::pow(unit(engine), 3);  // most below alpha, spread over the levels
        const auto above = std::upper_bound(at.begin(), at.end(), p[i]);
        const double lo = above == at.begin() ? 0.0 : *std::prev(above);
        const double hi = above == at.end() ? 1.0 : *above;
        moved[i] = lo + (hi - lo) * unit(engine);
        if (moved[i] < lo) moved[i] = lo;  // [lo, hi): on the same side of every level
        changed_values += moved[i] != p[i];
      }
      const auto a = holm_adjust(p), b = holm_adjust(moved);
      for (std::size_t i = 0; i < m; ++i) {
        CAPTURE(trial);
        CHECK((a[i] < alpha) == (b[i] < alpha));
      }
    }
    CHECK(changed_values > 10000);
  }
}
