#pragma once
// The run, as a pipeline: load the sweep, resolve the machine once, plan, check the plan, create
// the run directory, have the executor measure it (orchestrator/run/executor.hpp), and give an
// A/B run's verdicts. Or, for --resume, have the executor that made the run finish what it lacks.
// Everything that can be wrong with the input is found before the run directory exists.

#include <string>

#include "orchestrator/run/executor.hpp"
#include "orchestrator/run/run_request.hpp"

namespace isobench::orchestrator {

// Throws UsageError (bad input; nothing is created or measured) and MeasurementFailed (the run
// directory records the failure; --resume finishes it).
RunResult run(const RunRequest& request, Executor& executor);

// The worker executable installed beside the running orchestrate binary.
std::string default_worker_path();

}  // namespace isobench::orchestrator
