// process_overhead: what the orchestrator costs per sample in process isolation, against the
// floor of starting a process at all. docs/results/process-overhead.md records its output.
//
//   process_overhead --bin BUILD/bin --out DIR [--samples 500] [--spawns 300]
//
// 1. orchestrate --isolation process --per sample on the cheapest CPU kernel (cpu_spin 1 us,
//    inner 1, warm-up 0): wall time per sample (whole process, and the runner's own wall_seconds),
//    and from samples.jsonl the gap between one worker's timed region and the next one's.
// 2. The floor: a trivial static program (process_overhead_trivial: main returns 0) started and
//    reaped (a) with posix_spawn + waitpid, (b) with Boost.Process v2 exactly as the runner
//    starts workers (orchestrator/worker_process.hpp) polled without sleeping, (c) the same
//    polled with the runner's sleep schedules, to see what the polling loop adds.
// 3. The worker's own setup: isobench-worker --list-kernels started and reaped the same ways
//    (exec, dynamic loading, static initialisation, exit).

#include <fcntl.h>
#include <time.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "orchestrator/worker_process.hpp"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;
using isobench::orchestrator::WorkerProcess;

struct Summary {
  double median = 0, p10 = 0, p90 = 0, mean = 0;
  std::size_t n = 0;
};

Summary summarize(std::vector<double> v) {
  Summary s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.n = v.size();
  s.median = v[v.size() / 2];
  s.p10 = v[v.size() / 10];
  s.p90 = v[v.size() * 9 / 10];
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  return s;
}

// Starts argv with posix_spawn (stdout and stderr to /dev/null) and waits for it; returns its status.
int posix_spawn_and_wait(const std::vector<std::string>& args, pid_t* pid_out = nullptr) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) {
    std::fprintf(stderr, "process_overhead: cannot start %s\n", argv[0]);
    std::exit(2);
  }
  posix_spawn_file_actions_destroy(&actions);
  if (pid_out) *pid_out = pid;
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// Boost.Process v2 through the runner's own WorkerProcess, polled; `sleep_first_us` = 0 polls
// without sleeping, else sleeps doubling from it up to `sleep_max_us` as the runner does.
void boost_spawn_and_poll(const std::string& exe, const std::vector<std::string>& args, std::FILE* sink,
                          int sleep_first_us, int sleep_max_us) {
  WorkerProcess proc(exe, args, sink);
  auto sleep_for = std::chrono::microseconds(sleep_first_us);
  while (!proc.poll()) {
    if (sleep_first_us == 0) continue;
    std::this_thread::sleep_for(sleep_for);
    sleep_for = std::min(sleep_for * 2, std::chrono::microseconds(sleep_max_us));
  }
}

