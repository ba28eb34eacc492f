#include "stats/multiple_testing.hpp"

#include <doctest/doctest.h>

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
}
