#pragma once
// A run directory as the history stores it: its plan and samples through compare's reader
// (read_run), its start time and status from run.json, its machine from environment.json and
// the GPUs its samples name.

#include <iosfwd>
#include <string>

#include "orchestrator/history/history_store.hpp"

namespace isobench::orchestrator::history {

// Throws UsageError (orchestrator/compare/compare_inputs.hpp) naming the file and field.
RunEntry read_run_entry(const std::string& dir, const std::string& label, std::ostream& err);

}  // namespace isobench::orchestrator::history
