#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "slowdown_calibration.hpp"
#include "timer.hpp"

namespace isobench::worker {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void spin_for(double seconds) {
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
  }
}

// Times CPU benchmarks with the monotonic clock.
//
// slowdown_pct adds a real busy wait inside the timed region, sized in the sampling path itself
// so that a sample measures what the benchmark costs times 1 + pct/100:
//   statistic mean: one wait of inner x the extra per launch, after a sample's inner launches. A
//     wait after every launch costs at least its two clock reads (tens of nanoseconds), more than
//     5% of a sub-microsecond benchmark by itself; one per sample spreads that floor over inner.
//   statistic min: the minimum is taken over single launches, so the wait follows every launch;
//     its floor cannot be spread, and the note says when it already exceeds the target.
// Calibration (calibrate_wait, worker/slowdown_calibration.hpp): kCalibrationSamples samples with
// the wait and as many without, alternating (as measure() takes them), give the benchmark's own
// time and the extra the wait adds; the wait moves by the difference between the target and that
// extra until it is within 2% of the target (a tenth of a point at 5%). setup_note() says what was reached;
// calibrate's report measures it again from the runs' samples.
class CpuTimer final : public Timer {
 public:
  CpuTimer(kernels::Benchmark& bench, const TimerOptions& options) : bench_(bench), options_(options) {
    if (options_.slowdown_pct > 0) calibrate_slowdown();
  }

  Measurement measure() override {
    Measurement m;
    const int inner = std::max(1, options_.inner);
    // A CPU kernel runs while it is "queued": its host time is its wall time.
    if (options_.statistic == SampleStatistic::mean) {
      const auto t0 = Clock::now();
      for (int i = 0; i < inner; ++i) bench_.launch();
      if (wait_per_launch_s_ > 0) spin_for(wait_per_launch_s_ * inner);
      m.sample.value_s = seconds_since(t0) / inner;
      m.sample.host_enqueue_s = m.sample.value_s;
    } else {
      double best = std::numeric_limits<double>::infinity();
      double total = 0;
      for (int i = 0; i < inner; ++i) {
        const auto t0 = Clock::now();
        bench_.launch();
        if (wait_per_launch_s_ > 0) spin_for(wait_per_launch_s_);
        const double took = seconds_since(t0);
        best = std::min(best, took);
        total += took;
      }
      m.sample.value_s = best;
      m.sample.host_enqueue_s = total / inner;
    }
    return m;
  }

  std::string setup_note() const override { return setup_note_; }

 private:
  static constexpr int kCalibrationSamples = 15;

  // The median extra per launch that a wait of wait_s adds: samples with and without it
  // alternate, so that a change of the machine's load falls on both medians alike.
  double measured_extra(double wait_s, double* plain_s) {
    std::vector<double> with, without;
    for (int i = 0; i < kCalibrationSamples; ++i) {
      wait_per_launch_s_ = 0;
      without.push_back(measure().sample.value_s);
      wait_per_launch_s_ = wait_s;
      with.push_back(measure().sample.value_s);
    }
    *plain_s = median(without);
    return median(with) - *plain_s;
  }

  static double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
  }

  void calibrate_slowdown() {
    const auto c = calibrate_wait(options_.slowdown_pct / 100.0,
                                  [&](double wait_s, double* kernel_s) { return measured_extra(wait_s, kernel_s); });
    wait_per_launch_s_ = c.wait_s;
    const double kernel_s = c.kernel_s, extra_s = c.extra_s, target_s = options_.slowdown_pct / 100.0 * kernel_s;
    std::ostringstream note;
    note << "slowdown " << options_.slowdown_pct << "%: benchmark " << kernel_s * 1e6 << " us per launch, wait "
         << (options_.statistic == SampleStatistic::mean ? "once per sample" : "after every launch") << " for "
         << wait_per_launch_s_ * 1e6 << " us per launch; measured +" << extra_s * 1e6 << " us per launch = "
         << (kernel_s > 0 ? extra_s / kernel_s * 100 : 0) << "% slower";
    if (!c.on_target)
      note << " (more than a point from the target" << (extra_s > target_s ? ": the wait's floor?" : "") << ")";
    setup_note_ = note.str();
  }

  kernels::Benchmark& bench_;
  TimerOptions options_;
  double wait_per_launch_s_ = 0;
  std::string setup_note_;
};

}  // namespace

std::unique_ptr<Timer> make_cpu_timer(kernels::Benchmark& bench, const TimerOptions& options) {
  return std::make_unique<CpuTimer>(bench, options);
}

}  // namespace isobench::worker
