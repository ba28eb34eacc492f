#pragma once
// A worker process as the runner follows it, however it was started: spawned from the worker
// executable (WorkerProcess) or forked by a Python zygote (orchestrator/python/zygote.hpp). The runner
// polls it, kills it and reads how it ended, the same way for both.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace isobench::orchestrator {

struct ExitStatus {
  bool signaled = false;
  int code = 0;    // exit code when not signaled
  int signal = 0;  // terminating signal when signaled
  bool ok() const { return !signaled && code == 0; }
  std::string describe() const;  // "exit code 3", "killed by SIGSEGV"
};

ExitStatus decode_wait_status(int status);

class WorkerHandle {
 public:
  virtual ~WorkerHandle() = default;
  virtual pid_t pid() const = 0;
  // Non-blocking: the status once the worker has ended.
  virtual std::optional<ExitStatus> poll() = 0;
  // SIGKILL, and wait until it is gone; returns how it ended (it may have ended on its own just
  // before).
  virtual ExitStatus kill() = 0;
  // SIGKILL without waiting: poll() says when it is gone (a worker the run no longer needs,
  // stopped beside others' teardown rather than one after another).
  virtual void signal_kill() = 0;
};

// Starts the workers of one side that are not spawned from an executable (a Python side's
// zygote forks them). `args` are the worker's arguments, as isobench-worker takes them; `round`
// the schedule's round of the samples the worker takes (none for a job outside the rounds:
// calibration, describe), for a launcher whose process state is drawn per round.
class WorkerLauncher {
 public:
  virtual ~WorkerLauncher() = default;
  virtual std::unique_ptr<WorkerHandle> start(const std::vector<std::string>& args,
                                              std::optional<std::uint32_t> round) = 0;
};

}  // namespace isobench::orchestrator
