// orchestrate killed with SIGKILL in the middle of a run leaves no process behind (a worker of a
// killed per-sample run once lived on long after it). Each case starts a real run,
// waits until samples are being journaled and its workers (ranks, a command's programs) are
// alive, kills orchestrate and then looks at every process below the test in /proc (the test is
// their subreaper, tests/process_tree.hpp). All must end by themselves, within a bound far above
// the milliseconds the workers' guard takes; nothing in these runs would end by itself within it
// (permits that never come, tasks for minutes, programs asleep for a minute).

#include <doctest/doctest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>

#include "harness.hpp"
#include "tests/process_tree.hpp"

using namespace isobench::testing;

namespace {

constexpr std::chrono::seconds kBound{10};
constexpr std::chrono::seconds kStartBound{120};  // for the run to reach the state a case kills it in

using Ready = std::function<bool(pid_t orchestrate, const std::vector<ProcessEntry>& below)>;

std::size_t journaled_samples(const Scratch& s) {
  std::size_t n = 0;
  std::ifstream in(s.path("run/samples.jsonl"));
  for (std::string line; std::getline(in, line);) n += line.find("\"type\":\"sample\"") != std::string::npos;
  return n;
}

bool is_worker(const ProcessEntry& p) { return p.cmdline.find(" --segment isobench-") != std::string::npos; }

std::size_t count_if(const std::vector<ProcessEntry>& processes, const std::function<bool(const ProcessEntry&)>& f) {
  return static_cast<std::size_t>(std::count_if(processes.begin(), processes.end(), f));
}

Ready workers_alive(std::size_t n) {
  return [n](pid_t, const std::vector<ProcessEntry>& below) { return count_if(below, is_worker) >= n; };
}

// Runs orchestrate with `args` on `sweep_text` until `min_samples` are journaled and `ready`
// holds, kills it with SIGKILL and checks that everything it started ends by itself.
void kill_mid_run(const std::string& name, const std::string& sweep_text, const std::vector<std::string>& args,
                  std::size_t min_samples, const Ready& ready) {
  become_subreaper();
  Scratch s(name);
  std::vector<std::string> command = {bin("orchestrate"), "--device", "cpu", "--quiet", "--out", s.path("run")};
  command.insert(command.end(), args.begin(), args.end());
  command.push_back(s.write("sweep.yaml", sweep_text));
  const pid_t orchestrate = spawn(command, s);
  REQUIRE(orchestrate > 0);
  const auto until = std::chrono::steady_clock::now() + kStartBound;
  std::vector<ProcessEntry> below;
  for (;;) {
    below = live_descendants(orchestrate);
    if (journaled_samples(s) >= min_samples && ready(orchestrate, below)) break;
    if (std::chrono::steady_clock::now() > until || wait_for_exit(orchestrate, std::chrono::milliseconds(0))) {
      ::kill(orchestrate, SIGKILL);
      FAIL("the run never reached the state to kill it in: " << journaled_samples(s) << " samples; stderr: "
                                                            << slurp(s.path("stderr.txt")));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(orchestrate, SIGKILL);
  REQUIRE(wait_for_exit(orchestrate, kBound));
  const auto left = wait_for_no_descendants(kBound);
  CHECK_MESSAGE(left.empty(), "alive below orchestrate when it was killed:\n"
                                  << describe(below) << "still alive " << kBound.count() << " s later:\n"
                                  << describe(left) << "workers.log:\n"
                                  << slurp(s.path("run/workers.log")));
  for (const auto& p : left) ::kill(p.pid, SIGKILL);
  wait_for_no_descendants(kBound);
}

// cpu_spin samples of 10-15 ms, far more of them than the test waits for.
const char* kSpinSweep = R"(settings: {samples: 500, warmup: 1, inner: 5, seed: 1}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [2000, 3000]}
)";

}  // namespace

TEST_CASE("killed in a per-sample run: the measuring worker and the pre-started ones waiting for release stop") {
  // Two pre-started workers wait in loops for a release that a dead orchestrator never gives.
  kill_mid_run("killed-per-sample", kSpinSweep, {"--isolation", "process", "--per", "sample", "--prestart", "2"}, 3,
               workers_alive(3));
}

TEST_CASE("killed in a per-batch run: the worker in the middle of its round stops") {
  // A round of 60 instances of 200 ms samples: the worker has seconds of its round left.
  std::string sweep = "settings: {samples: 3, warmup: 1, inner: 100, seed: 1}\n"
                      "benchmarks:\n"
                      "  - kernel: cpu_spin\n"
                      "    axes: {microseconds: [2000";
  for (int us = 2001; us < 2060; ++us) sweep += ", " + std::to_string(us);
  sweep += "]}\n";
  kill_mid_run("killed-per-batch", sweep, {"--isolation", "process", "--per", "batch"}, 3, workers_alive(1));
}

TEST_CASE("killed in an interleaved run: the one worker, with minutes of tasks left, stops") {
  kill_mid_run("killed-interleave", kSpinSweep, {"--isolation", "interleave"}, 3, workers_alive(1));
}

TEST_CASE("killed while a command benchmark runs: the program and the program it started stop with the worker") {
  // The first invocation prints its sample; every later one starts a second program and sleeps.
  const std::string sweep = R"(settings: {samples: 50, seed: 1}
benchmarks:
  - command: [sh, -c, 'if [ -e started ]; then sleep 60 & exec sleep 61; fi; touch started; echo "{\"isobench\": 1, \"value\": 0.001}"']
    name: sleeper
)";
  kill_mid_run("killed-command", sweep, {"--isolation", "process", "--per", "sample"}, 1,
               [](pid_t, const std::vector<ProcessEntry>& below) {
                 return count_if(below, [](const ProcessEntry& p) { return p.cmdline.rfind("sleep 6", 0) == 0; }) == 2;
               });
}

TEST_CASE("killed in a run of a 2-rank instance: both ranks of the group stop") {
  const std::string sweep = R"(settings: {samples: 200, warmup: 1, inner: 200, seed: 5}
benchmarks:
  - kernel: cpu_allgather_matmul
    axes: {m: [64], k: [64], n: [64], ranks: [2]}
)";
  kill_mid_run("killed-ranks", sweep, {"--isolation", "process", "--per", "batch"}, 2, [](pid_t, const auto& below) {
    return count_if(below, [](const ProcessEntry& p) { return is_worker(p) && p.cmdline.find("--world 2") != std::string::npos; }) == 2;
  });
}

TEST_CASE("killed while its workers are not its children: a worker started through a wrapper stops too") {
  // As a worker forked by a zygote: its parent (the wrapper shell) outlives the orchestrator, so
  // no parent-death signal reaches it; only its watch of the orchestrator's pid can stop it.
  Scratch wrappers("wrapper-worker");
  const std::string wrapper = wrappers.write("worker.sh", "#!/bin/sh\n" + bin("isobench-worker") + " \"$@\" &\nwait\n");
  std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
  kill_mid_run("killed-wrapped", kSpinSweep,
               {"--isolation", "process", "--per", "sample", "--prestart", "1", "--worker", wrapper}, 3,
               [](pid_t orchestrate, const std::vector<ProcessEntry>& below) {
                 return count_if(below, [&](const ProcessEntry& p) { return is_worker(p) && p.ppid != orchestrate; }) >= 2;
               });
}
