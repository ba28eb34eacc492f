// The CUDA timer. Per sample, in stream order:
//
//   [L2 flush memset] [blocking kernel] start-event  launch (spin) launch (spin) ...  stop-event
//   |------------------ untimed ------|------------------ timed -----------------|
//
// then the host releases the blocking kernel, waits for the stop event and reads the SM clock.
// Nothing synchronises between the start and stop events; NVML is read before anything of the
// sample is queued and after the stop event completed.
//
// statistic mean: one event pair around all inner launches, divided by inner.
// statistic min:  an event between consecutive launches (inner + 1 events), the shortest gap.
// timer graph:    the inner launches (and their events, for min) captured once into a CUDA
//                 graph and replayed per sample; if capture fails the timer falls back to
//                 events and says so in setup_note() and in every Measurement.
// graph_chunk:    with statistic mean, a graph of at most graph_chunk launches instead, replayed
//                 as often as the inner launches need (GraphChunks, worker/timer.hpp), the
//                 replays back to back between the start and stop events:
//                   start [graph: launch ... launch] [graph] ... [graph] (spin) stop
//                 The value per launch divides by the launches made (replays * graph launches,
//                 at least inner). A Python benchmark's capture is a Python call per launch: a
//                 graph of thousands took a fresh worker a few hundred milliseconds, untimed.
//                 Statistic min and cold_launches capture all inner launches as before (their
//                 events sit between launches, and a replay would record them again).
// cold_cache:     one cudaMemsetAsync over a buffer of twice the L2 size, allocated once
//                 (allocating it per sample cost nvbench up to a second per sample, #100).
// cold_launches:  that flush before every launch instead, each launch between its own pair of
//                 events, inner times: [flush] start launch stop [flush] start launch stop ...
//                 (in a graph the memsets and events are nodes of it). The sample is the mean
//                 of those launch times (the shortest, statistic min): triton.testing.do_bench's
//                 way, with inner (auto: min_sample_time) setting how long the card runs so.
// blocking_kernel: a one-thread kernel spins on a host-mapped flag while the host queues the
//                 sample, so the launches run back to back instead of at the host's launch rate;
//                 it gives up after kBlockingTimeoutNs (flag "blocking_timeout") so a full launch
//                 queue (the host blocks before it can release the flag) cannot hang the worker.
// slowdown_pct:   a spin kernel on the same stream, inside the timed region; see
//                 calibrate_slowdown().

#include "cuda_timer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "kernels/cuda/device_buffer.hpp"
#include "worker/cuda/cuda_check.hpp"

namespace isobench::worker {

namespace {

constexpr unsigned long long kBlockingTimeoutNs = 5'000'000'000ull;
constexpr double kLowClockFraction = 0.9;

__device__ inline unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_cycles_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// Spins for `ns` nanoseconds of the GPU's global timer: a fixed length of time whatever the SM
// clock does (a long GEMM lowers it on an H200, which would stretch a cycle count).
__global__ void spin_ns_kernel(unsigned long long ns) {
  const unsigned long long start = global_timer_ns();
  while (global_timer_ns() - start < ns) {
  }
}

__global__ void blocking_kernel(const volatile int* release, volatile int* timed_out,
                                unsigned long long timeout_ns) {
  const unsigned long long start = global_timer_ns();
  while (*release == 0) {
    if (global_timer_ns() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
  }
}

class Event {
 public:
  Event() { ISOBENCH_CUDA_CHECK(cudaEventCreate(&event_)); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

double seconds_between(const Event& a, const Event& b) {
  float ms = 0;
  ISOBENCH_CUDA_CHECK(cudaEventElapsedTime(&ms, a.get(), b.get()));
  return double(ms) * 1e-3;
}

// Two ints of pinned, device-mapped host memory: [0] release flag, [1] timed-out flag.
class MappedFlags {
 public:
  MappedFlags() {
    void* host = nullptr;
    ISOBENCH_CUDA_CHECK(cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped));
    host_ = static_cast<volatile int*>(host);
    host_[0] = host_[1] = 0;
    ISOBENCH_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host, 0));
  }
  ~MappedFlags() { cudaFreeHost(const_cast<int*>(host_)); }
  MappedFlags(const MappedFlags&) = delete;
  MappedFlags& operator=(const MappedFlags&) = delete;
  volatile int* host() { return host_; }
  int* device() { return device_; }

 private:
  volatile int* host_ = nullptr;
  int* device_ = nullptr;
};

class GraphExec {
 public:
  GraphExec() = default;
  ~GraphExec() {
    if (exec_) cudaGraphExecDestroy(exec_);
  }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  cudaGraphExec_t get() const { return exec_; }
  void reset(cudaGraphExec_t exec) {
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = exec;
  }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

class CudaTimer final : public Timer {
  enum class Slowdown { none, per_launch, per_sample };

