#include "stats/descriptive.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "tests/stats/scipy_reference.hpp"

using namespace isobench::stats;
using isobench::stats::testing::agrees;
using isobench::stats::testing::doubles;

TEST_SUITE("descriptive") {
  TEST_CASE("quantiles agree with numpy.percentile (linear)") {
    int compared = 0;
    for (const auto& c : isobench::stats::testing::scipy_reference()["two_sample"]) {
      auto x = doubles(c["x"]);
      std::sort(x.begin(), x.end());
      const auto q = doubles(c["percentiles"]["q"]), expected = doubles(c["percentiles"]["x"]);
      for (std::size_t i = 0; i < q.size(); ++i) {
        CAPTURE(q[i]);
        CHECK(agrees(quantile_sorted(x, q[i] / 100), expected[i]));
        ++compared;
      }
    }
    CHECK(compared > 1000);
  }

  TEST_CASE("summary of a small sample, by hand") {
    const std::vector<double> v{2, 4, 4, 4, 5, 5, 7, 9, 100};
    const Descriptive d = describe(v);
    CHECK(d.n == 9);
    CHECK(d.min == 2);
    CHECK(d.max == 100);
    CHECK(d.mean == doctest::Approx(140.0 / 9));
    CHECK(d.median == 5);
    CHECK(d.q1 == 4);
    CHECK(d.q3 == 7);
    CHECK(d.iqr == 3);
    // |v - 5| = 3 1 1 1 0 0 2 4 95 -> median 1
    CHECK(d.mad_raw == 1);
    CHECK(d.mad_scaled == doctest::Approx(1.4826));
    CHECK(d.sd == doctest::Approx(31.729761703766037));  // numpy.std(v, ddof=1)
    CHECK(d.cv == doctest::Approx(d.sd / d.mean));
    // modified z: 0.6745 * |v - 5| / 1 > 3.5 for 100 and 9 (2.698 no), 2 (2.02 no)
    CHECK(d.outlier_count == 1);
    CHECK(d.outlier[8]);
    CHECK_FALSE(d.outlier[7]);
  }

  TEST_CASE("zero MAD flags nothing; median of even count averages") {
    const std::vector<double> v{1, 1, 1, 1, 50};
    const Descriptive d = describe(v);
    CHECK(d.mad_raw == 0);
    CHECK(d.outlier_count == 0);
    CHECK(median(std::vector<double>{4, 1, 3, 2}) == 2.5);
    CHECK_THROWS_AS(describe(std::vector<double>{}), std::invalid_argument);
  }
}
