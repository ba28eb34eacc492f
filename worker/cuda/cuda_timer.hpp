#pragma once
// The CUDA timer: CUDA events on the device's stream around the inner launches, or one CUDA
// graph holding them, with the optional L2 flush, blocking kernel and injected slowdown that
// TimerOptions asks for. See cuda_timer.cu for how each works.

#include <memory>

#include "worker/cuda/cuda_device.hpp"
#include "worker/timer.hpp"

namespace isobench::worker {

// The benchmark must be set up on `device.stream()`. Construction launches it once (warm-up,
// outside any sample), captures the graph when asked, and calibrates the slowdown when
// options.slowdown_pct > 0; it throws std::runtime_error on a CUDA failure.
std::unique_ptr<Timer> make_cuda_timer(kernels::Benchmark& bench, const TimerOptions& options,
                                       CudaDevice& device);

}  // namespace isobench::worker
