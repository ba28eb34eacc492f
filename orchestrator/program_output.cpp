#include "orchestrator/program_output.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "orchestrator/boost_process.hpp"

namespace bp = boost::process::v2;

namespace isobench::orchestrator {

namespace {

std::string slurp(std::FILE* f) {
  std::string text;
  std::rewind(f);
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  return text;
}

// `program` as the shell would find it on PATH (Boost 1.81's find_executable does not compile
// with BOOST_PROCESS_USE_STD_FS); empty when it is not there.
std::string find_on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) {  // a path, as the shell takes it
    std::error_code ec;
    return std::filesystem::is_regular_file(program, ec) && ::access(program.c_str(), X_OK) == 0 ? program : "";
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t begin = 0; begin <= dirs.size();) {
    const auto end = std::min(dirs.find(':', begin), dirs.size());
    const std::string dir = end > begin ? dirs.substr(begin, end - begin) : ".";
    const std::string candidate = dir + "/" + program;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    begin = end + 1;
  }
  return {};
}

}  // namespace

std::string first_line(const std::string& text) {
  const auto end = text.find_first_of("\r\n");
  return text.substr(0, end);
}

ProgramOutput run_program(const std::string& program, const std::vector<std::string>& args, const std::string& hint,
                          const std::vector<std::string>& variables) {
  auto exe = find_on_path(program);
  if (exe.empty())
    throw std::runtime_error(program + (program.find('/') != std::string::npos ? ": not found, or not executable" : ": not found on PATH") +
                             (hint.empty() ? "" : " (" + hint + ")"));
  std::vector<std::string> argv = args;
  if (!variables.empty()) {
    const auto env = find_on_path("env");
    if (env.empty()) throw std::runtime_error("env: not found on PATH (it sets " + program + "'s environment)");
    argv = variables;
    argv.push_back(exe);
    argv.insert(argv.end(), args.begin(), args.end());
    exe = env;
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::tmpfile(), std::fclose), err(std::tmpfile(), std::fclose);
  if (!out || !err) throw std::runtime_error(program + ": no temporary file for its output");
  boost::asio::io_context ctx;
  ProgramOutput result;
  try {
    bp::process proc(ctx, exe, argv, bp::process_stdio{nullptr, out.get(), err.get()});
    result.exit_code = proc.wait();
  } catch (const std::exception& e) {
    throw std::runtime_error(program + ": " + e.what());
  }
  result.out = slurp(out.get());
  result.err = slurp(err.get());
  return result;
}

ProgramOutput run_shell_in_group(const std::string& script) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::tmpfile(), std::fclose), err(std::tmpfile(), std::fclose);
  if (!out || !err) throw std::runtime_error("no temporary file for the script's output");
  const int out_fd = ::fileno(out.get()), err_fd = ::fileno(err.get());
  const pid_t parent = ::getpid();
  const char* argv[] = {"sh", "-c", script.c_str(), nullptr};
  const pid_t guard = ::fork();
  if (guard < 0) throw std::runtime_error("cannot start the script (fork failed)");
  if (guard == 0) {
    sigset_t stops;
    sigemptyset(&stops);
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&stops, sig);
    ::sigprocmask(SIG_BLOCK, &stops, nullptr);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(137);
    const pid_t build = ::fork();
    if (build < 0) ::_exit(126);
    if (build == 0) {
      ::setpgid(0, 0);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      const int null_fd = ::open("/dev/null", O_RDONLY);
      if (null_fd >= 0) ::dup2(null_fd, 0);
      ::dup2(out_fd, 1);
      ::dup2(err_fd, 2);
      ::execv("/bin/sh", const_cast<char* const*>(argv));
      ::_exit(127);
    }
    ::setpgid(build, build);  // either side may set it first
    for (;;) {
      int sig = 0;
      if (::sigwait(&stops, &sig) != 0) continue;
      if (sig != SIGCHLD) {
        ::kill(-build, SIGKILL);
        ::waitpid(build, nullptr, 0);
        ::_exit(128 + sig);
      }
      int status = 0;
      const pid_t done = ::waitpid(build, &status, WNOHANG);
      if (done == build) {
        ::kill(-build, SIGKILL);  // what the shell left running in its group
        ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
      }
    }
  }
  int status = 0;
  while (::waitpid(guard, &status, 0) < 0 && errno == EINTR) {
  }
  ProgramOutput r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out.get());
  r.err = slurp(err.get());
  return r;
}

}  // namespace isobench::orchestrator
