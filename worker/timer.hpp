#pragma once
// How the worker turns launches into one sample. One Timer per instance, made after the
// instance's setup; CPU benchmarks get a monotonic-clock timer, CUDA benchmarks an event or graph
// timer on the worker's stream (worker/cuda/). The timed region holds launches and nothing else.

#include <memory>
#include <string>
#include <vector>

#include "ipc/sample.hpp"
#include "kernels/benchmark.hpp"

namespace isobench::worker {

enum class SampleStatistic { mean, min };  // of the inner launches

struct TimerOptions {
  int inner = 1;                        // launches per sample, pinned by calibration
  SampleStatistic statistic = SampleStatistic::mean;
  std::string timer = "events";         // "events" or "graph" (CUDA); CPU ignores it
  bool cold_cache = false;              // flush L2 before each sample (CUDA)
  bool cold_launches = false;           // flush L2 before every launch, each timed alone (CUDA)
  bool blocking_kernel = false;         // hold the stream until all launches are queued (CUDA)
  double slowdown_pct = 0;              // extra cost added per launch, for power experiments
};

// What a timer measured: the sample's value, its SM clock, its host enqueue time and its flags
// (ipc/sample.hpp); the session adds where and when (begin, end, inner, kernel GPU time).
struct Measurement {
  ipc::SampleValues sample;
  std::string note;  // why a flag was raised, for the log
};

class Timer {
 public:
  virtual ~Timer() = default;
  // Runs `options.inner` launches of the benchmark and reduces them to one value.
  virtual Measurement measure() = 0;
  // Said once per instance (e.g. "graph capture failed: ...; timing with events").
  virtual std::string setup_note() const { return {}; }
};

std::unique_ptr<Timer> make_cpu_timer(kernels::Benchmark& bench, const TimerOptions& options);

}  // namespace isobench::worker
