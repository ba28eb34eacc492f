#include "orchestrator/bisect/build_cache.hpp"

#include <cerrno>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "orchestrator/bisect/commit_range.hpp"
#include "orchestrator/program_output.hpp"

namespace fs = std::filesystem;

namespace isobench::orchestrator {

namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string last_line(const std::string& text) {
  const auto end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  const auto begin = text.find_last_of('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1, end - (begin == std::string::npos ? 0 : begin + 1) + 1);
}

std::string slurp(std::FILE* file) {
  std::rewind(file);
  std::ostringstream text;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;) text.write(buffer, static_cast<std::streamsize>(n));
  return text.str();
}

// Runs `script` by /bin/sh in a process group of its own, under a guard process that stays in
// orchestrate's group: the guard dies with orchestrate (the parent-death signal, also after a
// SIGKILL) or with a Ctrl-C to the terminal's group, and takes the whole build group with it, so
// that no build outlives the bisection and writes into builds/ beside a resumed one. Only
// async-signal-safe calls after fork. The exit code is the shell's, 128 + the signal that ended it.
ProgramOutput run_build_group(const std::string& script) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::tmpfile(), std::fclose), err(std::tmpfile(), std::fclose);
  if (!out || !err) throw std::runtime_error("no temporary file for the build's output");
  const int out_fd = ::fileno(out.get()), err_fd = ::fileno(err.get());
  const pid_t parent = ::getpid();
  const char* argv[] = {"sh", "-c", script.c_str(), nullptr};
  const pid_t guard = ::fork();
  if (guard < 0) throw std::runtime_error("cannot start the build (fork failed)");
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

}  // namespace

std::string substitute_build_command(const std::string& command, const std::string& worktree, const std::string& out) {
  return replace_all(replace_all(command, "{worktree}", worktree), "{out}", out);
}

BuildCache::BuildCache(std::string repo, std::string folder, std::string command, std::string artifact)
    : repo_(std::move(repo)), folder_(std::move(folder)), command_(std::move(command)), artifact_(std::move(artifact)) {}

std::string BuildCache::out_dir(const std::string& commit) const { return folder_ + "/" + commit; }
std::string BuildCache::artifact(const std::string& commit) const { return out_dir(commit) + "/" + artifact_; }
std::string BuildCache::log_file(const std::string& commit) const { return folder_ + "/" + commit + ".log"; }

void BuildCache::remove_stale_worktrees() const {
  std::error_code ec;
  bool removed = false;
  for (fs::directory_iterator it(folder_, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".worktree") {
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
      removed = true;
    }
  if (removed) run_program("git", {"-C", repo_, "worktree", "prune"});
}

BuildOutcome BuildCache::build(const std::string& commit) const {
  const std::string out = out_dir(commit), worktree = out + ".worktree";
  fs::remove_all(out);
  fs::create_directories(out);
  if (fs::exists(worktree)) remove_worktree(repo_, worktree);
  add_worktree(repo_, worktree, commit);
  const std::string command = substitute_build_command(command_, worktree, out);
  // The command runs in the worktree; a newline keeps its own `;` and `&&` out of the cd's list.
  const auto r = run_build_group("cd -- '" + worktree + "' || exit 125\n" + command);
  remove_worktree(repo_, worktree);
  std::ofstream(log_file(commit)) << "$ " << command << "\n" << r.out << r.err << "exit " << r.exit_code << "\n";
  if (r.exit_code != 0) {
    const std::string tail = last_line(r.err.empty() ? r.out : r.err);
    return {false, "`" + command_ + "` exited " + std::to_string(r.exit_code) + (tail.empty() ? "" : ": " + tail)};
  }
  std::error_code ec;
  if (!fs::exists(artifact(commit), ec))
    return {false, "`" + command_ + "` exited 0 but left no " + artifact_ + " in {out}"};
  return {true, ""};
}

}  // namespace isobench::orchestrator
