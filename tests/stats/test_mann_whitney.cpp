#include "stats/mann_whitney.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "tests/stats/scipy_reference.hpp"

using namespace isobench::stats;
using isobench::stats::testing::agrees;
using isobench::stats::testing::doubles;

TEST_SUITE("mann_whitney") {
  TEST_CASE("agrees with scipy.stats.mannwhitneyu(method='auto', use_continuity=True)") {
    int compared = 0, exact = 0, tiny = 0;
    for (const auto& c : isobench::stats::testing::scipy_reference()["two_sample"]) {
      const auto x = doubles(c["x"]), y = doubles(c["y"]);
      for (const auto& [alt_name, expected] : c["mannwhitneyu"].items()) {
        const Alternative alt = alt_name == "less"      ? Alternative::less
                                : alt_name == "greater" ? Alternative::greater
                                                        : Alternative::two_sided;
        const auto r = mann_whitney_u(x, y, alt);
        CAPTURE(c["kind"].get<std::string>());
        CAPTURE(alt_name);
        CAPTURE(x.size());
        CAPTURE(y.size());
        CHECK((r.method == MannWhitneyMethod::exact) == (c["mannwhitneyu_method"] == "exact"));
        REQUIRE_FALSE(expected["pvalue"].is_null());
        CHECK(agrees(r.p_value, expected["pvalue"].get<double>()));
        CHECK(agrees(r.u1, expected["statistic"].get<double>()));
        ++compared;
        if (r.method == MannWhitneyMethod::exact) ++exact;
        if (expected["pvalue"].get<double>() < 1e-12) ++tiny;
      }
    }
    MESSAGE("compared " << compared << " p-values with scipy, " << exact << " from the exact distribution, "
                        << tiny << " below 1e-12");
    CHECK(compared > 600);
    CHECK(exact > 100);
    CHECK(tiny >= 10);  // compared to nine digits like the rest (scipy_reference.hpp)
  }

  TEST_CASE("exact U distribution by hand: n1 = n2 = 2") {
    // Labellings of 4 values into 2+2: U = 0,1,2,2,3,4 -> pmf 1,1,2,1,1 / 6.
    const MannWhitneyUDistribution d(2, 2);
    CHECK(d.max_u() == 4);
    CHECK(d.pmf(0) == doctest::Approx(1.0 / 6));
    CHECK(d.pmf(2) == doctest::Approx(2.0 / 6));
    CHECK(d.cdf(1) == doctest::Approx(2.0 / 6));
    CHECK(d.sf(3) == doctest::Approx(2.0 / 6));
    CHECK(d.sf(0) == doctest::Approx(1.0));
  }

  TEST_CASE("all values tied gives p = 1") {
    const std::vector<double> x(10, 1.0), y(12, 1.0);
    CHECK(mann_whitney_u(x, y).p_value == 1.0);
  }
}
