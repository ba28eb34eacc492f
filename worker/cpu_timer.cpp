#include <chrono>
#include <limits>

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

// Times CPU benchmarks with the monotonic clock. slowdown_pct adds a real busy wait after each
// launch, sized once from the benchmark's own launch time, so an injected regression costs
// what it claims.
class CpuTimer final : public Timer {
 public:
  CpuTimer(kernels::Benchmark& bench, const TimerOptions& options) : bench_(bench), options_(options) {
    if (options_.slowdown_pct > 0) {
      double best = std::numeric_limits<double>::infinity();
      for (int i = 0; i < 5; ++i) {
        const auto t0 = Clock::now();
        bench_.launch();
        best = std::min(best, seconds_since(t0));
      }
      extra_s_ = best * options_.slowdown_pct / 100.0;
    }
  }

  Measurement measure() override {
    Measurement m;
    const int inner = std::max(1, options_.inner);
    // A CPU kernel runs while it is "queued": its host time is its wall time.
    if (options_.statistic == SampleStatistic::mean) {
      const auto t0 = Clock::now();
      for (int i = 0; i < inner; ++i) launch_once();
      m.sample.value_s = seconds_since(t0) / inner;
      m.sample.host_enqueue_s = m.sample.value_s;
    } else {
      double best = std::numeric_limits<double>::infinity();
      double total = 0;
      for (int i = 0; i < inner; ++i) {
        const auto t0 = Clock::now();
        launch_once();
        const double took = seconds_since(t0);
        best = std::min(best, took);
        total += took;
      }
      m.sample.value_s = best;
      m.sample.host_enqueue_s = total / inner;
    }
    return m;
  }

 private:
  void launch_once() {
    bench_.launch();
    if (extra_s_ > 0) spin_for(extra_s_);
  }

  kernels::Benchmark& bench_;
  TimerOptions options_;
  double extra_s_ = 0;
};

}  // namespace

std::unique_ptr<Timer> make_cpu_timer(kernels::Benchmark& bench, const TimerOptions& options) {
  return std::make_unique<CpuTimer>(bench, options);
}

}  // namespace isobench::worker
