#pragma once
// How the worker turns launches into one sample. One Timer per instance, made after the
// instance's setup; CPU benchmarks get a monotonic-clock timer, CUDA benchmarks an event or graph
// timer on the worker's stream (worker/cuda/). The timed region holds launches and nothing else.

#include <memory>
#include <string>
#include <string_view>
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
  int graph_chunk = 0;                  // timer graph, statistic mean: launches per graph (0: all inner)
};

// How a graph timer lays a sample's launches out: one graph of `graph_launches` launches,
// replayed `replays` times between the sample's events. Capturing all inner launches costs a
// Python benchmark a Python call per launch and an instantiation of that many nodes, once per
// instance and fresh worker; with graph_chunk C below inner, the graph holds ceil(inner / R)
// launches for R = ceil(inner / C) replays: at most C launches, and R * ceil(inner / R), which
// is at least inner and less than inner + R, launches per sample. Statistic min and
// cold_launches keep the single graph of all inner launches: they record events between
// launches, which a replayed graph would record again in every replay.
struct GraphChunks {
  int graph_launches = 1;
  int replays = 1;
  long long launches() const { return static_cast<long long>(graph_launches) * replays; }
  bool chunked() const { return replays > 1; }
};

inline GraphChunks graph_chunks(const TimerOptions& o) {
  const bool chunkable = o.timer == "graph" && o.statistic == SampleStatistic::mean && !o.cold_launches;
  if (!chunkable || o.graph_chunk <= 0 || o.inner <= o.graph_chunk) return {o.inner, 1};
  const long long inner = o.inner;  // in 64 bits: inner and the chunk may each be near INT_MAX
  const long long replays = (inner + o.graph_chunk - 1) / o.graph_chunk;
  return {static_cast<int>((inner + replays - 1) / replays), static_cast<int>(replays)};
}

// What a chunked sample is made of, for a timer's setup note; empty when the graph holds all
// inner launches.
inline std::string graph_chunks_note(const GraphChunks& c, int inner) {
  if (!c.chunked()) return {};
  return "graph of " + std::to_string(c.graph_launches) + " launches replayed " + std::to_string(c.replays) +
         " times per sample (" + std::to_string(c.launches()) + " launches for inner " + std::to_string(inner) +
         ", the value per launch of all of them)";
}

// The start of a graph timer's note when its capture failed and it times with events instead.
inline constexpr std::string_view kGraphFallbackNote = "graph capture failed";

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
