// OrphanGuard (worker/orphan_guard.hpp) in forked processes that stand in for an orchestrator, a
// worker and a command benchmark's program. The worker here is never the orchestrator's child,
// as a worker forked by a zygote is not, so only the guard's watch of the orchestrator's pid can
// stop it; the parent-death signal is checked for the program a worker runs.

#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "tests/process_tree.hpp"
#include "worker/orphan_guard.hpp"

using namespace isobench::testing;
using isobench::worker::GuardedChildGroup;
using isobench::worker::OrphanGuard;
using isobench::worker::start_child_group_dying_with;

namespace {

constexpr std::chrono::seconds kBound{10};  // generous: the guard acts within milliseconds

// One byte from a child once it is ready.
struct ReadyPipe {
  int fds[2] = {-1, -1};
  ReadyPipe() { REQUIRE(::pipe(fds) == 0); }
  ~ReadyPipe() {
    ::close(fds[0]);
    ::close(fds[1]);
  }
  void signal() const {
    const char byte = 1;
    (void)!::write(fds[1], &byte, 1);
  }
  bool wait() const {
    char byte = 0;
    return ::read(fds[0], &byte, 1) == 1;
  }
};

[[noreturn]] void sleep_forever() {
  for (;;) ::pause();
}

pid_t fork_sleeper() {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) sleep_forever();
  return pid;
}

// A worker: a guard watching `orchestrator`, then asleep. Its stderr goes to `log`.
pid_t fork_worker(pid_t orchestrator, const ReadyPipe& ready, const std::string& log) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, STDERR_FILENO);
    const OrphanGuard guard(orchestrator);
    ready.signal();
    sleep_forever();
  }
  return pid;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string log_path(const char* name) {
  return (std::filesystem::temp_directory_path() /
          ("isobench-orphan-guard-" + std::to_string(::getpid()) + "-" + name + ".log"))
      .string();
}

bool killed_by(std::optional<int> status, int sig) { return status && WIFSIGNALED(*status) && WTERMSIG(*status) == sig; }

// The live processes of process group `pgrp`.
std::size_t group_size(pid_t pgrp) {
  std::size_t n = 0;
  for (const auto& p : all_processes()) n += p.pgrp == pgrp && p.alive();
  return n;
}

// Whether process group `pgrp` reaches `n` live processes within the bound.
bool wait_for_group_size(pid_t pgrp, std::size_t n) {
  const auto until = std::chrono::steady_clock::now() + kBound;
  while (group_size(pgrp) < n && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  return group_size(pgrp) == n;
}

struct WorkerAndProgram {
  pid_t worker = -1;
  pid_t program = -1;
};

// A worker running `sh -c script` as a command benchmark runs its program: in a process group of
// its own that dies with the worker. `guarded`: the worker has an OrphanGuard (watching this
// process) and registers the program's group with it.
WorkerAndProgram fork_worker_running(const char* script, bool guarded) {
  ReadyPipe ready;
  WorkerAndProgram w;
  w.worker = ::fork();
  REQUIRE(w.worker >= 0);
  if (w.worker == 0) {
    std::optional<OrphanGuard> guard;
    if (guarded) guard.emplace(::getppid());
    const pid_t self = ::getpid();
    const pid_t program = ::fork();
    if (program == 0) {
      start_child_group_dying_with(self);
      ::execl("/bin/sh", "sh", "-c", script, static_cast<char*>(nullptr));
      ::_exit(127);
    }
    std::optional<GuardedChildGroup> group;
    if (guarded) group.emplace(program);
    (void)!::write(ready.fds[1], &program, sizeof program);
    sleep_forever();
  }
  REQUIRE(::read(ready.fds[0], &w.program, sizeof w.program) == sizeof w.program);
  return w;
}

}  // namespace

TEST_CASE("a worker whose orchestrator dies stops at once, though its own parent lives on") {
  become_subreaper();
  const std::string log = log_path("dies");
  const pid_t orchestrator = fork_sleeper();
  ReadyPipe ready;
  const pid_t worker = fork_worker(orchestrator, ready, log);
  REQUIRE(ready.wait());
  // Left unreaped until the worker is seen to stop: an orchestrator whose parent has not yet
  // collected it is a zombie, and the guard must count that as gone.
  ::kill(orchestrator, SIGKILL);
  const auto status = wait_for_exit(worker, kBound);
  CHECK_MESSAGE(killed_by(status, SIGTERM), "the worker outlived its orchestrator by " << kBound.count() << " s");
  if (!status) ::kill(worker, SIGKILL);
  CHECK(slurp(log).find("the orchestrator (pid " + std::to_string(orchestrator) + ") is gone: stopping") !=
        std::string::npos);
  CHECK(wait_for_no_descendants(kBound).empty());
  std::filesystem::remove(log);
}

