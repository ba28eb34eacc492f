// The bimodality gap test (stats/bimodality.hpp) on literal samples: two clusters are flagged,
// a wide unimodal sample and a heavy tail are not.

#include "stats/bimodality.hpp"

#include <doctest/doctest.h>

#include <vector>

using isobench::stats::bimodality;

TEST_CASE("two clusters (the RMSNorm under the graph timer: 7 near 132 us, 8 near 148-154 us)") {
  const std::vector<double> us = {132.1, 148.9, 131.8, 152.3, 132.4, 149.6, 133.0, 154.1,
                                  131.9, 150.2, 132.6, 148.2, 132.2, 153.4, 151.0};
  const auto b = bimodality(us);
  CHECK(b.bimodal);
  CHECK(b.lower == 7);
  CHECK(b.upper == 8);
  CHECK(b.lower_median == doctest::Approx(132.2));
  CHECK(b.upper_median == doctest::Approx(150.6));
  CHECK(b.gap == doctest::Approx(148.2 - 133.0));
}

TEST_CASE("a wide unimodal sample is not bimodal") {
  // 15 draws of a normal with a 10% standard deviation, sorted: no gap stands out.
  const std::vector<double> v = {0.81, 0.86, 0.90, 0.93, 0.95, 0.97, 0.99, 1.00,
                                 1.01, 1.03, 1.05, 1.08, 1.10, 1.14, 1.21};
  CHECK_FALSE(bimodality(v).bimodal);
}

TEST_CASE("a heavy tail is not a second mode") {
  // 1% noise and two samples far slower: too few for a cluster.
  const std::vector<double> v = {1.000, 1.004, 0.996, 1.010, 0.992, 1.002, 0.998, 1.006,
                                 1.001, 0.995, 1.003, 0.999, 1.008, 1.9, 3.5};
  CHECK_FALSE(bimodality(v).bimodal);
}

TEST_CASE("a split within the relative floor, and too few values, are not bimodal") {
  // Two tight clusters 0.5% apart: a gap far beyond their spread, but too small to matter.
  const std::vector<double> close = {1.000, 1.000, 1.000, 1.000, 1.005, 1.005, 1.005, 1.005};
  CHECK_FALSE(bimodality(close).bimodal);
  CHECK(bimodality(std::vector<double>{1.00, 1.00, 1.00, 1.10, 1.10, 1.10}).bimodal);
  CHECK_FALSE(bimodality(std::vector<double>{1.00, 1.00, 1.10, 1.10, 1.10}).bimodal);
}
