// The exit-code contract every verb keeps (orchestrator/errors.hpp): 0 ran, nothing beyond the
// --fail-on rule; 1 a regression by that rule and nothing else; 2 bad input before anything ran,
// no run directory left; 3 the measurement failed; 130 interrupted. The timing verdicts behind
// exit 1 are in test_ab (a timing suite); these cases need no verdict on timing.

#include <doctest/doctest.h>

#include <algorithm>
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

TEST_CASE("exit 3: samples missing after every retry (a worker that always crashes after its first sample), never 1") {
  Scratch s("codes-crash");
  // Samples of milliseconds: the fault worker's watcher sees the first task done before the last.
  const auto sweep = s.write("s.yaml", "settings: {samples: 4, warmup: 0, inner: 1}\nbenchmarks:\n"
                                       "  - kernel: cpu_spin\n    axes: {microseconds: [3000]}\n");
  const auto r = run("ISOBENCH_TEST_FAULT=segv-after:1 " + bin("orchestrate") + " --device cpu --quiet --isolation sequential --retries 0 --worker " +
                         bin("isobench-fault-worker") + " --out " + s.path("run") + " " + sweep,
                     s);
  CHECK(r.exit_code == 3);
  CHECK(r.err.find("samples failed") != std::string::npos);
  CHECK(read_json(s.path("run/run.json"))["status"] == "incomplete");
}

// Said once with its cause, not retried, and no --resume offered as if it could help.
void check_deterministic_failure(const Result& r, const std::string& run_dir, const std::string& cause) {
  CHECK(r.exit_code == 3);
  CHECK_MESSAGE(std::count(r.err.begin(), r.err.end(), '\n') == 1, r.err);
  CHECK_MESSAGE(r.err.find("workers failed before their first sample with one cause, not retried: " + cause) !=
                    std::string::npos,
                r.err);
  CHECK_MESSAGE(r.err.find("--resume") == std::string::npos, r.err);
  CHECK(read_jsonl(run_dir + "/samples.jsonl", "worker_failure").size() == 2);  // the cause, and once more
  const auto info = read_json(run_dir + "/run.json");
  CHECK(info["status"] == "incomplete");
  CHECK(info["error"].get<std::string>().find(cause) != std::string::npos);
}

TEST_CASE("exit 3, said once and not retried: a calibration whose every worker aborts before its first sample") {
  Scratch s("codes-calibration");
  const auto sweep = s.write("s.yaml", "settings: {samples: 3, inner: auto, min_sample_time_ms: 1}\n"
                                       "benchmarks:\n  - kernel: cpu_spin\n    axes: {microseconds: 20}\n");
  const auto r = run("ISOBENCH_TEST_FAULT=abort " + bin("orchestrate") + " --device cpu --quiet --worker " +
                         bin("isobench-fault-worker") + " --out " + s.path("run") + " " + sweep,
                     s);
  check_deterministic_failure(r, s.path("run"), "killed by SIGABRT");
  CHECK_FALSE(fs::exists(s.path("run/calibration.json")));
}

TEST_CASE("exit 3, said once and not retried: --worker /bin/false, and an A/B baseline that exits 0 without a report") {
  Scratch s("codes-deterministic");
  const auto sweep = s.write("s.yaml", kSweep);
  auto r = run(bin("orchestrate") + " --device cpu --quiet --per sample --worker /bin/false --out " + s.path("run") +
                   " " + sweep,
               s);
  check_deterministic_failure(r, s.path("run"), "exit code 1");
  r = run(bin("orchestrate") + " ab --device cpu --quiet --fail-on never --baseline /bin/true --candidate " +
              bin("isobench-worker") + " --out " + s.path("ab") + " " + sweep,
          s);
  check_deterministic_failure(r, s.path("ab"), "exited without finishing its tasks");
  CHECK_MESSAGE(r.out.find("--resume") == std::string::npos, r.out);  // no verdicts offering a resume
}

