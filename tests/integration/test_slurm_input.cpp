// Bad input to the Slurm executor, refused before anything is submitted: one line, exit code 2,
// no run directory left. Needs no cluster (test_slurm.cpp has the ones that do).

#include <doctest/doctest.h>


#include "harness.hpp"

using namespace isobench::testing;

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
