#pragma once
// The batch script every task of a Slurm run's job array runs (kept in the run directory as
// job.sbatch, docs/slurm.md): one task on one whole GPU, running `orchestrate slurm task` for
// the shard of its array index.

#include <string>
#include <vector>

namespace isobench::orchestrator {

struct SbatchSettings {
  std::string job_name;     // isobench-<sweep>
  std::string run_dir;      // absolute: the tasks run on other hosts
  std::string orchestrate;  // the absolute path of the orchestrate binary the tasks run
  bool gpu = false;         // CUDA sweeps take one GPU per task; CPU sweeps none
  // The user's --sbatch-option values, written after isobench's own lines: sbatch takes the
  // last of two lines that set one option.
  std::vector<std::string> options;
  std::vector<std::string> command_line;  // what wrote it, for the header
};

// Refuses (std::invalid_argument naming it) an option that is not one sbatch argument on a line
// of its own: it must begin with '-' and hold no control character, so nothing the user gives
// can add a line to the script.
void check_sbatch_option(const std::string& option);

// Refuses (std::invalid_argument naming `what`) a path the script cannot name on an #SBATCH line:
// one with spaces, quotes, % or control characters.
void check_slurm_path(const std::string& what, const std::string& path);

std::string sbatch_script(const SbatchSettings& settings);

// `text` quoted for the POSIX shell: 'text', with every ' written '\''.
std::string shell_quote(const std::string& text);

}  // namespace isobench::orchestrator