// Runs `orchestrate ARGS` where `disk` is a tmpfs of `kib` KiB (a full disk, in a mount namespace of
// its own: no root needed where user namespaces are allowed, and nothing left mounted), then copies
// what it left there to `left`. Exit code 125: no namespace could be made here.
Result on_small_disk(const Scratch& s, int kib, const std::string& args, const std::string& left) {
  const std::string disk = s.path("disk");
  fs::create_directories(disk);
  s.write("disk.sh", "mount -t tmpfs -o size=" + std::to_string(kib) + "k tmpfs " + disk + " || exit 125\n" +
                         bin("orchestrate") + " " + args + " 2>" + s.path("disk-err.txt") + "\ncode=$?\n" +
                         "if [ -e " + disk + "/run ]; then cp -r " + disk + "/run " + left + "; fi\nexit $code\n");
  Result r = run("unshare -rm sh " + s.path("disk.sh"), s);
  r.err = slurp(s.path("disk-err.txt"));
  return r;
}

TEST_CASE("exit 3 on a full disk, never an abort: the run directory is left resumable, or removed if it was no run yet") {
  Scratch s("codes-full-disk");
  const auto sweep = s.write("s.yaml", "settings: {samples: 200, warmup: 0, inner: 1, isolation: process, per: batch}\n"
                                       "benchmarks:\n  - kernel: cpu_spin\n    axes: {microseconds: [1, 2]}\n");
  const std::string run_dir = s.path("disk/run");
  auto r = on_small_disk(s, 64, "--device cpu --quiet --format none --out " + run_dir + " " + sweep, s.path("left"));
  if (r.exit_code == 125) {
    MESSAGE("no mount namespace here (unshare -rm): the full-disk case is not run");
    return;
  }
  // The journal fills the disk: one line naming the file, and --resume (on a disk with room) finishes the run.
  CHECK(r.exit_code == 3);
  CHECK_MESSAGE(std::count(r.err.begin(), r.err.end(), '\n') == 1, r.err);
  CHECK_MESSAGE(r.err.find(run_dir + "/") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("No space left on device") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("(finish with: orchestrate --resume " + run_dir + ")") != std::string::npos, r.err);
  REQUIRE(fs::exists(s.path("left/run.json")));
  const auto resumed = run(bin("orchestrate") + " --quiet --format none --resume " + s.path("left"), s);
  CHECK_MESSAGE(resumed.exit_code == 0, resumed.err);
  CHECK(read_json(s.path("left/run.json"))["status"] == "complete");
  CHECK(read_jsonl(s.path("left/samples.jsonl")).size() == 400);
  // A disk too small for the plan: no run to resume, so no directory left.
  fs::remove_all(s.path("left"));
  r = on_small_disk(s, 4, "--device cpu --quiet --format none --out " + run_dir + " " + sweep, s.path("left"));
  CHECK(r.exit_code == 3);
  CHECK_MESSAGE(r.err == "orchestrate: " + run_dir + "/plan.json.tmp: cannot write; nothing was measured (" + run_dir +
                             " removed)\n",
                r.err);
  CHECK_FALSE(fs::exists(s.path("left")));
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

TEST_CASE("UNCERTAIN: the outcome line says what the run could not resolve; --fail-on uncertain makes it exit 1") {
  Scratch s("codes-uncertain");
  std::string a, b;
  for (int i = 0; i < 10; ++i) {
    a += std::to_string(1.0 + 0.03 * i) + "\n";
    b += std::to_string(1.0 + 0.03 * ((i * 7) % 10)) + "\n";  // the same values in another order
  }
  const std::string files = " --samples " + s.write("a.txt", a) + " " + s.write("b.txt", b);
  auto r = run(bin("orchestrate") + " compare" + files, s);
  CHECK(r.exit_code == 0);
  const std::string outcome = last_line(r.out);
  CHECK_MESSAGE(outcome.starts_with("outcome: 1 compared: 1 UNCERTAIN; where UNCERTAIN, this run cannot resolve a "
                                    "change of 2.00% (the noise floor, --threshold): intervals as wide as ["),
                outcome);
  CHECK_MESSAGE(outcome.find("% of the ratio at 10 samples per side; about ") != std::string::npos, outcome);
  CHECK_MESSAGE(outcome.ends_with(" samples per side would narrow it to the floor (--samples N, or ab --until-verdict) "
                                  "-> exit 0"),
                outcome);
  r = run(bin("orchestrate") + " compare --fail-on uncertain" + files, s);
  CHECK(r.exit_code == 1);
  CHECK(last_line(r.out).ends_with("-> exit 1"));
  // A rule that names no verdict of this comparison leaves the exit code 0.
  CHECK(run(bin("orchestrate") + " compare --fail-on faster" + files, s).exit_code == 0);
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
