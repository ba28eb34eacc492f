#pragma once
// A worker never outlives its run. Once an orchestrator killed with SIGKILL left its worker
// waiting for a measure permit long after the run was gone. While an OrphanGuard lives:
//
//   - the orchestrator's death stops the worker at once. A thread sleeps in poll() on a pidfd
//     of the orchestrator (the segment header's owner_pid) and wakes when it exits: no periodic
//     check, nothing on the CPU while it waits, and it works wherever the worker spends its time
//     (a wait loop, a timed region, a CUDA call, a command benchmark's program, a rank barrier).
//     It needs nothing from the worker's parent, so a worker forked by a zygote, whose parent
//     is not the orchestrator, stops the same way. A worker that is the orchestrator's own child
//     also gets the kernel's parent-death signal (PR_SET_PDEATHSIG), which needs no thread and
//     is what remains on a kernel without pidfds (before Linux 5.3).
//   - SIGTERM, SIGINT and SIGHUP stop the worker at once.
//
// Stopping kills the process group of the program a command benchmark is running (if any) and
// then ends the worker by the signal (SIGTERM when the orchestrator died), so a shell sees how it
// ended. Nothing is written to the segment: the orchestrator journals each sample as it arrives,
// and `--resume` measures what is missing.
//
// Not covered: a pid reused between the orchestrator's death and the guard's start (the worker
// would then watch the wrong process; with pid_max in the millions this needs the counter to
// wrap within milliseconds), and a command benchmark's grandchildren when the worker itself is
// killed with SIGKILL (its hung-worker timeout): the program it ran dies with it (its own
// parent-death signal), programs that program started in its process group do not.

#include <sys/types.h>

#include <signal.h>

#include <string>
#include <thread>

namespace isobench::worker {

class OrphanGuard {
 public:
  // Watches `orchestrator`; stops the worker at once if it is gone already.
  explicit OrphanGuard(pid_t orchestrator);
  ~OrphanGuard();  // the worker finished: stops watching, restores the signal dispositions
  OrphanGuard(const OrphanGuard&) = delete;
  OrphanGuard& operator=(const OrphanGuard&) = delete;

 private:
  std::string start_watcher(pid_t orchestrator);  // empty, or why the orchestrator is not watched
  int pidfd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  std::thread watcher_;
  struct sigaction previous_[3] = {};
};

// While one lives, the process group `pgid` (a command benchmark's program, started as its
// group's leader by start_child_group_dying_with) is killed if the worker stops.
class GuardedChildGroup {
 public:
  explicit GuardedChildGroup(pid_t pgid);
  ~GuardedChildGroup();
  GuardedChildGroup(const GuardedChildGroup&) = delete;
  GuardedChildGroup& operator=(const GuardedChildGroup&) = delete;
};

// In a child between fork and exec (async-signal-safe): makes it the leader of a process group
// of its own, so the worker can kill it with everything it starts, and has the kernel send it
// SIGKILL when `parent` (the worker) dies; exits at once if the parent died before that.
void start_child_group_dying_with(pid_t parent);

}  // namespace isobench::worker