 public:
  CudaTimer(kernels::Benchmark& bench, const TimerOptions& options, CudaDevice& device)
      : bench_(bench),
        options_(options),
        stream_(static_cast<cudaStream_t>(device.stream())),
        clock_(device.sm_clock()),
        chunks_{options.inner, 1} {
    if (options_.inner < 1) throw std::runtime_error("timer: inner must be at least 1");
    events_ = std::vector<Event>(options_.cold_launches                         ? 2 * options_.inner
                                 : options_.statistic == SampleStatistic::min ? options_.inner + 1
                                                                              : 2);
    if (options_.cold_cache || options_.cold_launches)
      flush_ = kernels::cuda::DeviceBuffer(2 * std::max<std::size_t>(device.l2_bytes(), 1 << 20));
    if (options_.blocking_kernel) flags_ = std::make_unique<MappedFlags>();

    bench_.launch();  // warm-up: module loading and first-touch costs stay out of samples
    ISOBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (options_.timer == "graph") {
      chunks_ = graph_chunks(options_);
      capture_graph();
      if (graph_.get() && chunks_.chunked()) append_note(graph_chunks_note(chunks_, options_.inner));
    } else if (options_.timer != "events") {
      throw std::runtime_error("timer: unknown CUDA timer '" + options_.timer + "' (events, graph)");
    }
    if (options_.slowdown_pct > 0) calibrate_slowdown();
    if (!clock_.unavailable_reason().empty())
      append_note("SM clock unknown: " + clock_.unavailable_reason());
  }

  Measurement measure() override {
    Measurement m;
    const unsigned clock_before = clock_.current_mhz();
    const TimedSample sample = time_sample();
    m.sample.value_s = sample.seconds_per_launch;
    m.sample.host_enqueue_s = sample.enqueue_s / double(chunks_.launches());
    const unsigned clock_after = clock_.current_mhz();

    std::ostringstream note;
    if (!fallback_reason_.empty()) {
      m.sample.flags |= ipc::flag_graph_fallback;
      note << kGraphFallbackNote << " (" << fallback_reason_ << "); timed with events. ";
    }
    if (sample.blocking_timed_out) {
      m.sample.flags |= ipc::flag_blocking_timeout;
      note << "the blocking kernel timed out before all launches were queued (too many inner "
              "launches for the launch queue?); launch latency may be in this sample. ";
    }
    if (clock_before > 0 && clock_after > 0) {
      m.sample.sm_clock_mhz = std::min(clock_before, clock_after);
      if (clock_.max_mhz() > 0 && m.sample.sm_clock_mhz < kLowClockFraction * clock_.max_mhz()) {
        m.sample.flags |= ipc::flag_low_sm_clock;
        note << "SM clock " << m.sample.sm_clock_mhz << " MHz is below " << kLowClockFraction * 100
             << "% of the maximum " << clock_.max_mhz() << " MHz. ";
      }
    }
    m.note = note.str();
    if (!m.note.empty()) m.note.pop_back();
    return m;
  }

  std::string setup_note() const override { return setup_note_; }

