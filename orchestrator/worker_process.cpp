#include "worker_process.hpp"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include <stdexcept>

#include "boost_process.hpp"

namespace bp = boost::process::v2;

namespace isobench::orchestrator {

std::string ExitStatus::describe() const {
  if (!signaled) return "exit code " + std::to_string(code);
  const char* abbrev = sigabbrev_np(signal);
  return std::string("killed by ") + (abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(signal));
}

ExitStatus decode_wait_status(int status) {
  ExitStatus s;
  if (WIFSIGNALED(status)) {
    s.signaled = true;
    s.signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    s.code = WEXITSTATUS(status);
  } else {
    s.code = status;
  }
  return s;
}

struct WorkerProcess::Impl {
  boost::asio::io_context ctx;
  std::optional<bp::process> proc;
};

WorkerProcess::WorkerProcess(const std::string& executable, const std::vector<std::string>& args,
                             std::FILE* output)
    : impl_(std::make_unique<Impl>()) {
  try {
    impl_->proc.emplace(impl_->ctx, executable, args, bp::process_stdio{nullptr, output, output});
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot start worker " + executable + ": " + e.what());
  }
  pid_ = impl_->proc->id();
}

WorkerProcess::~WorkerProcess() {
  if (!ended_ && impl_ && impl_->proc) kill();
}

std::optional<ExitStatus> WorkerProcess::poll() {
  if (ended_) return ended_;
  boost::system::error_code ec;
  const bool running = impl_->proc->running(ec);
  if (ec) {
    // ECHILD: someone else reaped it; we cannot know how it ended.
    ended_ = ExitStatus{false, -1, 0};
    return ended_;
  }
  if (!running) ended_ = decode_wait_status(impl_->proc->native_exit_code());
  return ended_;
}

ExitStatus WorkerProcess::kill() {
  if (auto s = poll()) return *s;
  boost::system::error_code ec;
  impl_->proc->terminate(ec);  // SIGKILL and waitpid; stores the wait status
  ended_ = ec ? ExitStatus{true, 0, SIGKILL} : decode_wait_status(impl_->proc->native_exit_code());
  return *ended_;
}

}  // namespace isobench::orchestrator
