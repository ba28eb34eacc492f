#pragma once
// Kernels a process registered with the worker library itself (include/isobench/worker.h): the
// set-up functions of Python benchmarks, registered by the zygote before it forks the workers.

#include <memory>
#include <string>

#include <isobench/worker.h>

#include "ipc/instance_table.hpp"
#include "kernels/benchmark.hpp"

namespace isobench::worker {

// The key an instance's kernel is registered under: "MODULE:FUNCTION".
std::string registered_kernel_key(const ipc::WorkerInstance& instance);

// Registers `kernel` under `key`; throws std::invalid_argument with the reason when the key is
// taken or the kernel lacks create, setup or launch.
void register_kernel(const std::string& key, const isobench_registered_kernel& kernel);

// A fresh benchmark of a Python instance, from the kernel registered for its key; throws
// std::runtime_error naming the key when none is.
std::unique_ptr<kernels::Benchmark> make_registered_benchmark(const ipc::WorkerInstance& instance);

}  // namespace isobench::worker
