// WorkerProcess: a child's end decoded as it happened. A killed child is reported as killed by
// SIGKILL and is gone (reaped) when kill() returns; a child that exits is reported with its code.
#include <doctest/doctest.h>

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>

#include "orchestrator/worker_process.hpp"

using namespace isobench::orchestrator;

namespace {

ExitStatus wait_for(WorkerProcess& p) {
  for (int i = 0; i < 5000; ++i) {
    if (auto s = p.poll()) return *s;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  FAIL("the child did not end within 5 s");
  return {};
}

}  // namespace

TEST_CASE("kill(): the child is reported killed by SIGKILL and is gone when it returns") {
  WorkerProcess p("/bin/sleep", {"30"}, stderr);
  const pid_t pid = p.pid();
  REQUIRE(pid > 0);
  CHECK_FALSE(p.poll().has_value());
  const ExitStatus s = p.kill();
  CHECK(s.signaled);
  CHECK(s.signal == SIGKILL);
  CHECK(s.describe() == "killed by SIGKILL");
  CHECK_FALSE(s.ok());
  // Reaped, not a zombie: no process of that pid is left to signal (unless the pid was reused
  // within these microseconds, which a test machine does not do).
  errno = 0;
  CHECK(::kill(pid, 0) == -1);
  CHECK(errno == ESRCH);
  // Asking again returns the same end.
  CHECK(p.kill().signal == SIGKILL);
  CHECK(p.poll()->signal == SIGKILL);
}

TEST_CASE("a child that exits on its own is reported with its exit code") {
  WorkerProcess p("/bin/sh", {"-c", "exit 3"}, stderr);
  const ExitStatus s = wait_for(p);
  CHECK_FALSE(s.signaled);
  CHECK(s.code == 3);
  CHECK(s.describe() == "exit code 3");
  CHECK(p.kill().code == 3);  // already over: kill() changes nothing
}

TEST_CASE("a child killed by a signal of its own is reported with that signal") {
  WorkerProcess p("/bin/sh", {"-c", "kill -SEGV $$"}, stderr);
  const ExitStatus s = wait_for(p);
  CHECK(s.signaled);
  CHECK(s.signal == SIGSEGV);
  CHECK(s.describe() == "killed by SIGSEGV");
}
