#pragma once
// The Slurm verbs and options (docs/slurm.md). `orchestrate --executor slurm --shards N SWEEP`
// (and `orchestrate ab --executor slurm ...`) shards a run over one job array; `--resume RUN`
// finishes it (orchestrator/slurm/slurm_executor.hpp). The `slurm` verb holds what has no local
// counterpart: `orchestrate slurm merge RUN` merges what the shards hold now, and `orchestrate
// slurm task RUN` is what each array task runs.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "orchestrator/run/slurm_options.hpp"

namespace isobench::orchestrator {

// --executor, --shards, --max-running, --sbatch-option, --no-wait: on the run verbs.
void add_slurm_options(CLI::App& app, SlurmOptions& options);

// `orchestrate slurm merge RUN` and `orchestrate slurm task RUN`; their callbacks store the exit
// code. `command_line` is orchestrate's own, for the shard's environment.
void register_slurm_command(CLI::App& app, const std::vector<std::string>& command_line, int& exit_code);

}  // namespace isobench::orchestrator
