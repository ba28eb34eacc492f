#pragma once
// A worker child process: started with Boost.Process v2, polled (never waited on asynchronously:
// terminate() plus an async wait reaps twice, boostorg/process #357), and its end decoded into
// an exit code or the signal that killed it. (Workers of Python benchmarks are forked by a
// zygote instead: orchestrator/python/zygote.hpp.)

#include <sys/types.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/worker_handle.hpp"

namespace isobench::orchestrator {

// What a child gets besides its arguments and output.
struct ChildSetup {
  int input_fd = -1;                     // its stdin (the child gets a copy); -1: /dev/null
  std::vector<std::string> environment;  // NAME=VALUE, its whole environment; empty: the orchestrator's
};

class WorkerProcess final : public WorkerHandle {
 public:
  // stdout and stderr of the child go to `output` (a log file), never to the terminal.
  WorkerProcess(const std::string& executable, const std::vector<std::string>& args, std::FILE* output,
                const ChildSetup& setup = {});
  ~WorkerProcess() override;
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  pid_t pid() const override { return pid_; }
  std::optional<ExitStatus> poll() override;
  ExitStatus kill() override;
  void signal_kill() override;

 private:
  struct Impl;
  void forget();  // once reaped: the handle lets go of the pid
  std::unique_ptr<Impl> impl_;
  pid_t pid_ = -1;
  std::optional<ExitStatus> ended_;
};

}  // namespace isobench::orchestrator