 private:
  struct TimedSample {
    double seconds_per_launch = 0;
    double enqueue_s = 0;  // host time queueing the sample's launches, in total
    bool blocking_timed_out = false;
  };

  // One sample: everything between the NVML readings.
  TimedSample time_sample() {
    TimedSample sample;
    if (options_.cold_cache && !options_.cold_launches) flush_l2();
    if (flags_) {
      flags_->host()[0] = 0;
      flags_->host()[1] = 0;
      blocking_kernel<<<1, 1, 0, stream_>>>(flags_->device(), flags_->device() + 1, kBlockingTimeoutNs);
      ISOBENCH_CUDA_CHECK(cudaGetLastError());
    }
    // Host time queueing the sample's launches and events (steady clock; nothing on the GPU).
    const auto enqueue_begin = std::chrono::steady_clock::now();
    if (graph_.get()) {
      // With cold_launches the graph records every event itself; for min it records
      // events_[1..inner]; for mean events_.back() is the stop. A chunked graph is replayed
      // back to back, and the per-sample spin follows the last replay, once per sample.
      if (!options_.cold_launches) ISOBENCH_CUDA_CHECK(cudaEventRecord(events_.front().get(), stream_));
      for (int r = 0; r < chunks_.replays; ++r) ISOBENCH_CUDA_CHECK(cudaGraphLaunch(graph_.get(), stream_));
      if (chunks_.chunked() && slowdown_ == Slowdown::per_sample) spin_per_sample();
      if (options_.statistic == SampleStatistic::mean && !options_.cold_launches)
        ISOBENCH_CUDA_CHECK(cudaEventRecord(events_.back().get(), stream_));
    } else {
      enqueue_launches(false);
    }
    sample.enqueue_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - enqueue_begin).count();
    if (flags_) flags_->host()[0] = 1;  // everything is queued: let the stream run
    ISOBENCH_CUDA_CHECK(cudaEventSynchronize(events_.back().get()));
    sample.blocking_timed_out = flags_ && flags_->host()[1] != 0;

    if (options_.cold_launches) {
      double total = 0;
      double shortest = seconds_between(events_[0], events_[1]);
      for (int i = 0; i < options_.inner; ++i) {
        const double t = seconds_between(events_[2 * i], events_[2 * i + 1]);
        total += t;
        shortest = std::min(shortest, t);
      }
      sample.seconds_per_launch = options_.statistic == SampleStatistic::mean ? total / options_.inner : shortest;
    } else if (options_.statistic == SampleStatistic::mean) {
      sample.seconds_per_launch = seconds_between(events_.front(), events_.back()) / double(chunks_.launches());
    } else {
      double shortest = seconds_between(events_[0], events_[1]);
      for (int i = 1; i < options_.inner; ++i)
        shortest = std::min(shortest, seconds_between(events_[i], events_[i + 1]));
      sample.seconds_per_launch = shortest;
    }
    return sample;
  }

  // The median of `samples` samples, for calibration.
  double median_sample(int samples) {
    std::vector<double> values;
    for (int i = 0; i < samples; ++i) values.push_back(time_sample().seconds_per_launch);
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
  }

  // Writes the flush buffer (a new byte value each time outside a graph), evicting whatever the
  // L2 held.
  void flush_l2() {
    ISOBENCH_CUDA_CHECK(cudaMemsetAsync(flush_.get(), int(++flushes_ & 0xff), flush_.bytes(), stream_));
  }

  void launch_once() {
    bench_.launch();
    if (slowdown_ == Slowdown::per_launch) {
      spin_cycles_kernel<<<1, 1, 0, stream_>>>(slowdown_amount_);
      ISOBENCH_CUDA_CHECK(cudaGetLastError());
    }
  }

  void spin_per_sample() {
    spin_ns_kernel<<<1, 1, 0, stream_>>>(static_cast<unsigned long long>(slowdown_amount_));
    ISOBENCH_CUDA_CHECK(cudaGetLastError());
  }

