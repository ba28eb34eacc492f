#pragma once
// A shard's run directory (RUN/shards/0003): an ordinary run directory, which the submitter
// writes with the shard's plan.json and a run.json whose status is "planned", and which its
// first array task starts with --resume, like a run that was interrupted before its first
// sample. So a task measures exactly what its shard lacks, however often it is submitted. Its
// sweep.yaml is the run's, one copy for all shards (what --resume reads is plan.json).

#include <string>
#include <vector>

#include "orchestrator/plan.hpp"
#include "orchestrator/run_directory.hpp"
#include "shard_plan.hpp"

namespace isobench::orchestrator {

// Creates run/shard_dir(shard.index); throws std::runtime_error when it cannot.
void write_shard_directory(const RunDirectory& run, const Plan& plan, const Shard& shard,
                           const std::vector<std::string>& command_line);

}  // namespace isobench::orchestrator
