#pragma once
// A sweep's instances as a plan (orchestrator/plan.hpp): which of them this device measures, their
// pinned settings and seeds, their GPUs and memory groups, and the schedule.

#include <cstdint>
#include <vector>

#include "kernels/kernel_spec.hpp"
#include "orchestrator/plan.hpp"
#include "orchestrator/sweep.hpp"

namespace isobench::orchestrator {

// Builds the plan for the instances of `sweep` whose backend is `device`, and its commands,
// which run on any device. The instances are dealt over `gpus` in sweep order (instance i on
// gpus[i % gpus.size()]), so neighbouring shapes of a family land on different GPUs and each
// GPU's share costs about the same; every group holds one GPU's instances. With a memory budget
// (bytes; 0: none), the instances one worker sets up together are grouped to fit in it, and a
// GPU's groups run one after another. With one GPU the plan is the same as it always was.
Plan make_plan(const Sweep& sweep, kernels::Backend device, std::uint64_t memory_budget = 0,
               const std::vector<int>& gpus = {0});

}  // namespace isobench::orchestrator
