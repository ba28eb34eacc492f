// What --resume checks before it measures or resubmits anything (orchestrator/run/resume_checks),
// for a run measured here and one sharded over Slurm alike: options that would choose again, the
// recorded worker builds, plugin libraries, environment and how the workers measured. Each
// refusal is one line naming what was given and what the run recorded.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "orchestrator/errors.hpp"
#include "orchestrator/recorded_environment.hpp"
#include "orchestrator/run/plan_run.hpp"
#include "orchestrator/run/resume_checks.hpp"
#include "temp_dir.hpp"

using namespace isobench::orchestrator;
using isobench::testing::TempDir;

namespace {

const std::string kResume = "--resume runs/r";

// The refusal check_resubmission gives, or "" when it takes the request.
std::string refusal(const RunRequest& request, const Plan& plan, const RecordedMeasuring& measuring = {}) {
  try {
    check_resubmission(request, plan, measuring, kResume);
    return "";
  } catch (const UsageError& e) {
    return e.what();
  }
}

std::string new_choice_refusal(const RunRequest& request) {
  try {
    refuse_new_choices(request, kResume);
    return "";
  } catch (const UsageError& e) {
    return e.what();
  }
}

// An executable worker build check_worker_build takes (a #! script).
std::string worker_build(const TempDir& dir, const std::string& name) {
  const auto path = dir.write(name, "#!/bin/sh\nexit 0\n");
  chmod(path.c_str(), 0755);
  return path.string();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("an option that would choose the plan again is refused, naming it") {
  CHECK(new_choice_refusal({}).empty());
  RunRequest sweep;
  sweep.sweep_path = "sweep.yaml";
  CHECK(new_choice_refusal(sweep) ==
        kResume + " and a sweep file sweep.yaml: a resumed run measures its own plan; give one of them");
  RunRequest out;
  out.out_dir = "elsewhere";
  CHECK(new_choice_refusal(out) == kResume + ": --out is not taken: a resumed run stays in its own directory");
  RunRequest setting;
  setting.overrides.set("samples", 7);
  CHECK(new_choice_refusal(setting) == kResume + ": --samples is not taken: a resumed run measures its own plan");
  RunRequest replay;
  replay.replay_from = "runs/a";
  CHECK(new_choice_refusal(replay) == kResume + ": --replay-from is not taken: a resumed run measures its own plan");
  RunRequest like;
  like.like = "runs/a";
  CHECK(new_choice_refusal(like) == kResume + ": --like is not taken: a resumed run measures its own plan");
}

TEST_CASE("the worker build the run recorded: another --worker is refused naming both, a build gone is refused") {
  TempDir dir("resume_checks");
  const std::string recorded = worker_build(dir, "recorded/isobench-worker");
  const std::string other = worker_build(dir, "other/isobench-worker");
  Plan plan;
  plan.workers = {recorded};
  CHECK(refusal({}, plan).empty());
  RunRequest same;
  same.worker = recorded;
  CHECK(refusal(same, plan).empty());
  RunRequest given;
  given.worker = other;
  CHECK(refusal(given, plan) == kResume + ": --worker " + other +
                                    " is not the worker build the run was started with (" + recorded +
                                    "); a resumed run measures with its own: leave --worker out");
  // Two builds of an A/B run take no --worker at all, not even one of them.
  Plan ab = plan;
  ab.workers = {recorded, other};
  ab.worker_args = {{}, {}};
  CHECK(contains(refusal(same, ab), ": --worker is not taken: this A/B run measures the builds its plan names (" +
                                        recorded + ", " + other + ")"));
  std::filesystem::remove(recorded);
  const auto gone = refusal({}, plan);
  CHECK(contains(gone, kResume + ": the run's worker build " + recorded));
  CHECK(contains(gone, "(no such file)"));
  // A plan from before the build was recorded resumes with --worker or the default, as then.
  CHECK(refusal(given, Plan{}).empty());
}

TEST_CASE("--worker is judged by the file it names: another spelling, a relative path or a hard link is taken") {
  TempDir dir("resume_checks");
  const std::string recorded = worker_build(dir, "build/bin/isobench-worker");
  Plan plan;
  plan.workers = {recorded};
  const auto taken = [&](const std::string& worker) {
    RunRequest request;
    request.worker = worker;
    return refusal(request, plan);
  };
  CHECK(taken(std::filesystem::relative(recorded).string()) == "");
  CHECK(taken((dir.path() / "build/./bin/../bin/isobench-worker").string()) == "");
  const auto linked = dir.path() / "linked-worker";
  std::filesystem::create_hard_link(recorded, linked);
  CHECK(taken(linked.string()) == "");
  // A copy is another file: refused, naming both.
  const std::string copy = worker_build(dir, "copy/isobench-worker");
  CHECK(contains(taken(copy), ": --worker " + copy + " is not the worker build the run was started with (" + recorded));
}

TEST_CASE("a plugin library rebuilt or gone since the run started is refused with both hashes") {
  TempDir dir("resume_checks");
  const auto library = dir.write("libplugin.so", "the code the run began with").string();
  Plan plan;
  plan.plugin_sha256[library] = plugin_fingerprint(library);
  REQUIRE(plan.plugin_sha256[library].size() == 64);
  CHECK(refusal({}, plan).empty());
  dir.write("libplugin.so", "rebuilt");
  const auto changed = refusal({}, plan);
  CHECK(contains(changed, kResume + ": plugin " + library + " changed since the run started (SHA-256 " +
                              plan.plugin_sha256[library].substr(0, 12) + ", now " +
                              plugin_fingerprint(library).substr(0, 12) + ")"));
  std::filesystem::remove(library);
  CHECK(contains(refusal({}, plan), kResume + ": plugin " + library + " is gone or unreadable since the run started"));
}

TEST_CASE("a deciding variable set otherwise than when the run started is refused naming both values") {
  // orchestrate's environment as it started is what is compared (recorded_environment.hpp): the
  // records here are made to differ from this process's.
  const char* path = std::getenv("PATH");
  REQUIRE(path);
  Plan plan;
  plan.environment_variables = record_environment({"PATH"});
  CHECK(refusal({}, plan).empty());
  plan.environment_variables->values["PATH"] = "/the/run's/bin";
  CHECK(refusal({}, plan) == kResume + ": PATH=" + path +
                                 " here, the run was started with PATH=/the/run's/bin; a "
                                 "resumed run measures in the environment it began with: set it back, or start "
                                 "a new run");
  RecordedEnvironment unset_now;
  unset_now.considered = {"ISOBENCH_TEST_NEVER_SET_*"};
  unset_now.values["ISOBENCH_TEST_NEVER_SET_X"] = "1";
  plan.environment_variables = unset_now;
  CHECK(contains(refusal({}, plan),
                 ": ISOBENCH_TEST_NEVER_SET_X is unset here, the run was started with "
                 "ISOBENCH_TEST_NEVER_SET_X=1;"));
  // A plan from before the environment was recorded is not checked.
  CHECK(refusal({}, Plan{}).empty());
}

TEST_CASE("how the workers measured: another --context-gate, --setup-batch or --prestart is refused naming both") {
  Plan plan;
  plan.device = "cpu";
  RecordedMeasuring recorded;
  recorded.context_gate = true;
  recorded.setup_batch = 2;
  recorded.prestart = 0;
  RunRequest as_recorded;
  as_recorded.context_gate_given = as_recorded.setup_batch_given = true;
  as_recorded.setup_batch = 2;
  as_recorded.prestart = 0;
  CHECK(refusal(as_recorded, plan, recorded).empty());
  RunRequest gate = as_recorded;
  gate.context_gate = false;
  CHECK(refusal(gate, plan, recorded) == kResume +
                                             ": --context-gate off is not what the run was started with "
                                             "(--context-gate on); a resumed run measures as it began: leave "
                                             "--context-gate out");
  RunRequest batch = as_recorded;
  batch.setup_batch = 4;
  CHECK(contains(refusal(batch, plan, recorded),
                 ": --setup-batch 4 is not what the run was started with (--setup-batch 2)"));
  RunRequest prestart = as_recorded;
  prestart.prestart = 2;
  CHECK(contains(refusal(prestart, plan, recorded),
                 ": --prestart 2 is not what the run was started with (--prestart 0)"));
  // A Slurm run records the option as given: -1 is the device's default (1 on the GPU).
  recorded.prestart = -1;
  plan.device = "cuda";
  RunRequest one = as_recorded;
  one.prestart = 1;
  CHECK(refusal(one, plan, recorded).empty());
  CHECK(contains(refusal(as_recorded, plan, recorded),
                 ": --prestart 0 is not what the run was started with (--prestart 1)"));
  // A Slurm run started without --setup-batch records 0: its tasks took their starter's default.
  recorded.setup_batch = 0;
  CHECK(refusal(one, plan, recorded) == kResume +
                                            ": --setup-batch 2 is not what the run was started with (--setup-batch not "
                                            "given: the default of the run's kind); a resumed run measures as it began: "
                                            "leave --setup-batch out");
  recorded.setup_batch = 2;
  // Options not given are taken from the record; a run that never measured takes what it is given.
  CHECK(refusal({}, plan, recorded).empty());
  CHECK(refusal(gate, plan, {}).empty());
}
