#include "stats/wilson_interval.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

using namespace isobench::stats;

namespace {
struct Reference {
  std::size_t successes, trials;
  double confidence, lower, upper;
};

// The Wilson score formula evaluated independently in Python with scipy 1.17.1
// (z = scipy.stats.norm.isf((1 - confidence) / 2)), the same expression as statsmodels'
// proportion_confint(count, nobs, alpha=1-confidence, method="wilson"). At 0 and at all
// successes the bound is 0 (1) exactly; Python's rounding noise there (2e-19, 1-1e-16) is not kept.
const Reference kReference[] = {
    {0, 10, 0.95, 0, 0.2775327998628892},
    {1, 10, 0.95, 0.017876213095072896, 0.40415002679523848},
    {5, 10, 0.95, 0.236593090512564, 0.76340690948743606},
    {10, 10, 0.95, 0.72246720013711074, 1},
    {0, 1000, 0.95, 0, 0.0038267584855551234},
    {1, 1000, 0.95, 0.00017654637062607809, 0.0056425585979579355},
    {3, 3000, 0.95, 0.00034014721903916404, 0.0029361438088361469},
    {27, 100, 0.95, 0.19269584149576341, 0.36432116767944994},
    {999, 1000, 0.95, 0.99435744140204207, 0.99982345362937386},
    {1, 1, 0.95, 0.20654931437723745, 1},
    {0, 10, 0.99, 0, 0.39885409330490812},
    {1, 10, 0.99, 0.011851503411032943, 0.50723177123289354},
    {5, 10, 0.99, 0.18422551824723549, 0.81577448175276457},
    {10, 10, 0.99, 0.60114590669509194, 1},
    {0, 1000, 0.99, 0, 0.0065911649034068286},
    {1, 1000, 0.99, 0.00011741635361832078, 0.0084605662199816935},
    {3, 3000, 0.99, 0.00025262417712601103, 0.0039497139967922361},
    {27, 100, 0.99, 0.17264834127297218, 0.39597317507630642},
    {999, 1000, 0.99, 0.9915394337800183, 0.99988258364638161},
    {1, 1, 0.99, 0.13097754328018596, 1},
};
}  // namespace

TEST_SUITE("wilson_interval") {
  TEST_CASE("matches the Wilson score interval computed with scipy") {
    for (const auto& ref : kReference) {
      CAPTURE(ref.successes);
      CAPTURE(ref.trials);
      CAPTURE(ref.confidence);
      const auto r = wilson_interval(ref.successes, ref.trials, ref.confidence);
      CHECK(r.estimate == doctest::Approx(double(ref.successes) / double(ref.trials)).epsilon(1e-15));
      CHECK(r.lower == doctest::Approx(ref.lower).epsilon(1e-12));
      CHECK(r.upper == doctest::Approx(ref.upper).epsilon(1e-12));
      CHECK(r.lower <= r.estimate);
      CHECK(r.estimate <= r.upper);
    }
  }

  TEST_CASE("zero trials is uninformative; bad arguments throw") {
    const auto r = wilson_interval(0, 0);
    CHECK(r.estimate == 0);
    CHECK(r.lower == 0);
    CHECK(r.upper == 1);
    CHECK_THROWS_AS(wilson_interval(3, 2), std::invalid_argument);
    CHECK_THROWS_AS(wilson_interval(1, 2, 1.0), std::invalid_argument);
    CHECK_THROWS_AS(wilson_interval(1, 2, 0.0), std::invalid_argument);
  }
}
