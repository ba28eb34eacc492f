// The exit-code contract every verb keeps (orchestrator/errors.hpp): 0 ran, nothing beyond the
// --fail-on rule; 1 a regression by that rule and nothing else; 2 bad input before anything ran,
// no run directory left; 3 the measurement failed; 130 interrupted. The timing verdicts behind
// exit 1 are in test_ab (a timing suite); these cases need no verdict on timing.

#include <doctest/doctest.h>

#include <filesystem>

#include "harness.hpp"

using namespace isobench::testing;
namespace fs = std::filesystem;

namespace {

const char* kSweep = R"(name: codes
settings: {samples: 3, warmup: 1, inner: 2, seed: 3}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [20, 40]}
)";

std::string last_line(const std::string& text) {
  const auto end = text.find_last_not_of('\n');
  if (end == std::string::npos) return "";
  const auto start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

}  // namespace

TEST_CASE("exit 2, before anything runs and with no run directory left: a run directory that exists") {
  Scratch s("codes-exists");
  const auto sweep = s.write("s.yaml", kSweep);
  fs::create_directories(s.path("run"));
  s.write("run/keep.txt", "mine\n");
  const auto r = run(bin("orchestrate") + " --device cpu --quiet --out " + s.path("run") + " " + sweep, s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("run directory exists and is not empty") != std::string::npos);
  CHECK(fs::exists(s.path("run/keep.txt")));
  CHECK_FALSE(fs::exists(s.path("run/plan.json")));
}

TEST_CASE("exit 2: a --worker that does not exist or cannot execute, found before a run directory exists") {
  Scratch s("codes-worker");
  const auto sweep = s.write("s.yaml", kSweep);
  auto r = run(bin("orchestrate") + " --device cpu --quiet --worker " + s.path("nope") + " --out " + s.path("run") +
                   " " + sweep,
               s);
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.find("--worker " + s.path("nope") + ": not an executable worker build (no such file)") !=
                    std::string::npos,
                r.err);
  CHECK_FALSE(fs::exists(s.path("run")));
  const auto text = s.write("text-worker", "not a program\n");
  r = run(bin("orchestrate") + " --device cpu --quiet --worker " + text + " --out " + s.path("run") + " " + sweep, s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("not an executable file") != std::string::npos);
  CHECK_FALSE(fs::exists(s.path("run")));
}

TEST_CASE("exit 2: ab with a plugin library on one side and a worker executable on the other") {
  Scratch s("codes-ab-mixed");
  const auto sweep = s.write("s.yaml", kSweep);
  const auto lib = s.write("libfoo.so", "");
  const auto r = run(bin("orchestrate") + " ab --device cpu --quiet --baseline " + lib + " --candidate " +
                         bin("isobench-worker") + " --out " + s.path("run") + " " + sweep,
                     s);
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.find("one is a plugin library (.so) and the other is not") != std::string::npos, r.err);
  CHECK_FALSE(fs::exists(s.path("run")));
}

TEST_CASE("ab --junit/--summary: a folder that does not exist is exit 2 before a run directory exists; else written") {
  Scratch s("codes-ab-ci");
  const auto sweep = s.write("s.yaml", "settings: {samples: 8, warmup: 0, inner: 1, seed: 3}\n"
                                       "benchmarks:\n  - kernel: cpu_spin\n    axes: {microseconds: [5, 10]}\n");
  const std::string ab = bin("orchestrate") + " ab --device cpu --quiet --fail-on never --baseline " +
                         bin("isobench-worker") + " --candidate " + bin("isobench-worker") + " --out " + s.path("run");
  auto r = run(ab + " --junit " + s.path("nope/ab.xml") + " " + sweep, s);
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err == "orchestrate: --junit " + s.path("nope/ab.xml") + ": no folder " + s.path("nope") + "\n", r.err);
  CHECK_FALSE(fs::exists(s.path("run")));
  r = run(ab + " --junit " + s.path("ab.xml") + " --summary " + s.path("ab.md") + " " + sweep, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string xml = slurp(s.path("ab.xml")), md = slurp(s.path("ab.md"));
  CHECK(xml.find("<testsuite name=\"orchestrate ab\" tests=\"2\" failures=\"0\"") != std::string::npos);
  CHECK(xml.find("<testcase name=\"cpu_spin[microseconds=5]\" classname=\"isobench.ab\"") != std::string::npos);
  CHECK(md.rfind("<!-- isobench: orchestrate ab -->\n### isobench, orchestrate ab: passed\n", 0) == 0);
  CHECK(md.find("**outcome**: 2 compared: ") != std::string::npos);
}