  // Queues the inner launches with their events. In a graph capture the events become event
  // record nodes (cudaEventRecordExternal) only where they sit between launches (min, and every
  // pair of cold_launches); the outer pair is recorded around the graph launch. A chunked
  // capture holds the graph's launches only: time_sample queues the spin after the replays.
  void enqueue_launches(bool capturing) {
    const bool per_launch = options_.statistic == SampleStatistic::min;
    auto record = [&](const Event& e) {
      if (capturing)
        ISOBENCH_CUDA_CHECK(cudaEventRecordWithFlags(e.get(), stream_, cudaEventRecordExternal));
      else
        ISOBENCH_CUDA_CHECK(cudaEventRecord(e.get(), stream_));
    };
    if (options_.cold_launches) {
      // The per-sample spin goes inside the last launch's pair, so that the mean carries it.
      for (int i = 0; i < options_.inner; ++i) {
        flush_l2();
        record(events_[2 * i]);
        launch_once();
        if (slowdown_ == Slowdown::per_sample && i + 1 == options_.inner) spin_per_sample();
        record(events_[2 * i + 1]);
      }
      return;
    }
    if (!capturing) record(events_.front());
    const int launches = capturing ? chunks_.graph_launches : options_.inner;
    for (int i = 0; i < launches; ++i) {
      launch_once();
      if (per_launch) record(events_[i + 1]);
    }
    if (slowdown_ == Slowdown::per_sample && !(capturing && chunks_.chunked())) spin_per_sample();
    if (!capturing && !per_launch) record(events_.back());
  }

