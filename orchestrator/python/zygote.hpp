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

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
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
  // --zygotes per-round (docs/python.md, "What a worker inherits"): the first zygote serves the
  // jobs outside the schedule's rounds (calibration, describe), and each round's workers are
  // forked from a zygote started for that round with PYTHONHASHSEED round_hash_seed(
  // hash_seed_base, round), the same on both sides, or the environment's own where it sets one.
  bool per_round = false;
  std::uint64_t hash_seed_base = 0;
};

// The PYTHONHASHSEED of a round's zygotes (0 to 4294967295, what Python takes): a splitmix64 of
// the base and the round, so both sides of an A/B run, and a resumed run, draw the same.
std::uint64_t round_hash_seed(std::uint64_t base, std::uint32_t round);
// The PYTHONHASHSEED an environment (NAME=VALUE) sets, if any.
std::optional<std::string> environment_hash_seed(const std::vector<std::string>& environment);

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
  // the load that needs it. `defer_cuda` (a zygote of this build only): with CUDA deferred from
  // torch's import on, as the load would import a file whose import initialises CUDA
  // (python/isobench/zygote.py, import_early_deferred); the zygote then says when it is done
  // (imported()).
  void import_pytest(const std::string& file, const std::vector<std::string>& args, bool defer_cuda = false);
  // What a zygote asked to import with CUDA deferred said once done ({"flag_gems": bool}), waited
  // for; null where it ended first or never said (an older build's).
  nlohmann::json imported();
  // The plan's benchmarks (ZygoteSpec::benchmarks), for a zygote started without them, and the
  // plan's environment for it: the variables it was started with that `environment` lacks are
  // taken out of its own before it forks (a restart starts with `environment`).
  void load(nlohmann::json benchmarks, std::vector<std::string> environment);
  // Whether it has ended (an older build's zygote refuses an import request and exits).
  bool ended();
  // From the next round on, each round's workers come from a zygote of their own
  // (ZygoteSpec::per_round) with hash seeds drawn from `hash_seed_base`.
  void fork_per_round(std::uint64_t hash_seed_base);
  // Throws ZygoteRefused, or std::runtime_error when it died or took longer than the spec allows.
  void wait_ready();
  // Closes its socket: it kills its workers and exits, while the caller goes on; the destructor
  // then waits for it. Nothing is forked after it.
  void close();
  // Closes its socket: it kills its workers and exits. One never loaded is killed at once: it
  // has no workers, and it may be importing for seconds before it would read the socket again.
  ~Zygote() override;
  Zygote(const Zygote&) = delete;
  Zygote& operator=(const Zygote&) = delete;

  // From now on the zygote's output and its workers' go to `output_path` (workers.log), after
  // what it printed while it imported; restarts are recorded in `log`.
  void attach(const std::string& output_path, RunLog& log);
  // Forks a worker with isobench-worker's arguments (a zygote found dead is started again first).
  // Per round, the first worker of a later round than the zygote's starts that round's zygote
  // first (imports and all, recorded in the run log as zygote-round); the zygote it replaces
  // lives on until its last worker's handle is gone. A job of an earlier round (a retry) is
  // forked from the current one.
  std::unique_ptr<WorkerHandle> start(const std::vector<std::string>& args,
                                      std::optional<std::uint32_t> round) override;

  // What the zygote said when it was ready: its pid, Python version and executable, the
  // versions of torch, triton and numpy when imported, seconds per import, notes.
  const nlohmann::json& ready() const;
  // When the running zygote was started, and when it said it was ready (after wait_ready()).
  std::chrono::system_clock::time_point started_at() const;
  std::chrono::system_clock::time_point ready_at() const;
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
  std::optional<std::uint32_t> round_;  // per round: the round of the running zygote (none: the first)
  std::size_t deferred_imports_ = 0;    // import requests sent with defer_cuda

  // The spec of the zygote of `round` (none: the first): its hash seed set where per round.
  ZygoteSpec process_spec(std::optional<std::uint32_t> round) const;
  // Starts a zygote for `round` in place of the running one, waits for it and points its output
  // at workers.log.
  void replace_process(std::optional<std::uint32_t> round);
};

}  // namespace isobench::orchestrator
