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
  // Boost 1.81 forks, and when the child's exec fails it returns the error without waiting for
  // that child: it would stay a zombie beside the run (and outlive a short orchestrate, where
  // nothing reaps orphans). Its pid is the launcher's, so it is reaped here. process_stdio owns
  // the /dev/null it opens and closes it when destroyed: it is handed on as a temporary.
  bp::default_process_launcher launcher;
  bp::error_code ec;
  const auto executor = boost::asio::any_io_executor(impl_->ctx.get_executor());
  auto launch = [&](bp::process_stdio&& stdio) {
    return setup.environment.empty()
               ? launcher(executor, ec, executable, args, std::move(stdio))
               : launcher(executor, ec, executable, args, std::move(stdio),
                          bp::process_environment(setup.environment));
  };
  auto proc = setup.input_fd >= 0 ? launch(bp::process_stdio{setup.input_fd, output, output})
                                  : launch(bp::process_stdio{nullptr, output, output});
  if (ec) {
    int status = 0;
    if (launcher.pid > 0)
      while (::waitpid(launcher.pid, &status, 0) < 0 && errno == EINTR) {
      }
    throw std::runtime_error("cannot start worker " + executable + ": " + ec.message());
  }
  impl_->proc.emplace(std::move(proc));
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

void WorkerProcess::signal_kill() {
  if (!poll()) ::kill(pid_, SIGKILL);
}

// The child is reaped: Boost's handle must not touch its pid again. Its destructor would
// waitpid(pid, WNOHANG) and SIGKILL whatever runs under that pid, which by then may be a newer
// worker that was given the same pid.
void WorkerProcess::forget() { impl_->proc->detach(); }

}  // namespace isobench::orchestrator