  void capture_graph() {
    std::string reason;
    ISOBENCH_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    try {
      enqueue_launches(true);
    } catch (const std::exception& e) {
      reason = e.what();
    }
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
    if (reason.empty() && ended != cudaSuccess) reason = std::string("cudaStreamEndCapture: ") + cudaGetErrorString(ended);
    if (reason.empty()) {
      cudaGraphExec_t exec = nullptr;
      const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
      if (made == cudaSuccess)
        graph_.reset(exec);
      else
        reason = std::string("cudaGraphInstantiate: ") + cudaGetErrorString(made);
    }
    if (graph) cudaGraphDestroy(graph);
    if (!reason.empty()) {
      cudaGetLastError();  // a failed capture leaves a non-sticky error behind
      graph_.reset(nullptr);
      chunks_ = {options_.inner, 1};  // events time all inner launches
      fallback_reason_ = reason;
      append_note(std::string(kGraphFallbackNote) + " (" + reason + "); timing with events");
      return;
    }
    // First replay uploads the graph; keep it out of the samples.
    ISOBENCH_CUDA_CHECK(cudaGraphLaunch(graph_.get(), stream_));
    ISOBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  // Mean seconds per launch of `launches` back-to-back calls of `body`, with events.
  template <class Body>
  double time_launches(int launches, Body body) {
    Event start, stop;
    ISOBENCH_CUDA_CHECK(cudaEventRecord(start.get(), stream_));
    for (int i = 0; i < launches; ++i) body();
    ISOBENCH_CUDA_CHECK(cudaEventRecord(stop.get(), stream_));
    ISOBENCH_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    return seconds_between(start, stop) / launches;
  }

  // The injected slowdown is a real extra cost on the GPU, on the same stream and inside the
  // timed region (inside the graph, for timer: graph; after the replays of a chunked graph):
  //   statistic mean: one spin of S nanoseconds (global timer) after a sample's inner launches.
  //     A spin per launch cost more than 5% by itself next to a 5 us kernel (its launch gap
  //     alone), and a cycle count stretched with the clock a long GEMM lowers, overshooting the
  //     target (docs/evidence.md#behind-the-code); one timed spin per sample has neither problem.
  //   statistic min: the minimum is taken between consecutive launches, so the spin (SM
  //     cycles, clock64) follows every launch; its floor is an empty kernel's launch gap.
  // Calibration, in the sampling path itself:
  //   1. The kernel's own time t_k: the median of 3 samples taken exactly as measure() takes
  //      them (same timer, graph, blocking kernel, statistic and inner), without a spin.
  //   2. Start from the target pct/100 * t_k (per launch), take samples, move the spin by the
  //      difference between the target and the measured extra (the graph is recaptured), up to
  //      5 times, until the measured extra is within 2% of the target.
  //   3. The achieved slowdown is written to setup_note(). When even an empty spin costs more
  //      than the target, the note says so: the slowdown is then larger than asked.
  void calibrate_slowdown() {
    const bool per_sample = options_.statistic == SampleStatistic::mean;
    const double kernel_s = median_sample(3);
    const double target_s = options_.slowdown_pct / 100.0 * kernel_s;
    // Spin units per second of extra time per launch: nanoseconds spread over the sample's
    // launches, or SM cycles (measured: 5 spins of 2^20 cycles against 5 empty ones).
    double units_per_s = double(chunks_.launches()) * 1e9;
    if (!per_sample) {
      const long long probe_cycles = 1 << 20;
      const double empty_s = time_launches(5, [&] { spin_cycles_kernel<<<1, 1, 0, stream_>>>(0); });
      const double long_s = time_launches(5, [&] { spin_cycles_kernel<<<1, 1, 0, stream_>>>(probe_cycles); });
      ISOBENCH_CUDA_CHECK(cudaGetLastError());
      units_per_s = probe_cycles / std::max(long_s - empty_s, 1e-9);
    }

    double extra_s = 0;
    long long amount = std::llround(target_s * units_per_s);
    for (int step = 0; step < 6; ++step) {
      set_slowdown(per_sample ? Slowdown::per_sample : Slowdown::per_launch, amount);
      extra_s = median_sample(3) - kernel_s;
      if (std::fabs(extra_s - target_s) <= 0.02 * target_s || step == 5) break;
      if (amount == 0 && extra_s > target_s) break;  // the floor: an empty spin
      const long long next = std::max(0LL, amount + std::llround((target_s - extra_s) * units_per_s));
      if (next == amount) break;
      amount = next;
    }

    std::ostringstream note;
    note << "slowdown " << options_.slowdown_pct << "%: kernel " << kernel_s * 1e6 << " us per launch, spin "
         << (per_sample ? "once per sample for " : "after every launch for ") << slowdown_amount_
         << (per_sample ? " ns" : " cycles") << "; measured +" << extra_s * 1e6 << " us per launch = "
         << extra_s / kernel_s * 100 << "% slower";
    if (slowdown_amount_ == 0 && extra_s > 1.05 * target_s)
      note << " (an empty spin already costs more than the target)";
    append_note(note.str());
  }

  // Turns the spin on with this length; a graph holds it as a kernel argument, so the graph is
  // captured again.
  void set_slowdown(Slowdown mode, long long amount) {
    slowdown_ = mode;
    slowdown_amount_ = amount;
    if (graph_.get()) capture_graph();
  }

  void append_note(const std::string& text) { setup_note_ += (setup_note_.empty() ? "" : "; ") + text; }

  kernels::Benchmark& bench_;
  TimerOptions options_;
  cudaStream_t stream_;
  const NvmlSmClock& clock_;
  std::vector<Event> events_;
  kernels::cuda::DeviceBuffer flush_;
  std::unique_ptr<MappedFlags> flags_;
  GraphExec graph_;
  GraphChunks chunks_;  // how the graph holds a sample's launches; {inner, 1} outside a graph
  Slowdown slowdown_ = Slowdown::none;
  long long slowdown_amount_ = 0;  // SM cycles per launch, or nanoseconds per sample
  std::uint64_t flushes_ = 0;
  std::string fallback_reason_;
  std::string setup_note_;
};

}  // namespace

std::unique_ptr<Timer> make_cuda_timer(kernels::Benchmark& bench, const TimerOptions& options,
                                       CudaDevice& device) {
  return std::make_unique<CudaTimer>(bench, options, device);
}

}  // namespace isobench::worker
