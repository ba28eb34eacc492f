#pragma once
// What the worker runs: one instance of a kernel, set up once, then launched many times.
// CPU benchmarks run synchronously in launch(); CUDA benchmarks enqueue on the given stream and
// the worker times them with events. Implementations live in kernels/cpu and kernels/cuda.

#include <cstdint>
#include <memory>
#include <string>

#include "kernel_spec.hpp"
#include "rank_comm.hpp"

namespace isobench::kernels {

struct SetupContext {
  std::uint64_t seed = 0;      // inputs are random from this seed, never zeros
  void* cuda_stream = nullptr;  // cudaStream_t for CUDA benchmarks, null for CPU ones
  int rotate_buffers = 1;       // copies of every input; launch() cycles through them
  // An earlier describe() of this instance to reproduce (the run's pinned choice, e.g. the
  // cuBLASLt algorithm), or null. Kernels with nothing to choose ignore it.
  nlohmann::json replay;
  // The instance's ranks (its `ranks` parameter, docs/multi-rank.md): null when it runs in one
  // process. Valid until the benchmark is destroyed.
  RankComm* ranks = nullptr;
};

class Benchmark {
 public:
  virtual ~Benchmark() = default;
  Benchmark() = default;
  Benchmark(const Benchmark&) = delete;
  Benchmark& operator=(const Benchmark&) = delete;

  // Allocates buffers and fills inputs. Throws std::runtime_error with a message on failure.
  virtual void setup(const Params& params, const SetupContext& ctx) = 0;
  // One launch of the kernel (CUDA: enqueued on the setup stream, not synchronised).
  virtual void launch() = 0;
  // Compares the output of the last launch with a CPU reference; empty when it agrees,
  // else what differs. Small shapes only: tests and `worker --check` call it.
  virtual std::string check() { return {}; }
  // A note recorded with the instance (e.g. the cuBLASLt algorithm chosen); JSON object.
  virtual nlohmann::json describe() const { return nlohmann::json::object(); }
};

// Creates the implementation of a built-in kernel; null when this build lacks it (e.g. a CUDA
// kernel in a build without CUDA).
std::unique_ptr<Benchmark> create_benchmark(const std::string& kernel_name);

}  // namespace isobench::kernels
