#include "orchestrator/python/zygote.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <optional>
#include <string_view>

#include "orchestrator/worker_process.hpp"

namespace isobench::orchestrator {

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr int kProtocol = 1;  // python/isobench/zygote.py: PROTOCOL
constexpr auto kForkTimeout = std::chrono::seconds(60);
constexpr auto kExitTimeout = std::chrono::seconds(30);

// Whether `fd` has something to read (or was hung up) within `timeout_ms`.
bool readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  int n = 0;
  do {
    n = ::poll(&p, 1, timeout_ms);
  } while (n < 0 && errno == EINTR);
  return n > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

// SIGKILL through the pidfd, which cannot reach a process that took over a reused pid; by pid
// only when no pidfd came with the worker: the zygote has not reported the worker's exit, so it
// has not reaped it, and the pid is still the worker's.
void kill_worker(int pidfd, pid_t pid) {
  if (pidfd >= 0)
    ::syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
  else
    ::kill(pid, SIGKILL);
}

std::string side_name(std::uint32_t side) { return "side " + std::to_string(side); }

}  // namespace

// One running zygote: the interpreter's process, the socket to it, and what it has said.
struct Zygote::Process {
  std::uint32_t side = 0;
  std::string shown;           // "python3 -m isobench.zygote", for messages
  std::FILE* boot = nullptr;   // its output until it is attached to workers.log
  int sock = -1;
  std::unique_ptr<WorkerProcess> proc;
  std::string buffer;          // bytes read, not yet a whole line
  std::deque<int> fds;         // pidfds received, each for the next "forked" message
  std::map<std::uint64_t, std::pair<pid_t, int>> forked;  // serial -> pid, pidfd
  std::map<pid_t, int> exited;                            // pid -> raw wait status
  // imported: the last of its answers to the import requests sent with defer_cuda, and how many
  std::optional<json> ready, refused, imported;
  std::size_t imported_count = 0;
  bool closed = false;         // end of file or an error on the socket
  bool loaded = false;         // sent its load request
  // When it was started and when it said it was ready (the run's timeline: zygote-ready).
  std::chrono::system_clock::time_point started_at = std::chrono::system_clock::now(), ready_at;

  explicit Process(const ZygoteSpec& spec) : side(spec.side), shown(spec.interpreter + " -m isobench.zygote") {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
      throw std::runtime_error("zygote: socketpair: " + std::string(std::strerror(errno)));
    sock = pair[0];
    boot = std::tmpfile();
    if (!boot) {
      ::close(pair[0]);
      ::close(pair[1]);
      throw std::runtime_error("zygote: cannot create a temporary file for its output");
    }
    try {
      proc = std::make_unique<WorkerProcess>(spec.interpreter,
                                             std::vector<std::string>{"-m", "isobench.zygote", std::to_string(::getpid())},
                                             boot, ChildSetup{pair[1], spec.environment});
    } catch (...) {
      ::close(pair[1]);
      release();
      throw;
    }
    ::close(pair[1]);
    if (!spec.benchmarks.is_null()) load(spec);
  }

  void load(const ZygoteSpec& spec, const std::vector<std::string>& unset = {}) {
    json request = {
        {"op", "load"}, {"protocol", kProtocol}, {"library", spec.library}, {"benchmarks", spec.benchmarks}};
    if (!unset.empty()) request["unset"] = unset;
    send(request);
    loaded = true;
  }

  ~Process() { release(); }

  // Waits until the zygote has imported everything; throws (and lets it go) when it refused,
  // died or took longer than the spec allows.
  void wait_ready(const ZygoteSpec& spec) {
    const auto deadline = Clock::now() + std::chrono::duration<double>(spec.load_timeout_s);
    while (!ready && !refused && !dead() && Clock::now() < deadline) pump(100);
    if (!ready && !refused) pump(0);  // a send that found the socket closed left its last words unread
    if (ready) return;
    std::string problem;
    if (refused) {
      problem = refused->value("reason", "refused");
      const std::string instance = refused->value("instance", ""), module = refused->value("module", ""),
                        function = refused->value("function", "");
      if (!module.empty()) problem = "python " + module + (function.empty() ? "" : " function " + function) + ": " + problem;
      if (!instance.empty()) problem = instance + ": " + problem;
      release();
      throw ZygoteRefused(problem);
    }
    if (!dead()) {
      problem = "did not finish importing within " + std::to_string(static_cast<int>(spec.load_timeout_s)) + " s";
    } else {
      const auto status = proc->poll();
      problem = "ended (" + (status ? status->describe() : std::string("closed its socket")) + ") before it was ready";
      if (const auto tail = boot_tail(); !tail.empty()) problem += ": " + tail;
    }
    release();
    throw std::runtime_error("the zygote of " + side_name(side) + " (" + shown + ") " + problem);
  }

