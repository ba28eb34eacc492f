// SIGINT and SIGKILL of the orchestrator: nothing measured is lost, and --resume finishes the
// run with exactly the planned samples. Ctrl-C works in every phase: while a large sweep is read
// and planned (nothing is left behind), while inner counts are calibrated, in an A/B run and in a
// calibration.

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

const char* kSweep = R"(settings: {samples: 30, warmup: 1, inner: 2, seed: 9}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [50, 100]}
)";

// Cuts a finished run back to its first `keep` samples and marks it interrupted, as a Ctrl-C
// leaves it.
void interrupt_after(const Scratch& s, const std::string& run, std::size_t keep) {
  const std::string journal = s.path(run + "/samples.jsonl");
  std::string kept;
  std::size_t samples = 0;
  for (const auto& line : lines(journal)) {
    const auto j = nlohmann::json::parse(line);
    if (j.value("type", "sample") == "sample" && ++samples > keep) break;
    kept += line + "\n";
  }
  std::ofstream(journal, std::ios::trunc) << kept;
  auto info = read_json(s.path(run + "/run.json"));
  info["status"] = "interrupted";
  std::ofstream(s.path(run + "/run.json"), std::ios::trunc) << info.dump();
}

// Starts orchestrate with `args` in the background, its stderr into the scratch folder.
pid_t start_orchestrate(const Scratch& s, const std::vector<std::string>& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string exe = bin("orchestrate");
    freopen("/dev/null", "w", stdout);
    freopen(s.path("stderr.txt").c_str(), "w", stderr);
    std::vector<char*> argv{const_cast<char*>(exe.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

// Waits (a minute at most) until `ready` holds, sends `sig` and returns the wait status.
int signal_when(pid_t pid, int sig, const std::function<bool()>& ready) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && !ready())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  kill(pid, sig);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// Whether `pid` is orchestrate (exec done: the forked child still runs this test's image, with
// doctest's handlers) and has its own handler for SIGINT yet (SigCgt in /proc/PID/status):
// orchestrate installs it first thing in a run, so from then on Ctrl-C asks it to stop.
bool catches_sigint(pid_t pid) {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
  if (ec || exe.filename() != "orchestrate") return false;
  const std::string status = slurp("/proc/" + std::to_string(pid) + "/status");
  const auto at = status.find("SigCgt:");
  if (at == std::string::npos) return false;
  return (std::stoull(status.substr(at + 7), nullptr, 16) >> (SIGINT - 1)) & 1;
}

bool log_holds(const Scratch& s, const std::string& tag) {
  return slurp(s.path("run/log.txt")).find("[" + tag + "]") != std::string::npos;
}

// Starts orchestrate in the background, waits until the journal holds `lines` samples, then
// sends `sig`. Returns the wait status; `pid` gets the orchestrator's pid.
int start_and_signal(const Scratch& s, int sig, std::size_t lines, pid_t* orchestrator = nullptr) {
  const auto sweep = s.write("resume.yaml", kSweep);
  const pid_t pid = start_orchestrate(s, {"--device", "cpu", "--quiet", "--isolation", "process", "--per", "sample",
                                          "--out", s.path("run"), sweep});
  if (orchestrator) *orchestrator = pid;
  return signal_when(pid, sig, [&] {
    return std::filesystem::exists(s.path("run/samples.jsonl")) &&
           samples_so_far(s.path("run/samples.jsonl")) >= lines;
  });
}

void check_resumed_complete(const Scratch& s) {
  const auto r = run(bin("orchestrate") + " --quiet --resume " + s.path("run"), s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto samples = read_jsonl(s.path("run/samples.jsonl"));
  CHECK(samples.size() == 60);
  std::set<std::uint32_t> slots;
  for (const auto& x : samples) CHECK(slots.insert(x["slot"].get<std::uint32_t>()).second);
  CHECK(slots.size() == 60);
  CHECK(read_json(s.path("run/run.json"))["status"] == "complete");
  // A second resume has nothing to do.
  const auto again = run(bin("orchestrate") + " --quiet --resume " + s.path("run"), s);
  CHECK(again.exit_code == 0);
  CHECK(read_jsonl(s.path("run/samples.jsonl")).size() == 60);
}

}  // namespace

TEST_CASE("SIGINT: workers stopped, segment removed, run marked interrupted, resume completes it") {
  Scratch s("sigint");
  const int status = start_and_signal(s, SIGINT, 5);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(read_json(s.path("run/run.json"))["status"] == "interrupted");
  const auto kept = read_jsonl(s.path("run/samples.jsonl")).size();
  CHECK(kept >= 5);
  CHECK(kept < 60);
  check_resumed_complete(s);
}

TEST_CASE("SIGKILL: the stale segment is removed on the next start and resume completes the run") {
  Scratch s("sigkill");
  pid_t killed = 0;
  const int status = start_and_signal(s, SIGKILL, 5, &killed);
  REQUIRE(WIFSIGNALED(status));
  // The killed orchestrator's segment (its pid is in the name) stays behind until some orchestrator
  // starts (another test running in parallel may be the one that removes it)...
  const std::string prefix = "isobench-" + std::to_string(killed) + "-";
  auto segments_of_killed = [&] {
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator("/dev/shm"))
      if (e.path().filename().string().rfind(prefix, 0) == 0) ++n;
    return n;
  };
  CHECK(segments_of_killed() <= 1);
  // ...until the next start removes it, and the resume completes the run.
  check_resumed_complete(s);
  CHECK(segments_of_killed() == 0);
}

TEST_CASE("SIGINT while a sweep at the instance limit is read and planned: exit 130, one line, no run directory") {
  Scratch s("sigint-planning");
  // 400 x 250 = 100,000 instances, the most a sweep may hold (orchestrator/sweep.hpp): seconds of
  // reading and planning, into which the signal comes as soon as orchestrate can take it.
  std::string a = "[", b = "[";
  for (int i = 1; i <= 400; ++i) a += std::to_string(i) + (i < 400 ? ", " : "]");
  for (int i = 1; i <= 250; ++i) b += std::to_string(i) + (i < 250 ? ", " : "]");
  const auto sweep = s.write("big.yaml", "settings: {samples: 2}\nbenchmarks:\n  - command: [\"true\"]\n    name: big\n"
                                         "    axes: {a: " + a + ", b: " + b + "}\n");
  const pid_t pid = start_orchestrate(s, {"--device", "cpu", "--quiet", "--out", s.path("run"), sweep});
  const int status = signal_when(pid, SIGINT, [&] { return catches_sigint(pid); });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  const std::string err = slurp(s.path("stderr.txt"));
  CHECK_MESSAGE(err.starts_with("orchestrate: interrupted while "), err);
  CHECK_MESSAGE(err.find("; nothing was measured\n") != std::string::npos, err);
  CHECK(std::count(err.begin(), err.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(s.path("run")));
}

TEST_CASE("SIGINT while inner counts are calibrated: exit 130, marked interrupted, resume completes it") {
  Scratch s("sigint-calibration");
  const auto sweep = s.write("auto.yaml", R"(settings: {samples: 3, warmup: 0, inner: auto, min_sample_time_ms: 400}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [20, 40, 80, 160]}
)");
  const pid_t pid = start_orchestrate(s, {"--device", "cpu", "--quiet", "--out", s.path("run"), sweep});
  // The first worker has started, and the calibration (1.6 s of samples at least) is not done.
  const int status = signal_when(pid, SIGINT, [&] { return log_holds(s, "worker-start"); });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK_FALSE(log_holds(s, "calibrated"));
  CHECK(read_json(s.path("run/run.json"))["status"] == "interrupted");
  const auto r = run(bin("orchestrate") + " --quiet --resume " + s.path("run"), s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(read_jsonl(s.path("run/samples.jsonl")).size() == 12);
  CHECK(read_json(s.path("run/run.json"))["status"] == "complete");
}

TEST_CASE("SIGINT in an A/B run: exit 130, and orchestrate --resume finishes it with its verdicts") {
  Scratch s("sigint-ab");
  const auto sweep = s.write("ab.yaml", kSweep);
  const std::string worker = bin("isobench-worker");
  const pid_t pid = start_orchestrate(s, {"ab", "--device", "cpu", "--quiet", "--per", "sample", "--fixed-n", "--baseline",
                                          worker, "--candidate", worker, "--out", s.path("run"), sweep});
  const int status = signal_when(pid, SIGINT, [&] {
    return std::filesystem::exists(s.path("run/samples.jsonl")) && samples_so_far(s.path("run/samples.jsonl")) >= 5;
  });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(read_json(s.path("run/run.json"))["status"] == "interrupted");
  CHECK(read_jsonl(s.path("run/samples.jsonl")).size() < 120);
  const auto r = run(bin("orchestrate") + " --quiet --resume " + s.path("run"), s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);  // the same build on both sides: no SLOWER
  CHECK(read_jsonl(s.path("run/samples.jsonl")).size() == 120);
  CHECK_MESSAGE(r.out.find("outcome: 2 compared: ") != std::string::npos, r.out);
}

TEST_CASE("SIGINT in a calibration: exit 130, and calibrate --resume finishes it") {
  Scratch s("sigint-calibrate");
  const auto sweep = s.write("cal.yaml", kSweep);
  const pid_t pid = start_orchestrate(s, {"calibrate", "--device", "cpu", "--quiet", "--runs", "2", "--modes", "process",
                                          "--samples", "20", "--power-repetitions", "10", "--max-n", "8", "--out",
                                          s.path("cal"), sweep});
  const int status = signal_when(pid, SIGINT, [&] {
    const auto journal = s.path("cal/process/run-0/samples.jsonl");
    return std::filesystem::exists(journal) && samples_so_far(journal) >= 3;
  });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK_MESSAGE(slurp(s.path("stderr.txt")).find("orchestrate calibrate --resume " + s.path("cal")) != std::string::npos,
                slurp(s.path("stderr.txt")));
  CHECK_FALSE(std::filesystem::exists(s.path("cal/calibration.json")));
  const auto r = run(bin("orchestrate") + " calibrate --quiet --resume " + s.path("cal"), s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(std::filesystem::exists(s.path("cal/calibration.json")));
  CHECK(read_jsonl(s.path("cal/process/run-1/samples.jsonl")).size() == 40);
}

TEST_CASE("SIGINT in a calibration's analysis: exit 130 at once, nothing of the analysis written, --resume analyses") {
  Scratch s("sigint-calibrate-analysis");
  const auto sweep = s.write("cal.yaml", kSweep);
  auto r = run(bin("orchestrate") + " calibrate --device cpu --quiet --runs 2 --modes process --samples 8 "
                   "--power-repetitions 10 --max-n 8 --out " + s.path("cal") + " " + sweep, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // Every run complete; an analysis that would simulate for hours (10^9 comparisons per point).
  std::filesystem::remove(s.path("cal/calibration.json"));
  std::filesystem::remove(s.path("cal/report.md"));
  auto spec = read_json(s.path("cal/experiment.json"));
  spec["analysis"]["power_repetitions"] = 1000000000;
  std::ofstream(s.path("cal/experiment.json"), std::ios::trunc) << spec.dump(2);
  const pid_t pid = start_orchestrate(s, {"calibrate", "--resume", s.path("cal")});
  const int status = signal_when(pid, SIGINT, [&] {
    return catches_sigint(pid) && slurp(s.path("stderr.txt")).find("0 to run") != std::string::npos;
  });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK_MESSAGE(slurp(s.path("stderr.txt")).find("interrupted during the analysis (every run is complete)") !=
                    std::string::npos,
                slurp(s.path("stderr.txt")));
  CHECK_FALSE(std::filesystem::exists(s.path("cal/calibration.json")));
  CHECK_FALSE(std::filesystem::exists(s.path("cal/report.md")));

  spec["analysis"]["power_repetitions"] = 10;
  std::ofstream(s.path("cal/experiment.json"), std::ios::trunc) << spec.dump(2);
  r = run(bin("orchestrate") + " calibrate --quiet --resume " + s.path("cal"), s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(std::filesystem::exists(s.path("cal/calibration.json")));
}

TEST_CASE("--resume while the run's orchestrator still measures: refused in one line, exit 2, nothing written") {
  Scratch s("concurrent-resume"), other("concurrent-resume-other");
  // Enough samples that the first orchestrator is still measuring when the second one tries.
  const auto sweep = s.write("long.yaml", "settings: {samples: 400, warmup: 1, inner: 2, seed: 9}\nbenchmarks:\n"
                                          "  - kernel: cpu_spin\n    axes: {microseconds: [50]}\n");
  const pid_t first = start_orchestrate(s, {"--device", "cpu", "--quiet", "--isolation", "process", "--per", "sample",
                                            "--out", s.path("run"), sweep});
  wait_for_samples(s.path("run/samples.jsonl"), 3);
  const std::string run_json = slurp(s.path("run/run.json"));
  const Result second = run(bin("orchestrate") + " --quiet --resume " + s.path("run"), other);
  CHECK(second.exit_code == 2);
  CHECK_MESSAGE(second.err == "orchestrate: --resume " + s.path("run") + ": another orchestrate is measuring this run now (" +
                                  s.path("run/run.lock") + " is locked); let it finish, or stop it, then --resume " +
                                  s.path("run") + "\n",
                second.err);
  // A second --out of the run is told the same, not to --resume it.
  const Result out = run(bin("orchestrate") + " --device cpu --quiet --out " + s.path("run") + " " + sweep, other);
  CHECK(out.exit_code == 2);
  CHECK_MESSAGE(out.err == "orchestrate: " + s.path("run") +
                               ": run directory exists and is not empty (another orchestrate is measuring it now)\n",
                out.err);
  CHECK(slurp(s.path("run/run.json")) == run_json);
  CHECK_FALSE(std::filesystem::exists(s.path("run/environment-resume.json")));
  CHECK(slurp(s.path("run/log.txt")).find("[run-start] resumed") == std::string::npos);
  // The first one goes on undisturbed: stopped now, it kept one sample per slot.
  kill(first, SIGINT);
  int status = 0;
  waitpid(first, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  std::set<std::uint32_t> slots;
  for (const auto& x : read_jsonl(s.path("run/samples.jsonl"))) CHECK(slots.insert(x["slot"].get<std::uint32_t>()).second);
}

TEST_CASE("a journal holding a planned sample twice: the run counts it once, completes, and says no wrapped count") {
  Scratch s("duplicate-samples");
  const auto sweep = s.write("tiny.yaml", "settings: {samples: 4, warmup: 1, inner: 2, isolation: process, per: batch}\n"
                                          "benchmarks:\n  - kernel: cpu_spin\n    axes: {microseconds: [20]}\n");
  REQUIRE(run(bin("orchestrate") + " --device cpu --quiet --out " + s.path("run") + " " + sweep, s).exit_code == 0);
  // Two orchestrators that once measured one run at once left every sample line twice.
  const std::string journal = slurp(s.path("run/samples.jsonl"));
  std::ofstream(s.path("run/samples.jsonl"), std::ios::app) << journal;
  auto info = read_json(s.path("run/run.json"));
  info["status"] = "incomplete";
  std::ofstream(s.path("run/run.json"), std::ios::trunc) << info.dump(2);
  const Result r = run(bin("orchestrate") + " --quiet --format none --resume " + s.path("run"), s);
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("samples failed") == std::string::npos);
  CHECK(read_json(s.path("run/run.json"))["status"] == "complete");
  CHECK(read_json(s.path("run/run.json"))["samples_recorded"] == 4);
}

TEST_CASE("a run started with --worker resumes with that build only; another --worker, or the build gone, is refused") {
  Scratch s("resume-worker");
  // A build of its own path, so that the journal tells it from the default isobench-worker.
  const std::string mine = s.path("my-worker");
  std::filesystem::copy_file(bin("isobench-worker"), mine);
  std::filesystem::permissions(mine, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
  const auto sweep = s.write("w.yaml", "settings: {samples: 6, warmup: 0, inner: 1, seed: 3}\n"
                                       "benchmarks:\n  - kernel: cpu_spin\n    axes: {microseconds: [5]}\n");
  const std::string orchestrate = bin("orchestrate") + " --quiet ";
  auto r = run(orchestrate + "--device cpu --isolation process --per sample --worker " + mine + " --out " +
                   s.path("run") + " " + sweep,
               s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // The run as an interrupt leaves it: the first two samples and the workers that took them.
  const std::string journal = s.path("run/samples.jsonl");
  interrupt_after(s, "run", 2);

  // Another build named: refused in one line that names both, nothing measured.
  r = run(orchestrate + "--resume " + s.path("run") + " --worker " + bin("isobench-worker"), s);
  CHECK(bad_input_problem(r, {"--worker " + bin("isobench-worker"), mine}, s.path("none")) == "");
  CHECK(read_jsonl(journal).size() == 2);
  // A setting the run measured by, named otherwise: refused the same way.
  r = run(orchestrate + "--resume " + s.path("run") + " --context-gate off", s);
  CHECK(bad_input_problem(r, {"--context-gate off", "--context-gate on"}, s.path("none")) == "");

  // The resume as the interrupt line advises it: only the recorded build measures.
  r = run(orchestrate + "--resume " + s.path("run"), s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(read_jsonl(journal).size() == 6);
  const auto workers = read_jsonl(journal, "worker");
  REQUIRE(workers.size() >= 6);
  for (const auto& w : workers) CHECK_MESSAGE(w.value("executable", "") == mine, w.dump());

  // The recorded build gone: one line naming it, exit 2.
  auto info = read_json(s.path("run/run.json"));
  info["status"] = "interrupted";
  std::ofstream(s.path("run/run.json"), std::ios::trunc) << info.dump();
  std::filesystem::remove(mine);
  r = run(orchestrate + "--resume " + s.path("run"), s);
  CHECK(bad_input_problem(r, {"the run's worker build " + mine, "no such file"}, s.path("none")) == "");
}

TEST_CASE("--worker on --resume is judged by the file it names, not by how the path is spelled") {
  Scratch s("resume-worker-path");
  std::filesystem::create_directories(s.path("build/bin"));
  std::filesystem::create_directories(s.path("elsewhere"));
  const std::string mine = s.path("build/bin/my-worker");
  std::filesystem::copy_file(bin("isobench-worker"), mine);
  std::filesystem::permissions(mine, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
  // The same build under another name (a hard link), and another build (a copy).
  std::filesystem::create_hard_link(mine, s.path("linked-worker"));
  std::filesystem::copy_file(mine, s.path("copied-worker"));
  const auto sweep = s.write("w.yaml",
                             "settings: {samples: 4, warmup: 0, inner: 1, seed: 3}\n"
                             "benchmarks:\n  - kernel: cpu_spin\n    axes: {microseconds: [5]}\n");
  const std::string orchestrate = bin("orchestrate") + " --quiet ";
  const auto in = [&](const std::string& dir) { return "cd " + s.path(dir) + " && " + orchestrate; };
  auto r = run(
      in(".") + "--device cpu --isolation process --per sample --worker ./build/bin/my-worker --out run " + sweep, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // Recorded resolved, so that the journal and every refusal name the build one way.
  CHECK(read_json(s.path("run/plan.json")).at("workers") == nlohmann::json::array({mine}));
  interrupt_after(s, "run", 1);

  // Another build, named from another directory: refused in one line naming both, nothing measured.
  r = run(in("elsewhere") + "--resume ../run --worker ../copied-worker", s);
  CHECK(bad_input_problem(r, {"--worker ../copied-worker", "(" + mine + ")"}, s.path("none")) == "");
  CHECK(read_jsonl(s.path("run/samples.jsonl")).size() == 1);
  // The same file, spelled otherwise, from another directory, or by a hard link: taken.
  for (const std::string worker : {"../build/bin/my-worker", "../build/./bin/../bin/my-worker", "../linked-worker"}) {
    CAPTURE(worker);
    interrupt_after(s, "run", 1);
    r = run(in("elsewhere") + "--resume ../run --worker " + worker, s);
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    CHECK(read_jsonl(s.path("run/samples.jsonl")).size() == 4);
  }
}

TEST_CASE(
    "a run resumes only in the environment it was started in: a variable that decides what workers measure, "
    "set otherwise, is refused naming both values") {
  Scratch s("resume-environment");
  const auto sweep = s.write("w.yaml",
                             "settings: {samples: 6, warmup: 0, inner: 1, seed: 3}\n"
                             "benchmarks:\n  - kernel: cpu_spin\n    axes: {microseconds: [5]}\n");
  // The variables as the test decides them, whatever the shell running it set.
  const std::string started = "env -u OMP_NUM_THREADS -u CUBLAS_WORKSPACE_CONFIG OMP_NUM_THREADS=1 ";
  const std::string orchestrate = bin("orchestrate") + " --quiet ";
  auto r = run(started + orchestrate + "--device cpu --out " + s.path("run") + " " + sweep, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto recorded = read_json(s.path("run/plan.json")).at("environment_variables");
  CHECK(recorded.at("values").value("OMP_NUM_THREADS", "") == "1");
  CHECK(!recorded.at("values").contains("CUBLAS_WORKSPACE_CONFIG"));
  interrupt_after(s, "run", 2);
  const std::string journal = s.path("run/samples.jsonl");
  const std::string resume = "--resume " + s.path("run");

  // Another value, none, and one the run was started without: each refused in one line, nothing measured.
  r = run("env OMP_NUM_THREADS=4 " + orchestrate + resume, s);
  CHECK(bad_input_problem(r, {"OMP_NUM_THREADS=4 here", "the run was started with OMP_NUM_THREADS=1"},
                          s.path("none")) == "");
  r = run("env -u OMP_NUM_THREADS " + orchestrate + resume, s);
  CHECK(bad_input_problem(r, {"OMP_NUM_THREADS is unset here", "started with OMP_NUM_THREADS=1"}, s.path("none")) ==
        "");
  r = run(started + "CUBLAS_WORKSPACE_CONFIG=:4096:8 " + orchestrate + resume, s);
  CHECK(bad_input_problem(r, {"CUBLAS_WORKSPACE_CONFIG=:4096:8 here", "the run was started without it"},
                          s.path("none")) == "");
  CHECK(read_jsonl(journal).size() == 2);

  // A variable that decides nothing a worker measures (the terminal) may differ; the run finishes.
  r = run(started + "TERM=dumb " + orchestrate + resume, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(read_jsonl(journal).size() == 6);

  // A plan from before the environment was recorded resumes in any.
  interrupt_after(s, "run", 2);
  auto plan = read_json(s.path("run/plan.json"));
  plan.erase("environment_variables");
  std::ofstream(s.path("run/plan.json"), std::ios::trunc) << plan.dump();
  r = run("env OMP_NUM_THREADS=4 " + orchestrate + resume, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(read_jsonl(journal).size() == 6);
}

TEST_CASE("PATH is part of a run's environment where a command benchmark's program is looked up in it") {
  Scratch s("resume-environment-path");
  const auto kernel = s.write("k.yaml",
                              "settings: {samples: 4, warmup: 0, inner: 1, seed: 3}\n"
                              "benchmarks:\n  - kernel: cpu_spin\n    axes: {microseconds: [5]}\n");
  const auto command = s.write("c.yaml",
                               "settings: {samples: 4, warmup: 0, inner: 1, seed: 3}\n"
                               "benchmarks:\n  - name: echo\n    command: [sh, -c, 'echo "
                               "{\\\"isobench\\\": 1, \\\"value\\\": 0.001}']\n");
  const std::string orchestrate = bin("orchestrate") + " --quiet --device cpu ";
  auto r = run(orchestrate + "--out " + s.path("k") + " " + kernel, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto considered = [&](const std::string& run) {
    return read_json(s.path(run + "/plan.json")).at("environment_variables").at("considered").dump();
  };
  CHECK(considered("k").find("\"PATH\"") == std::string::npos);
  r = run(orchestrate + "--out " + s.path("c") + " " + command, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(considered("c").find("\"PATH\"") != std::string::npos);
  interrupt_after(s, "c", 2);
  r = run("PATH=" + s.path("bin") + ":$PATH " + orchestrate + "--resume " + s.path("c"), s);
  CHECK(bad_input_problem(r, {"PATH=" + s.path("bin") + ":", "the run was started with PATH="}, s.path("none")) == "");
}
