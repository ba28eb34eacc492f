// Bad input: one clear line naming the file and problem, exit code 2, no run directory.

#include <doctest/doctest.h>

#include <filesystem>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

void check_refused(const std::string& sweep_text, const std::string& expected, const std::string& args = "",
                   const std::string& names = "bad.yaml") {
  Scratch s("bad");
  const auto sweep = s.write("bad.yaml", sweep_text);
  const auto r = run(bin("orchestrate") + " --device cpu --quiet " + args + " --out " + s.path("run") + " " + sweep, s);
  const auto problem = bad_input_problem(r, {expected, names}, s.path("run"));
  CHECK_MESSAGE(problem.empty(), problem);
}

}  // namespace

TEST_CASE("malformed YAML, unknown kernel, wrong values: one line, exit 2, nothing left behind") {
  check_refused("benchmarks: [kernel: cpu_spin\n", "bad.yaml:");
  check_refused("benchmarks:\n  - kernel: cpu_spinn\n", "cpu_spin");
  check_refused("benchmarks:\n  - kernel: cpu_copy\n    axes: {bytez: 4096}\n", "bytez");
  check_refused("settings: {samples: 0}\nbenchmarks:\n  - kernel: cpu_spin\n", "samples");
  check_refused("benchmarks:\n  - kernel: cpu_copy\n    axes: {bytes: abc}\n", "bytes");
}

TEST_CASE("a command-line override out of range is refused the same way") {
  check_refused("benchmarks:\n  - kernel: cpu_spin\n", "must be at least 2", "--samples 1", "--samples");
}

TEST_CASE("sizes past the documented limits are refused up front, with the limit named") {
  check_refused("benchmarks:\n  - kernel: cpu_spin\n", "--samples: must be at most 1000000, got 1000000000",
                "--samples 1000000000", "--samples");
  // 200 x 200 x 200 instances: refused while the sweep is read, before it is built.
  std::string values = "[";
  for (int i = 1; i <= 200; ++i) values += std::to_string(i) + (i < 200 ? ", " : "]");
  check_refused("benchmarks:\n  - command: [true]\n    name: big\n    axes: {a: " + values + ", b: " + values +
                    ", c: " + values + "}\n",
                "expands to 8000000 instances, and the sweep to more than the 100000 one sweep may hold");
  // Within the instance limit but past the 2^22 samples one run may hold (kMaxSamplesPerRun).
  check_refused("benchmarks:\n  - command: [true]\n    name: big\n    axes: {a: " + values + ", b: " + values + "}\n",
                "40000 instances x 10000 samples x 1 sides is 400000000 samples, more than one run holds (4194304)",
                "--samples 10000");
}

TEST_CASE("a missing sweep file and unknown options are refused with exit 2") {
  Scratch s("missing");
  auto r = run(bin("orchestrate") + " --device cpu " + s.path("nope.yaml"), s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("nope.yaml") != std::string::npos);
  r = run(bin("orchestrate") + " --no-such-option x.yaml", s);
  CHECK(r.exit_code == 2);
  r = run(bin("orchestrate") + " --isolation parallel " + s.write("ok.yaml", "benchmarks:\n  - kernel: cpu_spin\n"), s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("isolation") != std::string::npos);
}

TEST_CASE("a sweep with only GPU kernels on a CPU-only device is refused before anything runs") {
  check_refused("benchmarks:\n  - kernel: gemm\n    axes: {m: 64, n: 64, k: 64}\n", "no instance runs on cpu");
}

TEST_CASE("--resume refuses a run directory from a newer schema") {
  Scratch s("newer");
  std::filesystem::create_directories(s.path("run"));
  s.write("run/run.json", R"({"schema_version": 99, "status": "running"})");
  const auto r = run(bin("orchestrate") + " --resume " + s.path("run"), s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("schema_version") != std::string::npos);
  CHECK(r.err.find("run.json") != std::string::npos);
}

TEST_CASE("--help documents every option") {
  Scratch s("help");
  const auto r = run(bin("orchestrate") + " --help", s);
  CHECK(r.exit_code == 0);
  for (const char* opt : {"--isolation", "--per", "--samples", "--resume", "--out", "--device", "--worker-timeout",
                          "--retries", "--json", "--csv", "--markdown", "--seed", "--inner", "compare"})
    CHECK_MESSAGE(r.out.find(opt) != std::string::npos, opt);
}
