#include "orphan_guard.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

namespace isobench::worker {

namespace {

constexpr std::array<int, 3> kStopSignals = {SIGTERM, SIGINT, SIGHUP};

// The process group of the program a command benchmark is running; 0: none. Read by the signal
// handler, so a lock-free atomic.
std::atomic<pid_t> g_child_group{0};
static_assert(std::atomic<pid_t>::is_always_lock_free);

// Ends the worker by `sig` after killing the running program's process group. Only
// async-signal-safe calls: it runs in the signal handler and in the watcher thread.
[[noreturn]] void stop(int sig) {
  if (const pid_t group = g_child_group.load(); group > 0) ::kill(-group, SIGKILL);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  ::sigaction(sig, &default_action, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  // Inside the handler `sig` is blocked: unblocked, the raised signal's default action ends the
  // whole process at once, whichever thread raises it.
  ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);  // not reached: the default action of every stop signal ends the process
}

extern "C" void on_stop_signal(int sig) { stop(sig); }

[[noreturn]] void orchestrator_gone(pid_t orchestrator) {
  // dprintf, not stdio: no lock another thread of the worker may hold.
  ::dprintf(STDERR_FILENO, "isobench-worker: the orchestrator (pid %d) is gone: stopping\n",
            static_cast<int>(orchestrator));
  stop(SIGTERM);
}

// The watcher thread: asleep in poll() until the orchestrator exits (its pidfd becomes readable,
// a zombie included) or the guard ends (a byte on the stop pipe).
void watch(int pidfd, int stop_fd, pid_t orchestrator) {
  pollfd fds[2] = {{pidfd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
  for (;;) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      ::dprintf(STDERR_FILENO, "isobench-worker: cannot watch the orchestrator (pid %d): poll: %s\n",
                static_cast<int>(orchestrator), std::strerror(errno));
      return;
    }
    if (fds[1].revents != 0) return;
    if (fds[0].revents != 0) orchestrator_gone(orchestrator);
  }
}

}  // namespace

OrphanGuard::OrphanGuard(pid_t orchestrator) {
  if (orchestrator <= 0)
    throw std::runtime_error("the segment names no orchestrator (owner pid " + std::to_string(orchestrator) + ")");
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < kStopSignals.size(); ++i) ::sigaction(kStopSignals[i], &action, &previous_[i]);

  // Only the orchestrator's own child asks for the parent-death signal: a worker forked by a
  // zygote must not die with the zygote. An orchestrator that died before the prctl took effect
  // has already given its child to another parent; that is checked right after.
  if (::getppid() == orchestrator) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != orchestrator) orchestrator_gone(orchestrator);
  }
  if (const std::string problem = start_watcher(orchestrator); !problem.empty())
    ::dprintf(STDERR_FILENO,
              "isobench-worker: cannot watch the orchestrator (pid %d): %s; only the parent-death signal stops "
              "this worker if it dies\n",
              static_cast<int>(orchestrator), problem.c_str());
}

std::string OrphanGuard::start_watcher(pid_t orchestrator) {
  // A pidfd names one process, never a later one under the same pid. A pidfd of an exited
  // orchestrator that was not reaped yet polls readable at once; one that was reaped is ESRCH.
  pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, orchestrator, 0));
  if (pidfd_ < 0) {
    if (errno == ESRCH) orchestrator_gone(orchestrator);
    return std::string("pidfd_open: ") + std::strerror(errno);
  }
  if (::pipe2(stop_pipe_, O_CLOEXEC) != 0) return std::string("pipe2: ") + std::strerror(errno);
  try {
    watcher_ = std::thread(watch, pidfd_, stop_pipe_[0], orchestrator);
  } catch (const std::system_error& e) {
    return std::string("no thread: ") + e.what();
  }
  return {};
}

OrphanGuard::~OrphanGuard() {
  if (watcher_.joinable()) {
    const char byte = 0;
    (void)!::write(stop_pipe_[1], &byte, 1);
    watcher_.join();
  }
  for (const int fd : {pidfd_, stop_pipe_[0], stop_pipe_[1]})
    if (fd >= 0) ::close(fd);
  ::prctl(PR_SET_PDEATHSIG, 0);
  for (std::size_t i = 0; i < kStopSignals.size(); ++i) ::sigaction(kStopSignals[i], &previous_[i], nullptr);
}

GuardedChildGroup::GuardedChildGroup(pid_t pgid) { g_child_group.store(pgid); }

GuardedChildGroup::~GuardedChildGroup() { g_child_group.store(0); }

void start_child_group_dying_with(pid_t parent) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
}

}  // namespace isobench::worker