TEST_CASE("exit 3: samples missing after every retry (a worker that always crashes), never 1") {
  Scratch s("codes-crash");
  const auto sweep = s.write("s.yaml", kSweep);
  const auto r = run("ISOBENCH_TEST_FAULT=segv " + bin("orchestrate") + " --device cpu --quiet --retries 1 --worker " +
                         bin("isobench-fault-worker") + " --out " + s.path("run") + " " + sweep,
                     s);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("samples failed") != std::string::npos);
  CHECK(read_json(s.path("run/run.json"))["status"] == "incomplete");
}

TEST_CASE("exit 3: a calibration that fails after every retry; the run directory says so and --resume is offered") {
  Scratch s("codes-calibration");
  const auto sweep = s.write("s.yaml", "settings: {samples: 3, inner: auto, min_sample_time_ms: 1}\n"
                                       "benchmarks:\n  - kernel: cpu_spin\n    axes: {microseconds: 20}\n");
  const auto r = run("ISOBENCH_TEST_FAULT=abort " + bin("orchestrate") + " --device cpu --quiet --retries 1 --worker " +
                         bin("isobench-fault-worker") + " --out " + s.path("run") + " " + sweep,
                     s);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("calibration failed for cpu_spin[microseconds=20]") != std::string::npos);
  CHECK(r.err.find("orchestrate --resume " + s.path("run")) != std::string::npos);
  const auto info = read_json(s.path("run/run.json"));
  CHECK(info["status"] == "failed");
}

TEST_CASE("compare: exit 2 when it compared nothing; its last line says how many it left out and why") {
  Scratch s("codes-compare");
  const auto a = s.write("a.yaml", kSweep);
  const auto b = s.write("b.yaml", R"(name: codes
settings: {samples: 3, warmup: 1, inner: 2, seed: 3}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [40, 80]}
)");
  REQUIRE(run(bin("orchestrate") + " --device cpu --quiet --out " + s.path("A") + " " + a, s).exit_code == 0);
  REQUIRE(run(bin("orchestrate") + " --device cpu --quiet --out " + s.path("B") + " " + b, s).exit_code == 0);
  // One instance shared (40 us), one only in each run.
  auto r = run(bin("orchestrate") + " compare " + s.path("A") + " " + s.path("B"), s);
  CHECK(r.exit_code == 0);
  CHECK_MESSAGE(last_line(r.out).starts_with("outcome: 1 compared: "), r.out);
  const std::string both = " (measure it in both runs, with one sweep)";
  CHECK_MESSAGE(last_line(r.out).find("; 2 not compared: 1 only in " + s.path("A") + both + ", 1 only in " + s.path("B") +
                                      both + " -> exit 0") != std::string::npos,
                r.out);
  // Nothing shared: nothing compared is no success.
  const auto c = s.write("c.yaml", R"(name: codes
settings: {samples: 3, warmup: 1, inner: 2, seed: 3}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [160]}
)");
  REQUIRE(run(bin("orchestrate") + " --device cpu --quiet --out " + s.path("C") + " " + c, s).exit_code == 0);
  r = run(bin("orchestrate") + " compare " + s.path("A") + " " + s.path("C"), s);
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(last_line(r.out) == "outcome: nothing compared; 3 not compared: 2 only in " + s.path("A") + both +
                                        ", 1 only in " + s.path("C") + both + " -> exit 2",
                r.out);
}

TEST_CASE("the progress line names its phase: calibration, then measuring") {
  Scratch s("codes-progress");
  const auto sweep = s.write("s.yaml", "settings: {samples: 3, inner: auto, min_sample_time_ms: 1}\n"
                                       "benchmarks:\n  - kernel: cpu_spin\n    axes: {microseconds: 20}\n");
  const auto r = run(bin("orchestrate") + " --device cpu --format none --out " + s.path("run") + " " + sweep, s);
  REQUIRE(r.exit_code == 0);
  const auto calibrating = r.err.find("calibrating inner counts (1 instances) | samples 0/3");
  const auto measuring = r.err.find("measuring | samples");
  CHECK_MESSAGE(calibrating != std::string::npos, r.err);
  CHECK_MESSAGE(measuring != std::string::npos, r.err);
  CHECK(calibrating < measuring);
}

TEST_CASE("every verb's --help states the exit codes") {
  Scratch s("codes-help");
  for (const std::string verb : {"", "ab ", "calibrate "}) {
    CAPTURE(verb);
    const auto r = run(bin("orchestrate") + " " + verb + "--help", s);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("Exit codes: 0 ran") != std::string::npos);
    CHECK(r.out.find("1 a regression by the --fail-on rule (and nothing else)") != std::string::npos);
  }
  const auto r = run(bin("orchestrate") + " compare --help", s);
  CHECK(r.out.find("Exit code 0: no verdict named by --fail-on; 1: one is; 2: bad input, or nothing compared") !=
        std::string::npos);
}
