#pragma once
// Planning a new run, and every check of the plan that can fail, before a run directory exists:
// the plan for the machine (orchestrator/plan.hpp), the A/B sides (two worker builds, or two
// builds of the sweep's plugin) and their forced parameters, the choices replayed from an earlier
// run or taken from the run it is like, and the limits (instances, samples, GPUs for multi-rank instances).

#include "orchestrator/plan.hpp"
#include "orchestrator/run/like_run.hpp"
#include "orchestrator/run/machine.hpp"
#include "orchestrator/run/run_request.hpp"

namespace isobench::orchestrator {

// Throws UsageError naming the file, option or instance and what is wrong. `like`: the earlier run
// of --like, read before the sweep was loaded (its seed is one of the sweep's overrides).
Plan plan_new_run(const RunRequest& request, const Sweep& sweep, const Machine& machine, const LikeRun* like);

// Each side's worker executable, absolute, as plan_new_run names it (plan.workers in an A/B run,
// the run's one worker otherwise), unchecked: known before the sweep is loaded.
std::vector<std::string> side_workers(const RunRequest& request);

// Throws UsageError when `path` cannot run as a worker: missing, not an executable file, a plugin
// library, neither an ELF program of this machine nor a #! script. `what` names the option.
void check_worker_build(const std::string& path, const std::string& what);

// A plugin library's SHA-256 (of the file a symbolic link names); "" when it cannot be read.
std::string plugin_fingerprint(const std::string& library);

// The samples one run may hold, named in the refusal. Planning's memory grows with the samples:
// this many plan in seconds on a 23 GB machine, where the 2^28 the segment could address would
// need several times that machine's memory (docs/evidence.md#behind-the-code).
inline constexpr std::uint64_t kMaxSamplesPerRun = std::uint64_t{1} << 22;

// The sequential extension's cap for `instances` taking at most `most` samples per side at the
// ordinary looks: ab --extend-to as `asked`, or kDefaultExtendTo. The extension's rounds need
// slots in the run: an asked cap beyond them is refused (UsageError) before its looks are planned;
// the default is lowered to what fits, or to none (0), with a note in `log` saying why.
std::size_t extension_cap(std::optional<std::size_t> asked, std::size_t most, std::size_t instances, const Log& log);

}  // namespace isobench::orchestrator
