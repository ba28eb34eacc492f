#include "worker_process.hpp"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include <stdexcept>

#include "boost_process.hpp"
// The one definition of process_environment::on_setup (boost_process.hpp says why).
#include <boost/process/v2/impl/environment.ipp>

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
                             std::FILE* output, const ChildSetup& setup)
    : impl_(std::make_unique<Impl>()) {
  try {
    // process_stdio owns the /dev/null it opens and closes it when destroyed: it is handed on as
    // a temporary, never copied.
    auto start = [&](bp::process_stdio&& stdio) {
      if (setup.environment.empty())
        impl_->proc.emplace(impl_->ctx, executable, args, std::move(stdio));
      else
        impl_->proc.emplace(impl_->ctx, executable, args, std::move(stdio),
                            bp::process_environment(setup.environment));
    };
    if (setup.input_fd >= 0)
      start(bp::process_stdio{setup.input_fd, output, output});
    else
      start(bp::process_stdio{nullptr, output, output});
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
  } else if (!running) {
    ended_ = decode_wait_status(impl_->proc->native_exit_code());
  }
  if (ended_) forget();
  return ended_;
}

// Boost.Process v2's terminate() only sends SIGKILL: it neither waits nor stores a status (1.81),
// and native_exit_code() then holds its "still active" 0x7f, which reads as exit code 127 (what
// the two-H200 run journaled for every rank it stopped). So the child is killed and reaped here;
// waitpid returns once it is gone, so a killed CUDA worker's teardown is over before anything
// measures beside it.
ExitStatus WorkerProcess::kill() {
  if (auto s = poll()) return *s;
  ::kill(pid_, SIGKILL);
  int status = 0;
  pid_t reaped = -1;
  do {
    reaped = ::waitpid(pid_, &status, 0);
  } while (reaped < 0 && errno == EINTR);
  ended_ = reaped == pid_ ? decode_wait_status(status) : ExitStatus{true, 0, SIGKILL};
  forget();
  return *ended_;
}

// The child is reaped: Boost's handle must not touch its pid again. Its destructor would
// waitpid(pid, WNOHANG) and SIGKILL whatever runs under that pid, which by then may be a newer
// worker that was given the same pid.
void WorkerProcess::forget() { impl_->proc->detach(); }

}  // namespace isobench::orchestrator
