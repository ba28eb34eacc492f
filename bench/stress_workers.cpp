// stress_workers: runs `orchestrate --isolation process --per sample` for N samples of the
// cheapest CPU kernel (N fresh worker processes in a row) and watches it from outside, through
// /proc, while it runs and after it ends:
//   - children and zombies (state Z, parent = orchestrate): they never pile up. A worker that
//     has reported its last sample may tear down while the next one starts, so a few children at
//     once are fine; what is not fine is a count that grows with the number of workers, or a
//     zombie that stays unreaped (its age, first to last probe seen in state Z, is reported);
//   - descriptors: /proc/<orchestrate>/fd counted all along, reported per fifth of the run; the
//     peak of the last fifth may exceed the peak of the first two by one live worker's (4), no more;
//   - segments: /dev/shm/isobench-<orchestrate pid>-* exists during the run, none after it;
//   - orphans: no isobench-worker of that segment outlives orchestrate;
//   - the journal: N samples, N distinct slots, N distinct worker pids, values > 0.
// Prints a table and one JSON line (the last line); exit code 0 when every check holds.
// docs/results/stress.md records a 2,000-worker run; tests/integration/test_stress.cpp runs 200.
//
//   stress_workers --bin BUILD/bin --out RUN_DIR [--workers 2000] [--interval-ms 2]

#include <fcntl.h>
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
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

extern char** environ;

namespace fs = std::filesystem;

namespace {

struct Probe {
  double t = 0;       // seconds since orchestrate started
  int fds = 0;        // entries of /proc/<pid>/fd
  int children = 0;   // processes whose parent is orchestrate
  int zombies = 0;    // of those, in state Z
  int segments = 0;   // /dev/shm/isobench-<pid>-*
  std::vector<long> zombie_pids;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Parent pid and state of a process from /proc/<pid>/stat ("pid (comm) S ppid ...").
bool stat_of(const std::string& pid, char& state, long& ppid) {
  const std::string text = slurp("/proc/" + pid + "/stat");
  const auto close = text.rfind(')');
  if (close == std::string::npos || close + 4 >= text.size()) return false;
  state = text[close + 2];
  ppid = std::strtol(text.c_str() + close + 4, nullptr, 10);
  return true;
}

bool is_pid(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

int count_entries(const std::string& dir) {
  std::error_code ec;
  int n = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) ++n;
  return n;
}

int count_segments(pid_t owner) {
  const std::string prefix = "isobench-" + std::to_string(owner) + "-";
  int n = 0;
  std::error_code ec;
  for (fs::directory_iterator it("/dev/shm", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().rfind(prefix, 0) == 0) ++n;
  return n;
}

Probe probe(pid_t pid, double t) {
  Probe p;
  p.t = t;
  p.fds = count_entries("/proc/" + std::to_string(pid) + "/fd");
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    char state = 0;
    long ppid = 0;
    if (!is_pid(name) || !stat_of(name, state, ppid) || ppid != pid) continue;
    ++p.children;
    if (state == 'Z') {
      ++p.zombies;
      p.zombie_pids.push_back(std::strtol(name.c_str(), nullptr, 10));
    }
  }
  p.segments = count_segments(pid);
  return p;
}

// Workers still alive whose command line names one of orchestrate's segments.
int orphans_of(pid_t owner) {
  const std::string needle = std::string("isobench-") + std::to_string(owner) + "-";
  int n = 0;
  std::error_code ec;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!is_pid(name)) continue;
    std::string cmdline = slurp("/proc/" + name + "/cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find("--segment " + needle) != std::string::npos) ++n;
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  std::string bin_dir, out_dir;
  int workers = 2000, interval_ms = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--bin") bin_dir = argv[i + 1];
    else if (key == "--out") out_dir = argv[i + 1];
    else if (key == "--workers") workers = std::atoi(argv[i + 1]);
    else if (key == "--interval-ms") interval_ms = std::atoi(argv[i + 1]);
  }
  if (bin_dir.empty() || out_dir.empty() || workers < 2) {
    std::fprintf(stderr, "usage: stress_workers --bin BUILD/bin --out RUN_DIR [--workers N>=2] [--interval-ms 2]\n");
    return 2;
  }
  fs::remove_all(out_dir);
  fs::create_directories(out_dir);
  const std::string sweep = out_dir + "/stress.yaml";
  std::ofstream(sweep) << "name: stress\nsettings: {warmup: 0, inner: 1}\nbenchmarks:\n"
                          "  - kernel: cpu_spin\n    axes: {microseconds: 1}\n";
  const std::string run_dir = out_dir + "/run";
  std::vector<std::string> args = {bin_dir + "/orchestrate", "--device",      "cpu",     "--quiet",
                                   "--isolation",            "process",       "--per",   "sample",
                                   "--samples",              std::to_string(workers), "--out", run_dir, sweep};
  std::vector<char*> argv_c;
  for (auto& a : args) argv_c.push_back(a.data());
  argv_c.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, (out_dir + "/stdout.txt").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, (out_dir + "/stderr.txt").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = -1;
  if (int e = posix_spawn(&pid, argv_c[0], &actions, nullptr, argv_c.data(), environ); e != 0) {
    std::fprintf(stderr, "stress_workers: cannot start %s: %s\n", argv_c[0], std::strerror(e));
    return 2;
  }
  posix_spawn_file_actions_destroy(&actions);

