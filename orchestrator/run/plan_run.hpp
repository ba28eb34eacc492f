#pragma once
// Planning a new run, and every check of the plan that can fail, before a run directory exists:
// the plan for the machine (orchestrator/plan.hpp), the A/B sides (two worker builds, or two
// builds of the sweep's plugin) and their forced parameters, the choices replayed from an earlier
// run, and the limits (instances, samples, GPUs for multi-rank instances).

#include "orchestrator/plan.hpp"
#include "orchestrator/run/machine.hpp"
#include "orchestrator/run/run_request.hpp"

namespace isobench::orchestrator {

// Throws UsageError naming the file, option or instance and what is wrong.
Plan plan_new_run(const RunRequest& request, const Sweep& sweep, const Machine& machine);

// The limits a sweep must stay within, named in the refusals: beyond them planning alone would
// take minutes and gigabytes.
inline constexpr std::uint64_t kMaxSamplesPerRun = std::uint64_t{1} << 28;  // the segment's slots

}  // namespace isobench::orchestrator
