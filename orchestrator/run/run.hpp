#pragma once
// The run, as a pipeline: load the sweep, resolve the machine once, plan, check the plan, create
// the run directory, run it, summarise and decide. Or, for --resume, open the run directory and
// finish what its journal lacks. Everything that can be wrong with the input is found before the
// run directory exists.

#include <optional>
#include <string>

#include "orchestrator/run/run_request.hpp"
#include "orchestrator/run_directory.hpp"

namespace isobench::orchestrator {

// Throws UsageError (bad input; nothing is created or measured) and MeasurementFailed (the run
// directory records the failure; --resume finishes it).
RunResult run(const RunRequest& request);

// An A/B run's verdicts, baseline against candidate, by `rule`: the comparison model decides,
// whatever is printed. Nothing comparable (no instance with samples on both sides) is logged and
// gives none; compare's warnings go to stderr.
std::optional<ComparisonReport> compare_ab_run(const std::string& dir, const VerdictRule& rule, RunLog& log);

// The worker executable installed beside the running orchestrate binary.
std::string default_worker_path();

}  // namespace isobench::orchestrator