  // Closes the socket: the zygote kills its workers and exits on end of file.
  void close_socket() {
    if (sock >= 0) {
      ::close(sock);
      sock = -1;
    }
    closed = true;
  }

  // Closes the socket and waits for it to exit; one never loaded has no workers and may be
  // importing for seconds: it is killed at once.
  void release() {
    close_socket();
    if (proc) {
      const auto deadline = Clock::now() + std::chrono::seconds(5);
      while (loaded && !proc->poll() && Clock::now() < deadline) ::usleep(2000);
      proc->kill();
    }
    for (int fd : fds) ::close(fd);
    fds.clear();
    for (const auto& [serial, f] : forked) ::close(f.second);
    forked.clear();
    if (boot) {
      std::fclose(boot);
      boot = nullptr;
    }
  }

  bool dead() {
    if (closed) return true;
    if (proc && proc->poll()) {
      pump(0);  // what it said before it ended still counts
      closed = true;
    }
    return closed;
  }

  void send(const json& message) {
    const std::string line = message.dump() + "\n";
    std::size_t done = 0;
    while (!closed && done < line.size()) {
      const ssize_t n = ::send(sock, line.data() + done, line.size() - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        closed = true;  // EPIPE: it is gone; dead() says so and the caller acts on it
        return;
      }
      done += static_cast<std::size_t>(n);
    }
  }

  // Reads what the zygote sent (waiting up to timeout_ms for it to send anything) and files it.
  void pump(int timeout_ms) {
    if (sock < 0 || !readable(sock, timeout_ms)) return;
    for (;;) {
      char data[65536];
      alignas(cmsghdr) char control[CMSG_SPACE(16 * sizeof(int))];
      iovec io{data, sizeof data};
      msghdr m{};
      m.msg_iov = &io;
      m.msg_iovlen = 1;
      m.msg_control = control;
      m.msg_controllen = sizeof control;
      const ssize_t n = ::recvmsg(sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
          const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
          for (std::size_t i = 0; i < count; ++i) {
            int fd = -1;
            std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            fds.push_back(fd);
          }
        }
      if (n <= 0) {
        closed = true;
        break;
      }
      buffer.append(data, static_cast<std::size_t>(n));
    }
    for (std::size_t end; (end = buffer.find('\n')) != std::string::npos;) {
      const std::string line = buffer.substr(0, end);
      buffer.erase(0, end + 1);
      file(json::parse(line, nullptr, false));
    }
  }

  void file(const json& message) {
    if (!message.is_object()) return;
    const std::string op = message.value("op", "");
    if (op == "ready") {
      ready = message;
      ready_at = std::chrono::system_clock::now();
    } else if (op == "refused") {
      refused = message;
    } else if (op == "imported") {
      imported = message;
      ++imported_count;
    } else if (op == "forked") {
      // A pidfd arrives with the bytes of its own message or before them: the oldest unclaimed
      // one is this message's.
      int pidfd = -1;
      if (!fds.empty()) {
        pidfd = fds.front();
        fds.pop_front();
      }
      forked[message.value("serial", std::uint64_t{0})] = {message.value("pid", pid_t{-1}), pidfd};
    } else if (op == "exited") {
      exited[message.value("pid", pid_t{-1})] = message.value("status", 0);
    }
  }

  std::optional<int> take_exit(pid_t pid) {
    const auto it = exited.find(pid);
    if (it == exited.end()) return std::nullopt;
    const int status = it->second;
    exited.erase(it);
    return status;
  }

  // The last line the zygote printed (its traceback's last line, when Python failed to start it).
  std::string boot_tail() const {
    if (!boot) return {};
    std::fflush(boot);
    std::rewind(boot);
    std::string line, last;
    char chunk[4096];
    while (std::fgets(chunk, sizeof chunk, boot)) {
      line += chunk;
      if (!line.empty() && line.back() == '\n') {
        if (line.find_first_not_of(" \t\r\n") != std::string::npos) last = line;
        line.clear();
      }
    }
    if (line.find_first_not_of(" \t\r\n") != std::string::npos) last = line;
    std::fseek(boot, 0, SEEK_END);
    while (!last.empty() && (last.back() == '\n' || last.back() == '\r')) last.pop_back();
    return last;
  }

