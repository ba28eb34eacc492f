#pragma once
// A benchmark whose set-up and launches are C callbacks (the isobench_kernel of plugin.h): a
// plugin's kernels, and the kernels a process registers with the worker library itself (the
// Python zygote's forked workers, include/isobench/worker.h).

#include <cstddef>
#include <memory>
#include <string>

#include "benchmark.hpp"
#include "kernel_spec.hpp"

struct isobench_kernel;

namespace isobench::kernels {

// Why the last launch of `self` failed, as one line into `error` (registered kernels may say;
// plugin.h's launch() returns a code only).
using LaunchErrorFn = void (*)(void* self, char* error, std::size_t error_len);
// What a set-up chose, as JSON text (registered kernels may say; include/isobench/worker.h).
using ChoiceFn = int (*)(void* self, char* out, std::size_t out_len);
// The pinned choice to reproduce, given before setup().
using ReplayFn = void (*)(void* self, const char* choice_json);

struct CallbackKernel {
  const isobench_kernel* kernel = nullptr;  // must outlive the benchmark
  // CUDA: setup() gets the worker's stream; CPU: NULL, as plugin.h promises, even in a worker
  // that also runs CUDA instances.
  Backend backend = Backend::cpu;
  std::string origin;      // who the kernel comes from, in messages: "plugin libx.so", an instance id
  nlohmann::json describe = nlohmann::json::object();  // the benchmark's describe(), with describe_fn's
  LaunchErrorFn launch_error = nullptr;
  ChoiceFn describe_fn = nullptr;
  ReplayFn replay_fn = nullptr;
};

// Calls create() now (throws std::runtime_error naming the origin when it returns NULL); the
// benchmark calls teardown() (after a setup) and destroy() when it is destroyed.
std::unique_ptr<Benchmark> make_callback_benchmark(CallbackKernel kernel);

}  // namespace isobench::kernels