  std::vector<Probe> probes;
  int status = 0;
  for (;;) {
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Probe before reaping: orchestrate's /proc entry stays readable until waitpid below.
    const Probe p = probe(pid, t);
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (p.fds > 0) probes.push_back(p);
    std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms));
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  const int segments_after = count_segments(pid);
  const int orphans_after = orphans_of(pid);

  // Descriptors, per fifth of the probes taken while workers ran (segment present): a leak grows
  // from one fifth to the next; spawning holds a few pipes for a moment, so each fifth has a range.
  std::vector<Probe> running;
  for (const auto& p : probes)
    if (p.segments > 0) running.push_back(p);
  int fd_min[5], fd_max[5];
  for (int k = 0; k < 5; ++k) {
    fd_min[k] = 1 << 30;
    fd_max[k] = 0;
  }
  for (std::size_t i = 0; i < running.size(); ++i) {
    const std::size_t k = i * 5 / running.size();
    fd_min[k] = std::min(fd_min[k], running[i].fds);
    fd_max[k] = std::max(fd_max[k], running[i].fds);
  }
  // The count swings with the workers alive at the probe: each holds a pidfd and its own asio
  // eventfd, epoll and timerfd in orchestrate, and a spawn in flight holds a pipe. So the peak of
  // the last fifth may exceed that of the first two by one live worker's four descriptors, no
  // more; a leak of one descriptor per worker would add N/5.
  constexpr int kOneWorkerFds = 4;
  const bool fds_flat = running.size() >= 5 && fd_max[4] <= std::max(fd_max[0], fd_max[1]) + kOneWorkerFds;
  int max_children = 0, max_zombies = 0, probes_with_zombie = 0;
  std::map<long, std::pair<double, double>> zombie_seen;  // pid -> first, last probe time in state Z
  for (const auto& p : probes) {
    max_children = std::max(max_children, p.children);
    max_zombies = std::max(max_zombies, p.zombies);
    probes_with_zombie += p.zombies > 0;
    for (long z : p.zombie_pids) {
      auto [it, fresh] = zombie_seen.try_emplace(z, p.t, p.t);
      if (!fresh) it->second.second = p.t;
    }
  }
  double max_zombie_age_ms = 0;
  for (const auto& [z, seen] : zombie_seen) max_zombie_age_ms = std::max(max_zombie_age_ms, (seen.second - seen.first) * 1e3);
  // Bounds that do not grow with the number of workers: a finished worker tearing down, the one
  // measuring and those started ahead of it.
  constexpr int kMaxChildren = 4, kMaxZombies = 2;
  constexpr double kMaxZombieAgeMs = 1000;

