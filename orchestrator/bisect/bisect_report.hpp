#pragma once
// What `orchestrate bisect` prints at its end: the steps with their verdicts and run
// directories, the commits skipped and why, each instance's answer (instances that agree on one
// line), and the outcome line with the exit code.

#include <ostream>

#include "orchestrator/bisect/bisection.hpp"

namespace isobench::orchestrator {

void print_bisect_report(std::ostream& out, const BisectOutcome& outcome);

}  // namespace isobench::orchestrator
