#pragma once
// The one place a run's worker starter is chosen (orchestrator/run/worker_starter.hpp): the verbs
// that run sweeps (orchestrate, ab, calibrate, bisect, a Slurm task) hand it to their executor. A
// kind of benchmark whose workers start otherwise than from the worker executable adds its starter
// here.

#include <memory>

#include "orchestrator/run/run_request.hpp"
#include "orchestrator/run/worker_starter.hpp"

namespace isobench::orchestrator {

std::unique_ptr<WorkerStarter> worker_starter_for(const RunRequest& request);

}  // namespace isobench::orchestrator
