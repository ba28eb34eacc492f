// Any program as a benchmark (docs/command-protocol.md) through the real orchestrate and
// workers: one fresh invocation per sample, the samples are the values the program prints, and
// a program that fails is a failed worker with its reason in log.txt.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

std::string cpu_loop_sweep() {
  return "name: commands\n"
         "settings: {samples: 3, seed: 3}\n"
         "benchmarks:\n"
         "  - command: [python3, " +
         source_dir() +
         "/examples/command/cpu_loop.py]\n"
         "    name: py_loop\n"
         "    axes: {iterations: [2000, 4000], repeats: 2}\n";
}

// A program whose samples are known: value = iterations * 1e-6, between lines of chatter.
const char* kEcho = R"(import json, os, sys
print("starting", flush=True)
params = json.loads(os.environ["ISOBENCH_PARAMS"])
assert os.environ["ISOBENCH_PROTOCOL"] == "1"
assert int(os.environ["ISOBENCH_PARAM_ITERATIONS"]) == params["iterations"]
assert os.environ["ISOBENCH_PARAM_LABEL"] == params["label"]
with open("invocations.txt", "a") as f:
    f.write(os.environ["ISOBENCH_INSTANCE"] + "\n")
print("{\"note\": \"a JSON line without the isobench key\"}")
print(json.dumps({"isobench": 1, "value": params["iterations"] * 1e-6}))
print("done")
)";

struct CommandRun {
  Result result;
  std::vector<nlohmann::json> samples;
};

CommandRun run_sweep(const Scratch& s, const std::string& sweep_text, const std::string& args) {
  const auto sweep = s.write("sweep.yaml", sweep_text);
  CommandRun c;
  c.result = run(
      bin("orchestrate") + " --device cpu --quiet --retries 0 " + args + " --out " + s.path("run") + " " + sweep, s);
  if (std::filesystem::exists(s.path("run/samples.jsonl"))) c.samples = read_jsonl(s.path("run/samples.jsonl"));
  return c;
}

}  // namespace

TEST_CASE("a command benchmark runs in process --per batch and interleave modes") {
  for (const std::string mode : {"--isolation process --per batch", "--isolation interleave"}) {
    CAPTURE(mode);
    Scratch s("command-modes");
    const auto c = run_sweep(s, cpu_loop_sweep(), mode);
    REQUIRE_MESSAGE(c.result.exit_code == 0, c.result.err);
    CHECK(c.samples.size() == 6);
    std::map<std::string, int> per_instance;
    for (const auto& x : c.samples) {
      per_instance[x["instance"]]++;
      CHECK(x["value"].get<double>() > 0);
      CHECK(x["inner"] == 1);
    }
    CHECK(per_instance["py_loop[iterations=2000,repeats=2]"] == 3);
    CHECK(per_instance["py_loop[iterations=4000,repeats=2]"] == 3);
    const auto plan = read_json(s.path("run/plan.json"));
    CHECK(plan["instances"][0]["backend"] == "command");
    CHECK(plan["instances"][0]["inner"] == 1);
    CHECK(plan["instances"][0]["warmup"] == 0);
    CHECK(plan["skipped"].empty());
  }
}

TEST_CASE("the samples are the values the program prints, one fresh invocation per sample") {
  Scratch s("command-echo");
  s.write("echo.py", kEcho);
  const auto c = run_sweep(s,
                           "settings: {samples: 4}\n"
                           "benchmarks:\n"
                           "  - command: [python3, echo.py]\n"  // relative to the sweep's folder, run there
                           "    name: echo\n"
                           "    axes: {iterations: [1000, 3000], label: abc}\n",
                           "--isolation process --per sample");
  REQUIRE_MESSAGE(c.result.exit_code == 0, c.result.err);
  REQUIRE(c.samples.size() == 8);
  for (const auto& x : c.samples) {
    const double expected = x["instance"] == "echo[iterations=1000,label=abc]" ? 1000e-6 : 3000e-6;
    CHECK(x["value"].get<double>() == doctest::Approx(expected).epsilon(1e-12));
  }
  // Exactly one invocation per sample: no warm-up or calibration runs of the program.
  const auto invocations = slurp(s.path("invocations.txt"));
  CHECK(std::count(invocations.begin(), invocations.end(), '\n') == 8);
}

TEST_CASE("a program that fails is a failed worker with the reason in log.txt") {
  const std::map<std::string, std::string> programs = {
      {"import sys\nprint('garbage')\nsys.exit(1)\n", "exited with code 1"},
      {"print('garbage, no sample')\n", "printed no sample"},
      {"print('{\"isobench\": 2, \"value\": 0.1}')\n", "protocol version 2, this worker speaks 1"},
      {"print('{\"isobench\": 1, \"value\": -3}')\n", "must be a positive, finite number of seconds"},
  };
  for (const auto& [program, reason] : programs) {
    CAPTURE(reason);
    Scratch s("command-fail");
    s.write("bad.py", program);
    const auto c = run_sweep(s,
                             "settings: {samples: 2}\n"
                             "benchmarks:\n"
                             "  - command: [python3, bad.py]\n"
                             "    name: bad\n",
                             "--isolation process --per batch");
    CHECK(c.result.exit_code == 3);  // samples missing after the worker failures
    CHECK(c.samples.empty());
    const auto log = slurp(s.path("run/log.txt"));
    CHECK_MESSAGE(log.find("worker-failed") != std::string::npos, log);
    CHECK_MESSAGE(log.find(reason) != std::string::npos, log);
  }
}

TEST_CASE("command benchmarks are checked before anything runs") {
  Scratch s("command-bad");
  const std::map<std::string, std::string> sweeps = {
      {"benchmarks:\n  - command: [python3, x.py]\n", "benchmarks[0].name: missing"},
      {"benchmarks:\n  - command: [no-such-program-xyz]\n    name: a\n",
       "benchmarks[0].command[0]: program \"no-such-program-xyz\" is not in PATH"},
      {"benchmarks:\n  - command: python3\n    name: a\n", "benchmarks[0].command: expected a list"},
      {"benchmarks:\n  - command: [python3]\n    name: a\n    axes: {n: [1, abc]}\n",
       "benchmarks[0].axes.n: expected integer values like the axis's others, got \"abc\""},
      {"benchmarks:\n  - command: [python3]\n    kernel: cpu_copy\n    name: a\n",
       "a benchmark is a kernel or a command, not both"},
  };
  for (const auto& [text, message] : sweeps) {
    CAPTURE(text);
    const auto c = run_sweep(s, text, "");
    CHECK(c.result.exit_code == 2);
    CHECK_MESSAGE(c.result.err.find(message) != std::string::npos, c.result.err);
    CHECK(!std::filesystem::exists(s.path("run")));
  }
}