  // The journal.
  std::size_t samples = 0, failures = 0;
  std::set<std::uint32_t> slots;
  std::set<std::int64_t> pids;
  bool values_positive = true;
  {
    std::ifstream in(run_dir + "/samples.jsonl");
    for (std::string line; std::getline(in, line);) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded()) continue;
      const std::string type = j.value("type", "sample");
      failures += type == "worker_failure";
      if (type != "sample") continue;
      ++samples;
      slots.insert(j["slot"].get<std::uint32_t>());
      pids.insert(j["worker_pid"].get<std::int64_t>());
      values_positive = values_positive && j["value"].get<double>() > 0;
    }
  }
  nlohmann::json run_json;
  try {
    run_json = nlohmann::json::parse(slurp(run_dir + "/run.json"));
  } catch (const std::exception&) {
  }
  const auto workers_started = run_json.value("workers_started", 0);
  const double runner_wall = run_json.value("wall_seconds", 0.0);

  const bool ok = exit_code == 0 && samples == static_cast<std::size_t>(workers) && slots.size() == samples &&
                  pids.size() == samples && values_positive && max_children <= kMaxChildren && max_zombies <= kMaxZombies &&
                  max_zombie_age_ms <= kMaxZombieAgeMs &&
                  fds_flat && segments_after == 0 && orphans_after == 0 && !running.empty();

  std::printf("orchestrate pid %d, exit code %d, %.2f s wall (runner %.2f s), %d workers started\n", pid, exit_code,
              wall, runner_wall, workers_started);
  std::printf("journal: %zu samples, %zu distinct slots, %zu distinct worker pids, %zu failures, values > 0: %s\n",
              samples, slots.size(), pids.size(), failures, values_positive ? "yes" : "NO");
  std::printf("probes: %zu (every %d ms), %zu while the segment existed\n", probes.size(), interval_ms,
              running.size());
  std::printf("children at once: max %d (bound %d); zombies at once: max %d (bound %d), seen in %d probes, "
              "%zu distinct, oldest %.1f ms (bound %.0f)\n",
              max_children, kMaxChildren, max_zombies, kMaxZombies, probes_with_zombie, zombie_seen.size(),
              max_zombie_age_ms, kMaxZombieAgeMs);
  std::printf("orchestrate fds per fifth of the run (min-max):");
  for (int k = 0; k < 5; ++k) std::printf(" %d-%d", fd_min[k], fd_max[k]);
  std::printf(" (%s)\n", fds_flat ? "no growth" : "GROWS");
  std::printf("after exit: %d segments in /dev/shm, %d orphan workers\n", segments_after, orphans_after);
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  const nlohmann::json report = {
      {"workers", workers},         {"exit_code", exit_code},        {"wall_s", wall},
      {"runner_wall_s", runner_wall}, {"workers_started", workers_started}, {"samples", samples},
      {"distinct_slots", slots.size()}, {"distinct_pids", pids.size()}, {"failures", failures},
      {"values_positive", values_positive}, {"probes", probes.size()}, {"probes_running", running.size()},
      {"max_children", max_children}, {"max_zombies", max_zombies}, {"probes_with_zombie", probes_with_zombie},
      {"distinct_zombies", zombie_seen.size()}, {"max_zombie_age_ms", max_zombie_age_ms},
      {"fds_min_per_fifth", std::vector<int>(fd_min, fd_min + 5)},
      {"fds_max_per_fifth", std::vector<int>(fd_max, fd_max + 5)}, {"fds_flat", fds_flat},    {"segments_after", segments_after}, {"orphans_after", orphans_after},
      {"ok", ok}};
  std::printf("%s\n", report.dump().c_str());
  return ok ? 0 : 1;
}