TEST_CASE("a worker whose orchestrator died before it started stops at once, reaped or not") {
  become_subreaper();
  for (const bool reaped : {true, false}) {
    CAPTURE(reaped);
    const std::string log = log_path("before");
    const pid_t orchestrator = fork_sleeper();
    ::kill(orchestrator, SIGKILL);
    if (reaped)
      REQUIRE(wait_for_exit(orchestrator, kBound));
    else  // a zombie: ended, but its pid still names it
      for (;;) {
        const auto all = all_processes();
        if (std::any_of(all.begin(), all.end(),
                        [&](const ProcessEntry& p) { return p.pid == orchestrator && p.state == 'Z'; }))
          break;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    ReadyPipe ready;
    const pid_t worker = fork_worker(orchestrator, ready, log);
    const auto status = wait_for_exit(worker, kBound);
    CHECK(killed_by(status, SIGTERM));
    if (!status) ::kill(worker, SIGKILL);
    CHECK(wait_for_no_descendants(kBound).empty());
    std::filesystem::remove(log);
  }
}

TEST_CASE("SIGTERM, SIGINT and SIGHUP stop a worker and the program it runs, with everything in its group") {
  become_subreaper();
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
    CAPTURE(sig);
    // A program that starts another: both in the program's process group.
    const auto [worker, program] = fork_worker_running("sleep 60 & exec sleep 61", true);
    // Both sleeps exist before the signal, so the test cannot pass by finding nothing.
    REQUIRE(wait_for_group_size(program, 2));
    ::kill(worker, sig);
    const auto status = wait_for_exit(worker, kBound);
    CHECK(killed_by(status, sig));
    const auto left = wait_for_no_descendants(kBound);
    CHECK_MESSAGE(left.empty(), describe(left));
    for (const auto& p : left) ::kill(p.pid, SIGKILL);
  }
}

TEST_CASE("a worker killed with SIGKILL takes the program it runs with it (its parent-death signal)") {
  become_subreaper();
  const auto [worker, program] = fork_worker_running("exec sleep 60", false);
  REQUIRE(wait_for_group_size(program, 1));
  ::kill(worker, SIGKILL);
  CHECK(killed_by(wait_for_exit(worker, kBound), SIGKILL));
  // Reparented to this process (the subreaper) when the worker died, and killed by the kernel.
  const auto status = wait_for_exit(program, kBound);
  CHECK(killed_by(status, SIGKILL));
  if (!status) ::kill(program, SIGKILL);
}

TEST_CASE("a guard's end stops its thread and gives back the signal dispositions and parent-death signal") {
  auto threads = [] {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& t : std::filesystem::directory_iterator("/proc/self/task")) ++n;
    return n;
  };
  struct sigaction before {};
  ::sigaction(SIGTERM, nullptr, &before);
  const std::size_t threads_before = threads();
  {
    // Watching this test's parent (ctest), which outlives the test: the guard stays quiet.
    const OrphanGuard guard(::getppid());
    struct sigaction during {};
    ::sigaction(SIGTERM, nullptr, &during);
    CHECK((during.sa_handler != before.sa_handler));
    int pdeathsig = 0;
    ::prctl(PR_GET_PDEATHSIG, &pdeathsig);
    CHECK(pdeathsig == SIGTERM);
    CHECK(threads() == threads_before + 1);
  }
  struct sigaction after {};
  ::sigaction(SIGTERM, nullptr, &after);
  CHECK((after.sa_handler == before.sa_handler));
  int pdeathsig = -1;
  ::prctl(PR_GET_PDEATHSIG, &pdeathsig);
  CHECK(pdeathsig == 0);
  // Joined, the thread has exited, but the kernel may list it in /proc/self/task a moment longer
  // (the joiner is woken before the task is released): wait for it to go, within a bound.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (threads() != threads_before && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(threads() == threads_before);
  CHECK_THROWS_WITH(OrphanGuard(0), doctest::Contains("owner pid 0"));
}
