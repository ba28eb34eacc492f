#pragma once
// A side's zygote (docs/python.md): one Python process per side of a run that imports the run's
// benchmark modules once and forks a fresh worker for every job the schedule gives that side.
// The Python half is python/isobench/zygote.py, which documents the protocol on its socket.
//
// The orchestrator follows a forked worker like a spawned one (WorkerHandle): the zygote sends
// its pidfd when it forks it, so it is signalled without a race against a reused pid, and its
// raw wait status when it has reaped it. A zygote that dies takes its workers with it (they
// have PR_SET_PDEATHSIG); the next start() starts it again, imports included, and says so in
// the run log.

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "orchestrator/run_directory.hpp"
#include "orchestrator/worker_handle.hpp"

namespace isobench::orchestrator {

struct ZygoteSpec {
  std::uint32_t side = 0;
  std::string interpreter;               // absolute path
  std::vector<std::string> environment;  // NAME=VALUE, the whole environment (PYTHONPATH holds the package)
  std::string library;                   // the side's libisobench-worker.so
  // The load request's benchmarks: [{"module", "function", "instances": [{"id", "params", "device"}]}];
  // null for a zygote started before its plan, which load() gives them.
  nlohmann::json benchmarks;
  double load_timeout_s = 600;  // imports (torch takes seconds); nothing beats a heart meanwhile
};

// The zygote could not serve the run: a module that does not import, a function it lacks, an
// instance whose parameters the function does not take, a module that initialised CUDA. One line
// naming the instance, module and function.
class ZygoteRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Zygote final : public WorkerLauncher {
 public:
  // Starts the interpreter and asks it to import everything and check every instance's
  // arguments; wait_ready() waits for it (so that both sides' zygotes import at once). A spec
  // without benchmarks starts a zygote ahead of its plan: it imports what import_pytest() names
  // while the plan is made, and load() gives it the plan's benchmarks.
  explicit Zygote(ZygoteSpec spec);
  // A zygote started ahead of its plan: collect (and so import) this pytest file now, as the
  // plan's load will ask. Nothing is refused here: a file that does not collect is refused by
  // the load that needs it.
  void import_pytest(const std::string& file, const std::vector<std::string>& args);
  // The plan's benchmarks (ZygoteSpec::benchmarks), for a zygote started without them.
  void load(nlohmann::json benchmarks);
  // Whether it has ended (an older build's zygote refuses an import request and exits).
  bool ended();
  // Throws ZygoteRefused, or std::runtime_error when it died or took longer than the spec allows.
  void wait_ready();
  // Closes its socket: it kills its workers and exits. One never loaded is killed at once: it
  // has no workers, and it may be importing for seconds before it would read the socket again.
  ~Zygote() override;
  Zygote(const Zygote&) = delete;
  Zygote& operator=(const Zygote&) = delete;

  // From now on the zygote's output and its workers' go to `output_path` (workers.log), after
  // what it printed while it imported; restarts are recorded in `log`.
  void attach(const std::string& output_path, RunLog& log);
  // Forks a worker with isobench-worker's arguments (a zygote found dead is started again first).
  std::unique_ptr<WorkerHandle> start(const std::vector<std::string>& args) override;

  // What the zygote said when it was ready: its pid, Python version and executable, the
  // versions of torch, triton and numpy when imported, seconds per import, notes.
  const nlohmann::json& ready() const;
  std::uint32_t restarts() const { return restarts_; }
  const ZygoteSpec& spec() const { return spec_; }
  pid_t pid() const;

  struct Process;  // one running zygote (zygote.cpp)

 private:
  ZygoteSpec spec_;
  std::shared_ptr<Process> process_;
  std::string output_path_;
  RunLog* log_ = nullptr;
  std::uint64_t next_serial_ = 0;
  std::uint32_t restarts_ = 0;
};

}  // namespace isobench::orchestrator
