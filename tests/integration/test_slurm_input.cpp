// Bad input to the Slurm executor, refused before anything is submitted: one line, exit code 2,
// no run directory left. Needs no cluster (test_slurm.cpp has the ones that do).

#include <doctest/doctest.h>

#include <filesystem>

#include "harness.hpp"

using namespace isobench::testing;
namespace fs = std::filesystem;

namespace {

const char* kSweep = "benchmarks:\n  - kernel: cpu_spin\n    axes: {microseconds: [10, 20, 30]}\n";

void check_refused(const std::string& args, const std::string& expected, const std::string& sweep_text = kSweep,
                   const std::string& env = "") {
  Scratch s("slurm-input");
  const auto sweep = s.write("sweep.yaml", sweep_text);
  const auto r = run(env + bin("orchestrate") + " --quiet " + args + " --out " + s.path("run") + " " + sweep, s);
  CAPTURE(args);
  const auto problem = bad_input_problem(r, {expected}, s.path("run"));
  CHECK_MESSAGE(problem.empty(), problem);
}

// A stand-in for Slurm in the scratch folder's bin/: an sbatch that takes the array, runs none of
// it and notes each call in sbatch-calls, and a squeue of the given script body. Returns the
// PATH=... that puts them first.
std::string fake_slurm(const Scratch& s, const std::string& squeue_body) {
  fs::create_directories(s.path("bin"));
  const auto sbatch = s.write("bin/sbatch", "#!/bin/sh\necho called >> " + s.path("sbatch-calls") + "\necho 7\n");
  const auto squeue = s.write("bin/squeue", "#!/bin/sh\n" + squeue_body);
  for (const auto& tool : {sbatch, squeue}) fs::permissions(tool, fs::perms::owner_exec, fs::perm_options::add);
  return "PATH=" + s.path("bin") + ":$PATH ";
}

}  // namespace

TEST_CASE("--executor slurm needs a named device, a shard count that fits, and one GPU per instance") {
  check_refused("--executor slurm --shards 2", "give --device cuda or --device cpu");
  check_refused("--device cpu --executor slurm", "give --shards N");
  check_refused("--device cpu --executor slurm --shards 4", "--shards 4: the sweep has 3 instances");
  check_refused("--device cpu --executor slurm --shards 2 --gpus 0,1", "--gpu and --gpus are not taken");
  check_refused("--device cpu --executor slurm --shards 2 --sbatch-option=time=1", "begins with '-'");
  check_refused("--device cpu --executor slurm --shards 1",
                "has ranks 2: --executor slurm gives each task one GPU",
                "benchmarks:\n  - kernel: cpu_allgather_matmul\n    axes: {ranks: 2, m: 64}\n");
  check_refused("--device cpu --executor nowhere --shards 1", "--executor");
}

TEST_CASE("ab --until-verdict is not sharded over Slurm") {
  const std::string worker = bin("isobench-worker");
  check_refused("ab --device cpu --executor slurm --shards 2 --until-verdict --max-samples 32 --baseline " + worker +
                    " --candidate " + worker,
                "--until-verdict is not taken");
}

TEST_CASE("Python benchmarks are not sharded over Slurm: refused before anything is submitted") {
  // A task starts a Python side from its shard's python.json, which no submission writes: every
  // task refused its shard (exit 2, "python.json: cannot read") after the array was submitted.
  Scratch s("slurm-python");
  s.write("lookup.py", slurp(source_dir() + "/configs/hash_seed_lookup.py"));
  check_refused("--device cpu --executor slurm --shards 1", "Python benchmarks are not sharded over Slurm",
                "benchmarks:\n  - python: " + s.path("lookup.py") +
                    "\n    function: first_in_set\n    device: cpu\n    axes: {names: [300]}\n");
}

TEST_CASE("Slurm's options without --executor slurm are refused") {
  check_refused("--device cpu --shards 2", "need --executor slurm");
  check_refused("--device cpu --no-wait", "need --executor slurm");
}

