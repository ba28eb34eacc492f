// calibrate_wait (worker/slowdown_calibration.hpp) on modelled costs: a wait that costs more or
// less than asked is corrected to within 2% of the target; a wait with a floor above the target
// stops at its shortest and says it missed.

#include "worker/slowdown_calibration.hpp"

#include <doctest/doctest.h>

using isobench::worker::calibrate_wait;

namespace {

// A benchmark of kernel_s whose wait costs floor_s + gain x the wait (0 when there is none).
isobench::worker::MeasureExtra model(double kernel_s, double floor_s, double gain) {
  return [=](double wait_s, double* k) {
    *k = kernel_s;
    return wait_s > 0 ? floor_s + gain * wait_s : 0.0;
  };
}

}  // namespace

TEST_CASE("a wait that costs exactly what it waits lands at once") {
  const auto c = calibrate_wait(0.05, model(100e-6, 0, 1));
  CHECK(c.wait_s == doctest::Approx(5e-6));
  CHECK(c.extra_s == doctest::Approx(5e-6));
  CHECK(c.on_target);
}

TEST_CASE("a wait with overhead and a gain off 1 is corrected to within 2% of the target") {
  // 1 us of overhead and 1.3 times the wait: the first wait (5 us) costs 7.5 us, +7.5%.
  const auto c = calibrate_wait(0.05, model(100e-6, 1e-6, 1.3));
  CHECK(c.extra_s == doctest::Approx(5e-6).epsilon(0.02));
  CHECK(c.on_target);
  CHECK(c.wait_s < 5e-6);
}

TEST_CASE("a wait whose floor exceeds the target stops at its shortest and says it missed") {
  // 50 ns of kernel, 40 ns of clock reads for the shortest wait: +80% at least, asked 5%.
  const auto c = calibrate_wait(0.05, model(50e-9, 40e-9, 1));
  CHECK_FALSE(c.on_target);
  CHECK(c.extra_s > 0.5 * c.kernel_s);
  CHECK(c.wait_s == doctest::Approx(0.02 * 0.05 * 50e-9));
}

TEST_CASE("a floor within a point of the target still counts as on target") {
  // target 5 us on 100 us; the shortest wait costs 5.8 us: 0.8 point over.
  const auto c = calibrate_wait(0.05, model(100e-6, 5.8e-6, 1));
  CHECK(c.extra_s > 5e-6);
  CHECK(c.on_target);
}