  // Appends what it printed while importing to `path`, then points its output there.
  void attach(const std::string& path) {
    if (boot) {
      std::fflush(boot);
      std::rewind(boot);
      std::ofstream out(path, std::ios::app | std::ios::binary);
      char chunk[4096];
      for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, boot)) > 0;) out.write(chunk, static_cast<std::streamsize>(n));
    }
    send({{"op", "output"}, {"path", path}});
  }
};

namespace {

// A worker the zygote forked: signalled through its pidfd, its end read from the zygote.
class ForkedWorker final : public WorkerHandle {
 public:
  ForkedWorker(std::shared_ptr<Zygote::Process> zygote, pid_t pid, int pidfd)
      : zygote_(std::move(zygote)), pid_(pid), pidfd_(pidfd) {}
  ~ForkedWorker() override {
    if (!ended_) kill();
    if (pidfd_ >= 0) ::close(pidfd_);
  }
  ForkedWorker(const ForkedWorker&) = delete;
  ForkedWorker& operator=(const ForkedWorker&) = delete;

  pid_t pid() const override { return pid_; }

  std::optional<ExitStatus> poll() override {
    if (ended_) return ended_;
    zygote_->pump(0);
    if (const auto status = zygote_->take_exit(pid_)) {
      ended_ = decode_wait_status(*status);
    } else if (zygote_->dead() && (pidfd_ < 0 || readable(pidfd_, 0))) {
      // Its zygote died, and it with it (PR_SET_PDEATHSIG): nobody is left to reap it and say how.
      ended_ = ExitStatus{true, 0, SIGKILL};
    }
    return ended_;
  }

  ExitStatus kill() override {
    if (poll()) return *ended_;
    kill_worker(pidfd_, pid_);
    const auto deadline = Clock::now() + kExitTimeout;
    while (!poll() && Clock::now() < deadline) {
      if (zygote_->dead())
        readable(pidfd_, 50);  // gone with the zygote: wait until the process has exited
      else
        zygote_->pump(50);
    }
    if (!ended_) ended_ = ExitStatus{true, 0, SIGKILL};  // signalled; the zygote never said more
    return *ended_;
  }

  void signal_kill() override {
    if (!poll()) kill_worker(pidfd_, pid_);
  }

 private:
  std::shared_ptr<Zygote::Process> zygote_;
  pid_t pid_;
  int pidfd_;
  std::optional<ExitStatus> ended_;
};

}  // namespace

Zygote::Zygote(ZygoteSpec spec) : spec_(std::move(spec)), process_(std::make_shared<Process>(spec_)) {}

void Zygote::wait_ready() { process_->wait_ready(spec_); }

void Zygote::import_pytest(const std::string& file, const std::vector<std::string>& args, bool defer_cuda) {
  json request = {{"op", "import"},
                  {"protocol", kProtocol},
                  {"library", spec_.library},
                  {"benchmarks", json::array({{{"module", file}, {"pytest", {{"args", args}}}}})}};
  if (defer_cuda) {
    request["defer_cuda"] = true;
    ++deferred_imports_;
  }
  process_->send(request);
}

nlohmann::json Zygote::imported() {
  const auto deadline = Clock::now() + std::chrono::duration<double>(spec_.load_timeout_s);
  // Each file of the sweep was a request of its own: the last answer speaks for all of them.
  while (process_->imported_count < deferred_imports_ && !process_->refused && !process_->dead() &&
         Clock::now() < deadline)
    process_->pump(100);
  return process_->imported_count == deferred_imports_ && process_->imported ? *process_->imported : json();
}

void Zygote::load(nlohmann::json benchmarks, std::vector<std::string> environment) {
  const auto name = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  std::vector<std::string> unset;
  for (const auto& entry : spec_.environment) {
    const bool kept = std::any_of(environment.begin(), environment.end(),
                                  [&](const std::string& e) { return name(e) == name(entry); });
    if (!kept) unset.push_back(name(entry));
  }
  spec_.benchmarks = std::move(benchmarks);    // a restart loads them too
  spec_.environment = std::move(environment);  // and starts with the plan's environment
  process_->load(spec_, unset);
}

bool Zygote::ended() {
  process_->pump(0);
  return process_->dead() || process_->refused.has_value();
}

void Zygote::fork_per_round(std::uint64_t hash_seed_base) {
  spec_.per_round = true;
  spec_.hash_seed_base = hash_seed_base;
}

