#pragma once
// A worker child process: started with Boost.Process v2, polled (never waited on asynchronously:
// terminate() plus an async wait reaps twice, boostorg/process #357), and its end decoded into
// an exit code or the signal that killed it.

#include <sys/types.h>

#include <cstdio>
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

class WorkerProcess {
 public:
  // stdout and stderr of the child go to `output` (a log file), never to the terminal.
  WorkerProcess(const std::string& executable, const std::vector<std::string>& args, std::FILE* output);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  pid_t pid() const { return pid_; }
  // Non-blocking: the status once the child has ended.
  std::optional<ExitStatus> poll();
  // SIGKILL and reap; returns how it ended (it may have ended on its own just before).
  ExitStatus kill();

 private:
  struct Impl;
  void forget();  // once reaped: the handle lets go of the pid
  std::unique_ptr<Impl> impl_;
  pid_t pid_ = -1;
  std::optional<ExitStatus> ended_;
};

}  // namespace isobench::orchestrator
