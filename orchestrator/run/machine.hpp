#pragma once
// The machine a run measures on, resolved once from the request: the device (a GPU when one is
// usable, else the CPU kernels), the GPUs the instances are dealt over, and the device memory one
// worker may hold. NVML answers the questions about GPUs; the orchestrator never touches CUDA.

#include <cstdint>
#include <vector>

#include "kernels/kernel_spec.hpp"
#include "orchestrator/run/run_request.hpp"

namespace isobench::orchestrator {

struct Machine {
  kernels::Backend device = kernels::Backend::cpu;
  std::vector<int> gpus = {0};
  std::uint64_t memory_budget_bytes = 0;  // 0: unknown (the worker's own allocation error will say)
};

// For a new run. Throws UsageError for a device or GPU list that is not there, and (with
// --require-idle-gpu) for a GPU another process uses.
Machine resolve_machine(const RunRequest& request);

// The device memory one worker may hold at once: --memory-budget, or a safe fraction of what the
// devices have free (90% of the free memory of the GPU that has least; half the host's memory).
std::uint64_t memory_budget(const RunRequest& request, kernels::Backend device, const std::vector<int>& gpus);

}  // namespace isobench::orchestrator