Summary time_each(int repeats, const std::function<void()>& once) {
  std::vector<double> ms;
  once();  // page cache, dynamic loader cache
  for (int i = 0; i < repeats; ++i) {
    const auto start = Clock::now();
    once();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  return summarize(ms);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void row(const char* what, const Summary& s) {
  std::printf("%-62s %5zu %9.3f %9.3f %9.3f %9.3f\n", what, s.n, s.median, s.p10, s.p90, s.mean);
}

}  // namespace

int main(int argc, char** argv) {
  std::string bin_dir, out_dir;
  int samples = 500, spawns = 300;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--bin") bin_dir = argv[i + 1];
    else if (key == "--out") out_dir = argv[i + 1];
    else if (key == "--samples") samples = std::atoi(argv[i + 1]);
    else if (key == "--spawns") spawns = std::atoi(argv[i + 1]);
  }
  if (bin_dir.empty() || out_dir.empty() || samples < 2 || spawns < 10) {
    std::fprintf(stderr, "usage: process_overhead --bin BUILD/bin --out DIR [--samples N>=2] [--spawns N>=10]\n");
    return 2;
  }
  const std::string trivial = bin_dir + "/process_overhead_trivial";
  const std::string worker = bin_dir + "/isobench-worker";
  std::FILE* sink = std::fopen("/dev/null", "w");

  // 1. The orchestrator, one fresh worker per sample.
  fs::remove_all(out_dir);
  fs::create_directories(out_dir);
  const std::string sweep = out_dir + "/overhead.yaml";
  std::ofstream(sweep) << "name: overhead\nsettings: {warmup: 0, inner: 1}\nbenchmarks:\n"
                          "  - kernel: cpu_spin\n    axes: {microseconds: 1}\n";
  const std::string run_dir = out_dir + "/run";
  const auto run_start = Clock::now();
  const int status = posix_spawn_and_wait({bin_dir + "/orchestrate", "--device", "cpu", "--quiet", "--isolation",
                                           "process", "--per", "sample", "--samples", std::to_string(samples),
                                           "--out", run_dir, sweep});
  const double run_wall_s = std::chrono::duration<double>(Clock::now() - run_start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "process_overhead: orchestrate failed (status %d); see %s\n", status, run_dir.c_str());
    return 1;
  }
  const auto run_json = nlohmann::json::parse(slurp(run_dir + "/run.json"));
  const double runner_wall_s = run_json.value("wall_seconds", 0.0);
  // CLOCK_REALTIME - CLOCK_MONOTONIC, to place the journal's unix "time" (taken when the
  // orchestrator recorded the sample) on the monotonic clock of the timed regions.
  timespec real{}, mono{};
  clock_gettime(CLOCK_REALTIME, &real);
  clock_gettime(CLOCK_MONOTONIC, &mono);
  const double realtime_minus_monotonic =
      (real.tv_sec - mono.tv_sec) + (static_cast<double>(real.tv_nsec) - static_cast<double>(mono.tv_nsec)) / 1e9;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> regions;  // timed regions, in journal order
  std::vector<double> record_latency_ms;  // end of the timed region -> the orchestrator records it
  {
    std::ifstream in(run_dir + "/samples.jsonl");
    for (std::string line; std::getline(in, line);) {
      const auto j = nlohmann::json::parse(line);
      if (j.value("type", "sample") != "sample") continue;
      regions.emplace_back(j["begin_ns"], j["end_ns"]);
      const double end_s = j["end_ns"].get<std::uint64_t>() / 1e9;
      record_latency_ms.push_back((j["time"].get<double>() - realtime_minus_monotonic - end_s) * 1e3);
    }
  }
  std::vector<double> gaps_ms, timed_ms;
  for (std::size_t i = 0; i < regions.size(); ++i) {
    timed_ms.push_back((regions[i].second - regions[i].first) / 1e6);
    if (i > 0) gaps_ms.push_back((static_cast<double>(regions[i].first) - static_cast<double>(regions[i - 1].second)) / 1e6);
  }

  // 2 and 3. Spawning alone.
  const Summary posix_trivial = time_each(spawns, [&] { posix_spawn_and_wait({trivial}); });
  const Summary boost_trivial = time_each(spawns, [&] { boost_spawn_and_poll(trivial, {}, sink, 0, 0); });
  const Summary boost_trivial_50 = time_each(spawns, [&] { boost_spawn_and_poll(trivial, {}, sink, 50, 2000); });
  const Summary boost_trivial_20 = time_each(spawns, [&] { boost_spawn_and_poll(trivial, {}, sink, 20, 1000); });
  const Summary posix_worker = time_each(spawns, [&] { posix_spawn_and_wait({worker, "--list-kernels"}); });
  const Summary boost_worker = time_each(spawns, [&] { boost_spawn_and_poll(worker, {"--list-kernels"}, sink, 0, 0); });
  const Summary boost_worker_50 =
      time_each(spawns, [&] { boost_spawn_and_poll(worker, {"--list-kernels"}, sink, 50, 2000); });

  const double per_sample_ms = run_wall_s * 1e3 / samples;
  const double runner_per_sample_ms = runner_wall_s * 1e3 / samples;
  const Summary gaps = summarize(gaps_ms);
  const Summary timed = summarize(timed_ms);
  std::printf("orchestrate --isolation process --per sample, cpu_spin 1 us, inner 1, warm-up 0: %d samples\n", samples);
  std::printf("  whole process %.3f s = %.3f ms per sample; runner (run.json wall_seconds) %.3f s = %.3f ms per sample\n",
              run_wall_s, per_sample_ms, runner_wall_s, runner_per_sample_ms);
  std::printf("\n%-62s %5s %9s %9s %9s %9s\n", "ms", "n", "median", "p10", "p90", "mean");
  row("journal: one sample's timed region (end - begin)", timed);
  row("journal: gap from one timed region to the next one's", gaps);
  row("journal: end of a timed region -> orchestrator records it", summarize(record_latency_ms));
  row("trivial static program: posix_spawn + waitpid", posix_trivial);
  row("trivial static program: Boost.Process v2 + busy poll", boost_trivial);
  row("trivial static program: Boost.Process v2 + poll, sleep 50us..2ms", boost_trivial_50);
  row("trivial static program: Boost.Process v2 + poll, sleep 20us..1ms", boost_trivial_20);
  row("isobench-worker --list-kernels: posix_spawn + waitpid", posix_worker);
  row("isobench-worker --list-kernels: Boost.Process v2 + busy poll", boost_worker);
  row("isobench-worker --list-kernels: Boost.Process v2 + poll 50us..2ms", boost_worker_50);
  // The floor: starting and reaping a process the runner's way, plus the worker's own start-up
  // and exit; what a worker run adds beyond --list-kernels (attach, set-up, one sample, journal
  // line) is the orchestrator's and the protocol's cost.
  const double floor_ms = boost_worker.median;
  std::printf("\nfloor (worker --list-kernels, Boost.Process v2, busy poll, median): %.3f ms\n", floor_ms);
  std::printf("orchestrate per sample / floor: %.2fx (whole process), %.2fx (runner wall)\n", per_sample_ms / floor_ms,
              runner_per_sample_ms / floor_ms);
  std::printf("polling latency on a trivial program, median: +%.3f ms (50us..2ms), +%.3f ms (20us..1ms)\n",
              boost_trivial_50.median - boost_trivial.median, boost_trivial_20.median - boost_trivial.median);
  std::fclose(sink);
  return 0;
}