pid_t Zygote::pid() const { return process_->proc->pid(); }

void Zygote::close() { process_->close_socket(); }

Zygote::~Zygote() = default;

void Zygote::attach(const std::string& output_path, RunLog& log) {
  output_path_ = output_path;
  log_ = &log;
  process_->attach(output_path);
  // Where bytecode writing is off, the zygote keeps its imports' bytecode in isobench's cache
  // (python/isobench/bytecode.py): the line says where, so that a user finds what it wrote.
  const auto& bytecode = ready().contains("bytecode") ? ready()["bytecode"] : nlohmann::json();
  log.write("zygote-start", side_name(spec_.side) + ": pid " + std::to_string(process_->proc->pid()) + ", " +
                                process_->shown + ", Python " + ready().value("python", "?") +
                                (bytecode.is_string() ? ", bytecode kept in " + bytecode.get<std::string>() : ""));
}

const nlohmann::json& Zygote::ready() const { return *process_->ready; }

std::chrono::system_clock::time_point Zygote::started_at() const { return process_->started_at; }

std::chrono::system_clock::time_point Zygote::ready_at() const { return process_->ready_at; }

std::uint64_t round_hash_seed(std::uint64_t base, std::uint32_t round) {
  std::uint64_t z = base + 0x9e3779b97f4a7c15ULL * (static_cast<std::uint64_t>(round) + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (z ^ (z >> 31)) & 0xffffffffULL;
}

std::optional<std::string> environment_hash_seed(const std::vector<std::string>& environment) {
  constexpr std::string_view name = "PYTHONHASHSEED=";
  for (const auto& v : environment)
    if (v.starts_with(name)) return v.substr(name.size());
  return std::nullopt;
}

ZygoteSpec Zygote::process_spec(std::optional<std::uint32_t> round) const {
  ZygoteSpec spec = spec_;
  if (spec.per_round && round && !environment_hash_seed(spec.environment))
    spec.environment.push_back("PYTHONHASHSEED=" + std::to_string(round_hash_seed(spec.hash_seed_base, *round)));
  return spec;
}

void Zygote::replace_process(std::optional<std::uint32_t> round) {
  const ZygoteSpec spec = process_spec(round);
  process_ = std::make_shared<Process>(spec);
  process_->wait_ready(spec);
  round_ = round;
  if (!output_path_.empty()) process_->attach(output_path_);
}

std::unique_ptr<WorkerHandle> Zygote::start(const std::vector<std::string>& args, std::optional<std::uint32_t> round) {
  if (spec_.per_round && round && (!round_ || *round > *round_)) {
    replace_process(round);
    if (log_) {
      const auto given = environment_hash_seed(spec_.environment);
      log_->write("zygote-round", side_name(spec_.side) + ": round " + std::to_string(*round) + ", pid " +
                                      std::to_string(process_->proc->pid()) + ", PYTHONHASHSEED " +
                                      (given ? *given + " (the environment's)"
                                             : std::to_string(round_hash_seed(spec_.hash_seed_base, *round))));
    }
  }
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (process_->dead()) {
      const auto status = process_->proc->poll();
      if (log_)
        log_->write("zygote-died", side_name(spec_.side) + ": pid " + std::to_string(process_->proc->pid()) + " " +
                                       (status ? status->describe() : std::string("closed its socket")) +
                                       "; its workers were killed with it");
      replace_process(round_);
      ++restarts_;
      if (log_)
        log_->write("zygote-restart", side_name(spec_.side) + ": pid " + std::to_string(process_->proc->pid()) +
                                          " (restart " + std::to_string(restarts_) + "), imports done again");
    }
    const std::uint64_t serial = next_serial_++;
    process_->send({{"op", "fork"}, {"serial", serial}, {"args", args}});
    const auto deadline = Clock::now() + kForkTimeout;
    while (!process_->forked.count(serial) && !process_->dead() && Clock::now() < deadline) process_->pump(100);
    if (const auto it = process_->forked.find(serial); it != process_->forked.end()) {
      const auto [pid, pidfd] = it->second;
      process_->forked.erase(it);
      return std::make_unique<ForkedWorker>(process_, pid, pidfd);
    }
    if (!process_->dead())
      throw std::runtime_error("the zygote of " + side_name(spec_.side) + " did not fork a worker within " +
                               std::to_string(kForkTimeout.count()) + " s");
  }
  throw std::runtime_error("the zygote of " + side_name(spec_.side) + " died twice while forking a worker");
}

}  // namespace isobench::orchestrator
