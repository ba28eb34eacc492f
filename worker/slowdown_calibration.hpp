#pragma once
// The search for the wait that makes an injected slowdown (--slowdown-pct) cost what it claims,
// apart from the clock that measures it, so that it is tested on modelled costs.

#include <algorithm>
#include <cmath>
#include <functional>

namespace isobench::worker {

struct SlowdownCalibration {
  double wait_s = 0;    // the wait chosen, per launch
  double kernel_s = 0;  // the benchmark's own time per launch, at the last step
  double extra_s = 0;   // what the wait measured at the last step, per launch
  bool on_target = false;  // within a point (1% of kernel_s) of the target
};

// What a wait of wait_s seconds per launch adds, measured: sets *kernel_s to the benchmark's own
// time per launch and returns the measured extra per launch.
using MeasureExtra = std::function<double(double wait_s, double* kernel_s)>;

// Up to `steps` rounds: measure the extra of the current wait and move the wait by the
// difference between the target (fraction x kernel time) and that extra, until within 2% of the
// target. A wait that is already at its shortest (2% of the target) yet costs more than the
// target is a floor: the search stops there and on_target says whether it is still within a point.
inline SlowdownCalibration calibrate_wait(double fraction, const MeasureExtra& measure_extra, int steps = 6) {
  SlowdownCalibration c;
  measure_extra(0, &c.kernel_s);
  c.wait_s = fraction * c.kernel_s;
  for (int step = 0; step < steps; ++step) {
    c.extra_s = measure_extra(c.wait_s, &c.kernel_s);
    const double target_s = fraction * c.kernel_s;
    if (std::fabs(c.extra_s - target_s) <= 0.02 * target_s || step + 1 == steps) break;
    if (c.wait_s <= 0.02 * target_s && c.extra_s > target_s) break;
    c.wait_s = std::max(0.02 * target_s, c.wait_s + target_s - c.extra_s);
  }
  c.on_target = std::fabs(c.extra_s - fraction * c.kernel_s) <= 0.01 * c.kernel_s;
  return c;
}

}  // namespace isobench::worker