TEST_CASE("no sbatch on PATH: the sweep is not submitted and its run directory is gone") {
  check_refused("--device cpu --executor slurm --shards 2", "sbatch: not found on PATH", kSweep, "env PATH=/nonexistent ");
}

TEST_CASE("slurm merge and slurm task refuse a run directory that is not a Slurm run") {
  Scratch s("slurm-foreign");
  const auto sweep = s.write("sweep.yaml", kSweep);
  REQUIRE(run(bin("orchestrate") + " --device cpu --quiet --samples 2 --out " + s.path("run") + " " + sweep, s)
              .exit_code == 0);
  for (const std::string verb : {"slurm merge ", "slurm task --shard 0 "}) {
    const auto r = run(bin("orchestrate") + " " + verb + s.path("run"), s);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.err.find("not a Slurm run") != std::string::npos, r.err);
  }
  const auto resumed = run(bin("orchestrate") + " --executor slurm --resume " + s.path("run"), s);
  CHECK(resumed.exit_code == 2);
  CHECK_MESSAGE(resumed.err.find("not a Slurm run") != std::string::npos, resumed.err);
}

TEST_CASE("--help lists the Slurm options") {
  Scratch s("slurm-help");
  const auto r = run(bin("orchestrate") + " --help", s);
  for (const char* opt : {"--executor", "--shards", "--max-running", "--sbatch-option", "--no-wait", "slurm"})
    CHECK_MESSAGE(r.out.find(opt) != std::string::npos, opt);
}

TEST_CASE("--resume of a Slurm run takes neither --like nor --replay-from") {
  // A run directory that says it is a Slurm run (slurm.json): the refusal comes before its
  // shards are read, so no cluster is needed.
  Scratch s("slurm-resume-like");
  const auto sweep = s.write("sweep.yaml", kSweep);
  REQUIRE(run(bin("orchestrate") + " --device cpu --quiet --samples 2 --out " + s.path("r") + " " + sweep, s).exit_code == 0);
  s.write("r/slurm.json", "{}");
  for (const std::string flag : {"--like", "--replay-from"}) {
    const auto r = run(bin("orchestrate") + " --quiet --resume " + s.path("r") + " " + flag + " " + s.path("r"), s);
    CAPTURE(flag);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "orchestrate: --resume " + s.path("r") + ": " + flag + " is not taken: a resumed run measures its own plan\n");
  }
}

