#pragma once
// What --resume checks before it measures or resubmits anything, for a run measured here
// (LocalExecutor) and one sharded over Slurm (SlurmExecutor) alike: a resumed run measures what
// the run was, so everything that decides what a sample measures is taken from what the run
// recorded when it started (plan.json's worker builds, plugin hashes and environment; how its
// workers measured), and an option that names something else is refused in one line naming both.
// Nothing recorded is replaced by a default. A record from before a field existed is not checked
// for it. The Python sides are checked where they are started (orchestrator/python/python_sides).

#include <optional>
#include <string>

#include "orchestrator/plan.hpp"
#include "orchestrator/run/run_request.hpp"

namespace isobench::orchestrator {

// How a run's workers measured, as the run recorded it: run.json once its measuring began, a
// Slurm run's slurm.json task_options when it was submitted. nullopt: not recorded (a run that
// never measured takes what it is given now).
struct RecordedMeasuring {
  std::optional<bool> context_gate;
  std::optional<int> setup_batch;
  std::optional<int> prestart;  // -1: the device's default, as --prestart left out
};

// Whether a path given now names the file a run recorded, however spelled: relative to this
// directory or absolute, through "." and "..", a symbolic or a hard link (one device and inode).
// Where neither file is there (a recorded build removed since), the resolved paths are compared.
bool same_file(const std::string& given, const std::string& recorded);

// The options that would choose again what a run chose when it was planned (a sweep file, --out,
// a setting, --replay-from, --like): UsageError naming the first, "<resume>: --out is not taken: ...".
void refuse_new_choices(const RunRequest& request, const std::string& resume);

// The run's record against the resuming request and this host, in order: the worker build of
// each side (--worker naming another, a build that is gone), the plugin libraries (rebuilt or
// gone), the environment (a variable that decides what a worker measures, set otherwise now) and
// how the workers measure (--context-gate, --setup-batch, --prestart naming another value).
// `resume` opens every refusal ("--resume DIR"); UsageError, one line.
void check_resubmission(const RunRequest& request, const Plan& plan, const RecordedMeasuring& measuring,
                        const std::string& resume);

}  // namespace isobench::orchestrator
