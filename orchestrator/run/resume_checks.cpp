#include "orchestrator/run/resume_checks.hpp"

#include <algorithm>
#include <filesystem>

#include "ipc/settings.hpp"
#include "orchestrator/errors.hpp"
#include "orchestrator/recorded_environment.hpp"
#include "orchestrator/run/plan_run.hpp"

namespace fs = std::filesystem;

namespace isobench::orchestrator {

namespace {

std::string joined(const std::vector<std::string>& paths) {
  std::string text;
  for (const auto& p : paths) text += (text.empty() ? "" : ", ") + p;
  return text;
}

// --resume measures with the worker builds the run was started with (plan.json's workers), which
// must still be there; a --worker that names another is refused, naming both. Plans from before
// the worker of an ordinary run was recorded name none: --worker or the default, as then.
void check_recorded_workers(const RunRequest& request, const Plan& plan, const std::string& resume) {
  if (plan.workers.empty()) {
    if (!request.worker.empty()) check_worker_build(request.worker, "--worker");
    return;
  }
  // An A/B run of two worker builds took no --worker; one of two plugin builds ran both in it.
  const bool plugin_builds =
      !plan.worker_args.empty() &&
      std::count(plan.worker_args[0].begin(), plan.worker_args[0].end(), "--plugin-override") > 0;
  if (!request.worker.empty() && plan.workers.size() == 2 && !plugin_builds)
    throw UsageError(resume + ": --worker is not taken: this A/B run measures the builds its plan names (" +
                     joined(plan.workers) + ")");
  if (!request.worker.empty()) {
    const bool same = std::all_of(plan.workers.begin(), plan.workers.end(),
                                  [&](const std::string& w) { return same_file(request.worker, w); });
    if (!same)
      throw UsageError(resume + ": --worker " + request.worker + " is not the worker build the run was started with (" +
                       joined(plan.workers) + "); a resumed run measures with its own: leave --worker out");
  }
  for (const auto& worker : plan.workers) check_worker_build(worker, resume + ": the run's worker build");
}

// The plugin libraries the run was planned with, unchanged: a library rebuilt since (or gone)
// would measure other code under the run's name.
void check_recorded_plugins(const Plan& plan, const std::string& resume) {
  for (const auto& [library, sha256] : plan.plugin_sha256) {
    const std::string now = plugin_fingerprint(library);
    if (now == sha256) continue;
    throw UsageError(resume + ": plugin " + library + (now.empty() ? " is gone or unreadable" : " changed") +
                     " since the run started (SHA-256 " + sha256.substr(0, 12) +
                     (now.empty() ? "" : ", now " + now.substr(0, 12)) +
                     "); a resumed run measures the code it began with: restore it, or start a new run");
  }
}

// The environment the run was started in (plan.json's environment_variables): its workers inherit
// orchestrate's (a Slurm run's resubmitted tasks, sbatch's, which is the resuming shell's), and a
// variable that decides what they measure, set otherwise now, would measure something else under
// the run's name.
void check_recorded_environment(const Plan& plan, const std::string& resume) {
  if (!plan.environment_variables) return;
  const std::string difference = environment_difference(*plan.environment_variables, "the run was started");
  if (!difference.empty())
    throw UsageError(resume + ": " + difference +
                     "; a resumed run measures in the environment it began with: set it back, or start a new run");
}

// How the run's workers measured: a resumed run measures the same way, and an option naming
// another value is refused, naming both.
void check_recorded_measuring(const RunRequest& request, const Plan& plan, const RecordedMeasuring& recorded,
                              const std::string& resume) {
  const auto refuse = [&](const std::string& flag, const std::string& given, const std::string& was) {
    throw UsageError(resume + ": " + flag + " " + given + " is not what the run was started with (" +
                     (was.empty() ? flag + " not given: the default of the run's kind" : flag + " " + was) +
                     "); a resumed run measures as it began: leave " + flag + " out");
  };
  if (recorded.context_gate && request.context_gate_given && request.context_gate != *recorded.context_gate)
    refuse("--context-gate", request.context_gate ? "on" : "off", *recorded.context_gate ? "on" : "off");
  // A Slurm run records the option as given: 0 when it was not (each task's run took its
  // starter's default, which a resubmitted task takes again).
  if (recorded.setup_batch && request.setup_batch_given && request.setup_batch != *recorded.setup_batch)
    refuse("--setup-batch", std::to_string(request.setup_batch),
           *recorded.setup_batch == 0 ? std::string() : std::to_string(*recorded.setup_batch));
  if (recorded.prestart && request.prestart >= 0) {
    // A Slurm run records the option as given, -1 for the device's default (runner_options').
    const int was = *recorded.prestart >= 0 ? *recorded.prestart : plan.device == "cuda" ? 1 : 0;
    if (request.prestart != was) refuse("--prestart", std::to_string(request.prestart), std::to_string(was));
  }
}

}  // namespace

void refuse_new_choices(const RunRequest& request, const std::string& resume) {
  if (!request.sweep_path.empty())
    throw UsageError(resume + " and a sweep file " + request.sweep_path +
                     ": a resumed run measures its own plan; give one of them");
  if (!request.out_dir.empty())
    throw UsageError(resume + ": --out is not taken: a resumed run stays in its own directory");
  for (const auto& [name, value] : request.overrides.values().items())
    throw UsageError(resume + ": " + ipc::find_setting(name)->flag() +
                     " is not taken: a resumed run measures its own plan");
  if (!request.replay_from.empty())
    throw UsageError(resume + ": --replay-from is not taken: a resumed run measures its own plan");
  if (!request.like.empty()) throw UsageError(resume + ": --like is not taken: a resumed run measures its own plan");
}

bool same_file(const std::string& given, const std::string& recorded) {
  std::error_code ec;
  if (fs::equivalent(given, recorded, ec)) return true;
  if (fs::exists(given, ec) || fs::exists(recorded, ec)) return false;
  // Both gone (the recorded build removed since): their paths, resolved, are all there is to compare.
  return fs::weakly_canonical(fs::absolute(given), ec) == fs::weakly_canonical(fs::absolute(recorded), ec);
}

void check_resubmission(const RunRequest& request, const Plan& plan, const RecordedMeasuring& measuring,
                        const std::string& resume) {
  check_recorded_workers(request, plan, resume);
  check_recorded_plugins(plan, resume);
  check_recorded_environment(plan, resume);
  check_recorded_measuring(request, plan, measuring, resume);
}

}  // namespace isobench::orchestrator