TEST_CASE(
    "--resume of a Slurm run resubmits what it was started with: another build, setting or environment is refused") {
  // Slurm's stand-in (fake_slurm): the run is submitted (--no-wait) and its tasks never start, as
  // while they wait in a queue. Every refusal comes before anything is resubmitted or squeue is
  // asked.
  Scratch s("slurm-resume-checks");
  const auto sweep = s.write("sweep.yaml", kSweep);
  // Its squeue cannot reach a controller, whatever the machine has.
  const std::string path =
      "env -u CUBLAS_WORKSPACE_CONFIG " + fake_slurm(s, "echo 'squeue: no controller here' >&2\nexit 1\n");
  const auto started =
      run(path + bin("orchestrate") + " --quiet --device cpu --executor slurm --shards 2 --no-wait --out " +
              s.path("r") + " " + sweep,
          s);
  REQUIRE_MESSAGE(started.exit_code == 0, started.err);
  const std::string resume = bin("orchestrate") + " --quiet --resume " + s.path("r") + " ";
  const std::string prefix = "orchestrate: --resume " + s.path("r") + ": ";
  const std::string plan_before = slurp(s.path("r/plan.json")), slurm_before = slurp(s.path("r/slurm.json"));
  const auto refused = [&](const std::string& args, const std::string& line, const std::string& env = "") {
    const auto r = run(path + env + resume + args, s);
    CAPTURE(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == line + "\n");
  };
  const std::string other = s.write("other-worker", "#!/bin/sh\nexit 1\n");
  fs::permissions(other, fs::perms::owner_exec, fs::perm_options::add);
  refused("--worker " + other, prefix + "--worker " + other + " is not the worker build the run was started with (" +
                                   bin("isobench-worker") +
                                   "); a resumed run measures with its own: leave --worker out");
  refused("--prestart 2", prefix +
                              "--prestart 2 is not what the run was started with (--prestart 0); a resumed run "
                              "measures as it began: leave --prestart out");
  refused("--context-gate off", prefix +
                                    "--context-gate off is not what the run was started with (--context-gate on); "
                                    "a resumed run measures as it began: leave --context-gate out");
  refused("--samples 5", prefix + "--samples is not taken: a resumed run measures its own plan");
  refused("--out elsewhere", prefix + "--out is not taken: a resumed run stays in its own directory");
  refused(sweep, "orchestrate: --resume " + s.path("r") + " and a sweep file " + sweep +
                     ": a resumed run measures its own plan; give one of them");
  refused("--python python3", prefix +
                                  "the Python options (--python, --python-env, ...) are not taken: a resumed run "
                                  "measures with the Python environments it was started with");
  refused("",
          prefix +
              "CUBLAS_WORKSPACE_CONFIG=:4096:8 here, the run was started without it; a resumed run measures in "
              "the environment it began with: set it back, or start a new run",
          "CUBLAS_WORKSPACE_CONFIG=:4096:8 ");
  const std::string worker = bin("isobench-worker");
  const auto ab = run(path + bin("orchestrate") + " ab --quiet --resume " + s.path("r") + " --baseline " + worker +
                          " --candidate " + worker,
                      s);
  CHECK(ab.exit_code == 2);
  CHECK(ab.err == "orchestrate: ab --resume " + s.path("r") + ": resume an A/B run with orchestrate --resume " +
                      s.path("r") + " (it measures the builds its plan names)\n");
  CHECK(slurp(s.path("sbatch-calls")) == "called\n");  // the submission alone
  CHECK(slurp(s.path("r/plan.json")) == plan_before);
  CHECK(slurp(s.path("r/slurm.json")) == slurm_before);
  // What it was started with, named, passes the checks: the resume goes on to ask Slurm, which
  // does not answer here, so nothing is resubmitted.
  const auto same = run(path + resume + "--worker " + bin("isobench-worker") + " --prestart 0", s);
  CHECK(same.exit_code == 3);
  CHECK_MESSAGE(same.err.find("squeue failed") != std::string::npos, same.err);
  CHECK(slurp(s.path("sbatch-calls")) == "called\n");
}

TEST_CASE("--resume of a Slurm run takes --worker-timeout, --retries and --memory-budget for the tasks it resubmits") {
  // As a run resumed here takes them (they decide what happens around a sample, not what it
  // measures): given, they replace slurm.json's task_options, which every task reads as it
  // starts; left out, the recorded ones stay. A squeue that lists no task: every shard is
  // resubmitted.
  Scratch s("slurm-resume-task-options");
  const auto sweep = s.write("sweep.yaml", kSweep);
  const std::string orchestrate = "env " + fake_slurm(s, "exit 0\n") + bin("orchestrate") + " --quiet ";
  auto r = run(orchestrate + "--device cpu --executor slurm --shards 2 --no-wait --worker-timeout 60 --out " +
                   s.path("r") + " " + sweep,
               s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto task_options = [&] { return read_json(s.path("r/slurm.json")).at("task_options"); };
  CHECK(task_options().at("worker_timeout_s") == 60.0);
  CHECK(task_options().at("retries") == 2);
  CHECK(task_options().at("memory_budget_mib") == 0);

  r = run(orchestrate + "--resume " + s.path("r") + " --no-wait --retries 5 --memory-budget 64", s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(slurp(s.path("sbatch-calls")) == "called\ncalled\n");
  CHECK(task_options().at("worker_timeout_s") == 60.0);  // not given: the submission's, not the default
  CHECK(task_options().at("retries") == 5);
  CHECK(task_options().at("memory_budget_mib") == 64);

  r = run(orchestrate + "--resume " + s.path("r") + " --no-wait --worker-timeout 300", s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(task_options().at("worker_timeout_s") == 300.0);
  CHECK(task_options().at("retries") == 5);
  CHECK(task_options().at("memory_budget_mib") == 64);
}
