#include "runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <optional>
#include <map>
#include <random>
#include <stdexcept>
#include <thread>

#include "interrupt.hpp"
#include "ipc/kernel_record_buffer.hpp"
#include "ipc/segment.hpp"
#include "progress.hpp"
#include "rank_groups.hpp"
#include "sample_journal.hpp"
#include "worker_process.hpp"

namespace isobench::orchestrator {

namespace {

using ipc::load_acquire;
using ipc::store_release;
using Clock = std::chrono::steady_clock;

constexpr auto kMeasure = static_cast<std::uint32_t>(ipc::TaskKind::measure);

class FileHandle {
 public:
  explicit FileHandle(const std::string& path) : f_(std::fopen(path.c_str(), "a")) {
    if (!f_) throw std::runtime_error(path + ": cannot open");
  }
  ~FileHandle() { std::fclose(f_); }
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;
  std::FILE* get() const { return f_; }

 private:
  std::FILE* f_;
};

// Text a worker wrote into the segment, as something safe to log and to put into JSON: any
// process of the user can write there, so bytes outside printable ASCII become '?'.
std::string printable_text(const char* field, std::size_t field_bytes) {
  std::string text(field, strnlen(field, field_bytes));
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  return text;
}

// One worker process's share of the plan: its tasks in order, and which build runs them.
struct Job {
  std::string what;  // "measure" or "calibration"
  std::vector<ipc::Task> tasks;
  std::vector<PlannedSample> planned;  // parallel to tasks for measure jobs
  std::uint32_t side = 0;
  int attempt = 0;
};

// A started worker process on a lane of the segment.
struct Worker {
  Job job;
  std::uint32_t lane = 0;
  std::uint64_t token = 0;
  std::uint64_t serial = 0;
  std::unique_ptr<WorkerProcess> proc;
  Clock::time_point started;
  std::size_t next_task = 0;  // tasks are journaled in plan order
  bool permitted = false;          // may create its device context
  std::uint64_t permit_ns = 0;
  bool measure_permitted = false;  // may start its timed phase
  std::uint64_t measure_permit_ns = 0;
  bool released = false;
  std::uint64_t released_ns = 0;
  std::string rejected;  // why a sample of this worker was rejected, if one was
  // A multi-rank job (docs/multi-rank.md): this worker is rank 0 of `world`, the other ranks are
  // `peers`, started with it and stopped with it. The group's index is rank 0's lane.
  std::uint32_t world = 1;
  std::uint32_t rank = 0;
  std::uint32_t group = 0;
  std::vector<std::unique_ptr<Worker>> peers;
  std::size_t pipe = 0;  // which GPU's pipeline it belongs to
};

// A worker that reported everything and is tearing down on its own (its CUDA context, its
// buffers): the orchestrator does not wait for it, but with the context gate no worker starts
// its timed phase while one is still exiting.
struct ExitingWorker {
  std::unique_ptr<WorkerProcess> proc;
  std::uint64_t serial = 0;
  Clock::time_point since;
  std::uint32_t rank = 0;          // its GPU is its pipeline's GPU + rank
  std::uint64_t device_bytes = 0;  // what its instances held there, until it is gone
};

// One GPU's share of the run (--gpus): its jobs in plan order, the workers started for them
// (the head measures, the others wait pre-started behind it) and those still exiting. Each
// pipeline runs as an ordinary run does on one GPU, context gate included, and all of them at
// once; a run on one GPU has one.
struct Pipeline {
  int gpu = 0;
  std::deque<Job> jobs;
  std::deque<std::unique_ptr<Worker>> active;
  std::vector<ExitingWorker> exiting;
};

}  // namespace

struct Runner::Impl {
  const RunDirectory& dir;
  Plan& plan;
  const RunnerOptions& options;
  RunLog& log;
  ipc::Segment seg;
  SampleJournal journal;
  FileHandle worker_output;
  std::set<std::uint32_t> done_slots;
  std::mt19937_64 token_rng{std::random_device{}()};
  std::uint64_t next_serial = 0;
  std::vector<std::uint32_t> free_lanes;
  std::deque<Pipeline> pipes;  // one per GPU the plan's instances run on (a deque: never relocated)
  RunOutcome outcome;
  Progress progress;
  std::vector<std::uint32_t> worlds;        // world size of each instance, by index
  std::optional<ipc::RankTable> rank_table;  // runs with a multi-rank instance only

  Impl(const RunDirectory& d, Plan& p, const RunnerOptions& o, RunLog& l, ipc::Segment s,
       std::set<std::uint32_t> done)
      : dir(d), plan(p), options(o), log(l), seg(std::move(s)), journal(d.file("samples.jsonl")),
        worker_output(d.file("workers.log")), done_slots(std::move(done)),
        progress(p.schedule.total_samples(), o.quiet) {
    for (std::uint32_t lane = seg.layout().n_lanes; lane-- > 0;) free_lanes.push_back(lane);
    worlds = instance_worlds(plan.instances);
    if (std::any_of(worlds.begin(), worlds.end(), [](std::uint32_t n) { return n > 1; })) rank_table.emplace(seg);
    for (const int gpu : plan_gpus(plan, options.device)) pipes.emplace_back().gpu = gpu;
  }

  ~Impl() {
    for (auto& p : pipes)
      for (auto& e : p.exiting) e.proc->kill();
  }

  // The pipeline of the GPU the job's instances run on (jobs are split so that each has one).
  std::size_t pipe_of(const Job& job) const {
    const int gpu = job.tasks.empty() ? pipes.front().gpu : instance_gpu(plan, job.tasks.front().instance, options.device);
    for (std::size_t p = 0; p < pipes.size(); ++p)
      if (pipes[p].gpu == gpu) return p;
    throw std::logic_error("no pipeline for GPU " + std::to_string(gpu));
  }

  // ----- starting, releasing and following workers -------------------------------------------

  // Starts a worker for the job. `ahead`: another worker is in the pipeline (pre-start). A held
  // worker sets up only once released; with the context gate every worker is held and also
  // waits for its context permit and its measure permit, so that no context is created or torn
  // down beside a measurement. A multi-rank job starts its rank 0, then its other ranks, only at
  // the head of an empty pipeline (docs/multi-rank.md); the other ranks are neither held nor
  // gated: they meet rank 0 at the group's barriers, so rank 0's permits gate the whole group.
  std::unique_ptr<Worker> start(Job job, bool ahead) {
    const std::uint32_t world = world_of(job);
    const std::size_t pipe = pipe_of(job);
    if (world == 1) return start_rank(std::move(job), ahead, 0, 1, 0, pipe);
    auto w = start_rank(job, ahead, 0, world, 0, pipe);
    for (std::uint32_t r = 1; r < world; ++r) w->peers.push_back(start_rank(job, ahead, r, world, w->group, pipe));
    return w;
  }

  // One worker process: rank `rank` of `world` in rank group `group` (rank 0's group is its
  // lane), on its pipeline's GPU + rank: one GPU per rank.
  std::unique_ptr<Worker> start_rank(Job job, bool ahead, std::uint32_t rank, std::uint32_t world,
                                     std::uint32_t group, std::size_t pipe) {
    const bool gated = options.context_gate && rank == 0;
    const bool hold = gated || (ahead && rank == 0);
    if (free_lanes.empty()) throw std::logic_error("no free lane");
    auto w = std::make_unique<Worker>();
    w->lane = free_lanes.back();
    free_lanes.pop_back();
    w->job = std::move(job);
    w->token = token_rng() | 1;
    w->serial = next_serial++;
    w->world = world;
    w->rank = rank;
    w->group = rank == 0 ? w->lane : group;
    w->pipe = pipe;
    if (world > 1 && rank == 0) ipc::reset_rank_group(*rank_table, w->group, world, measured_slots(w->job));
    ipc::Lane& lane = seg.lane(w->lane);
    std::memset(&lane, 0, sizeof lane);
    lane.token = w->token;
    lane.n_tasks = static_cast<std::uint32_t>(w->job.tasks.size());
    lane.hold_for_release = hold ? 1 : 0;
    lane.context_gate = gated ? 1 : 0;
    lane.side = w->job.side;  // which side's kernel record buffer the worker writes
    std::memcpy(seg.lane_tasks(w->lane), w->job.tasks.data(), w->job.tasks.size() * sizeof(ipc::Task));
    for (const auto& t : w->job.tasks)
      if (t.kind == kMeasure) seg.slot(t.slot) = ipc::SampleSlot{};
    store_release(lane.state, static_cast<std::uint32_t>(ipc::LaneState::assigned));

    const WorkerCommand& command = options.workers.at(w->job.side);
    std::vector<std::string> args = {"--segment", seg.name(),  "--lane",   std::to_string(w->lane),
                                     "--token",   std::to_string(w->token), "--device", std::to_string(pipes[pipe].gpu + static_cast<int>(rank))};
    if (!options.artifact_root.empty())
      args.insert(args.end(), {"--artifact-root", options.artifact_root + "/side-" + std::to_string(w->job.side)});
    if (world > 1) {
      const auto ranks = rank_args(rank, world, w->group);
      args.insert(args.end(), ranks.begin(), ranks.end());
    }
    args.insert(args.end(), command.extra_args.begin(), command.extra_args.end());
    w->started = Clock::now();
    lane.spawned_ns = ipc::monotonic_ns();
    try {
      w->proc = std::make_unique<WorkerProcess>(command.executable, args, worker_output.get());
    } catch (...) {
      free_lanes.push_back(w->lane);
      throw;
    }
    ++outcome.workers_started;
    log.write("worker-start", "worker " + std::to_string(w->serial) + " pid " + std::to_string(w->proc->pid()) +
                                  " lane " + std::to_string(w->lane) + " side " + std::to_string(w->job.side) +
                                  " gpu " + std::to_string(pipes[pipe].gpu + static_cast<int>(rank)) + ": " +
                                  std::to_string(w->job.tasks.size()) + " " + w->job.what + " tasks" +
                                  (ahead ? " (pre-started)" : "") +
                                  (rank > 0 ? " (rank " + std::to_string(rank) + " of group " + std::to_string(w->group) + ")" : ""));
    w->permitted = w->measure_permitted = !gated;
    if (!hold) w->released = true;
    return w;
  }

  // ----- multi-rank groups (docs/multi-rank.md) -----------------------------------------------

  // Jobs are split so that each has one world size (split_by_world): its first task's.
  std::uint32_t world_of(const Job& job) const { return job.tasks.empty() ? 1 : worlds.at(job.tasks.front().instance); }

  static std::vector<std::uint32_t> measured_slots(const Job& job) {
    std::vector<std::uint32_t> slots;
    for (const auto& t : job.tasks)
      if (t.kind == kMeasure) slots.push_back(t.slot);
    return slots;
  }

  // The job as jobs of one world size and one GPU each, in its order: a multi-rank instance runs
  // in its own group of processes, apart from instances of another world size, and a worker runs
  // on one GPU. (The plan's groups already keep every worker run on one GPU.)
  std::deque<Job> split_by_world(const Job& job) const {
    std::deque<Job> parts;
    auto gpu_of = [&](std::uint32_t instance) { return instance_gpu(plan, instance, options.device); };
    for (std::size_t i = 0; i < job.tasks.size(); ++i) {
      const std::uint32_t world = worlds.at(job.tasks[i].instance);
      const int gpu = gpu_of(job.tasks[i].instance);
      if (parts.empty() || world_of(parts.back()) != world || gpu_of(parts.back().tasks.front().instance) != gpu) {
        parts.emplace_back();
        parts.back().what = job.what;
        parts.back().side = job.side;
        parts.back().attempt = job.attempt;
      }
      parts.back().tasks.push_back(job.tasks[i]);
      if (i < job.planned.size()) parts.back().planned.push_back(job.planned[i]);
    }
    return parts;
  }

  // A calibration or describe job as the jobs that run it: one per memory group of the plan
  // (instances a worker may hold on the device at once; plan.schedule.groups), each split by
  // world size. A setup worker sets up every instance it lists before warming any up, so a job
  // over all instances of a sweep that does not fit at once would run out of device memory.
  // The job's tasks are gathered per group, in the group's order, whatever order the job lists
  // them in (with --gpus a GPU's instances are not consecutive).
  std::deque<Job> setup_jobs(const Job& job) const {
    std::vector<std::size_t> group_of(plan.instances.size(), 0);
    for (std::size_t g = 0; g < plan.schedule.groups.size(); ++g)
      for (auto i : plan.schedule.groups[g]) group_of.at(i) = g;
    std::vector<Job> parts(plan.schedule.groups.size());
    for (const auto& t : job.tasks) {
      Job& part = parts.at(group_of.at(t.instance));
      part.what = job.what;
      part.side = job.side;
      part.tasks.push_back(t);
    }
    std::deque<Job> jobs;
    for (auto& part : parts)
      if (!part.tasks.empty())
        for (auto& j : split_by_world(part)) jobs.push_back(std::move(j));
    return jobs;
  }

  struct RankFailure {
    std::string reason;
    ExitStatus status;  // how the failed rank ended (killed here when it hung)
  };

  // A rank of w's group beyond rank 0 that failed: it ended before finishing its tasks, or has
  // been silent longer than --worker-timeout (ranks waiting for a peer keep beating, so the
  // silent one is the culprit). None while every peer is sound.
  std::optional<RankFailure> peer_failure(Worker& w) {
    for (auto& peer : w.peers) {
      const std::string who = "rank " + std::to_string(peer->rank) + " (pid " + std::to_string(peer->proc->pid()) + ")";
      if (const auto status = peer->proc->poll()) {
        if (status->ok() && lane_state(*peer) == ipc::LaneState::done) continue;
        return RankFailure{who + ": " + failure_reason(*peer, *status), *status};
      }
      if (const double silent = silent_seconds(*peer); silent > options.worker_timeout_s)
        return RankFailure{who + " hung: no heartbeat for " + std::to_string(static_cast<int>(silent)) +
                               " s (--worker-timeout " + std::to_string(options.worker_timeout_s) + " s)",
                           peer->proc->kill()};
    }
    return std::nullopt;
  }

  // The other ranks leave with rank 0. After a success they end on their own (reaped with the
  // exiting workers); after a failure the group is aborted, so no rank waits at its barrier
  // for one that is gone, and they are killed.
  void stop_peers(Worker& w, bool ok) {
    if (w.peers.empty()) return;
    if (!ok) ipc::abort_rank_group(*rank_table, w.group, ipc::kAbortedByOrchestrator);
    for (auto& peer : w.peers) {
      if (ok) {
        pipes[w.pipe].exiting.push_back(
            {std::move(peer->proc), peer->serial, Clock::now(), peer->rank, device_bytes_of(w.job)});
      } else {
        const auto status = peer->proc->kill();
        log.write("rank-stopped", "rank " + std::to_string(peer->rank) + " pid " + std::to_string(peer->proc->pid()) +
                                      " of worker " + std::to_string(w.serial) + ": " + status.describe());
      }
      free_lanes.push_back(peer->lane);
    }
    w.peers.clear();
  }

  ipc::LaneState lane_state(const Worker& w) const {
    return static_cast<ipc::LaneState>(load_acquire(seg.lane(w.lane).state));
  }

  // The context gate, for the pipeline's head (the next worker in plan order to measure) and the
  // worker behind it. A context may be created while the head is not yet in its timed phase:
  // the head's own, and then the next worker's while the head sets up and warms up (untimed
  // work; setting up costs about as long as a context on the H200, so the two overlap). The head
  // starts its timed phase only once no other worker is creating a context or exiting. True
  // when something changed.
  bool admit(Worker& head, Worker* next) {
    bool changed = false;
    if (!head.permitted) changed |= permit_context(head);
    if (!head.released && head.permitted && lane_state(head) == ipc::LaneState::waiting && fits_beside_exiting(head)) {
      head.released_ns = ipc::monotonic_ns();
      store_release(seg.lane(head.lane).release, std::uint32_t{1});
      head.released = changed = true;
    }
    if (head.measure_permitted) return changed;
    if (next && head.released && !next->permitted) changed |= permit_context(*next);
    if (lane_state(head) != ipc::LaneState::prepared || !pipes[head.pipe].exiting.empty() ||
        (next && creating_context(*next)))
      return changed;
    head.measure_permit_ns = ipc::monotonic_ns();
    store_release(seg.lane(head.lane).measure_permit, std::uint32_t{1});
    head.measure_permitted = true;
    return true;
  }

  // The device memory the job's instances take on each of its GPUs (plan's device_bytes).
  std::uint64_t device_bytes_of(const Job& job) const {
    std::set<std::uint32_t> instances;
    for (const auto& t : job.tasks) instances.insert(t.instance);
    std::uint64_t bytes = 0;
    for (auto i : instances) bytes += plan.instances.at(i).device_bytes;
    return bytes;
  }

  // Whether the worker may set up (allocate) while earlier workers are still exiting: on each
  // GPU it uses, what they still hold plus what it allocates must fit in the memory budget. A
  // sweep split into memory groups fills the budget, and a worker released beside the previous
  // group's teardown ran out of memory on the two-H200 machine.
  bool fits_beside_exiting(const Worker& w) const {
    const auto& exiting = pipes[w.pipe].exiting;
    if (exiting.empty() || options.memory_budget_bytes == 0) return true;
    const std::uint64_t mine = device_bytes_of(w.job);
    for (std::uint32_t rank = 0; rank < w.world; ++rank) {
      std::uint64_t held = 0;
      for (const auto& e : exiting)
        if (e.rank == rank) held += e.device_bytes;
      if (held + mine > options.memory_budget_bytes) return false;
    }
    return true;
  }

  bool permit_context(Worker& w) {
    w.permit_ns = ipc::monotonic_ns();
    store_release(seg.lane(w.lane).context_permit, std::uint32_t{1});
    w.permitted = true;
    return true;
  }

  // Permitted, and its device context not made yet.
  bool creating_context(const Worker& w) const {
    const auto state = lane_state(w);
    return w.permitted && (state == ipc::LaneState::assigned || state == ipc::LaneState::attached);
  }

  // A calibrate task is done once the inner count is written, a describe task once the report is.
  bool setup_task_done(const ipc::Task& t) const {
    const auto& entry = seg.instance(t.instance);
    if (t.kind == static_cast<std::uint32_t>(ipc::TaskKind::describe)) return load_acquire(entry.report_ready) != 0;
    return load_acquire(entry.calibrated) != 0;
  }

  // Journals the samples the worker has written, in plan order; stops at the first missing one.
  void drain(Worker& w) {
    while (w.next_task < w.job.tasks.size()) {
      const auto& t = w.job.tasks[w.next_task];
      if (t.kind != kMeasure) {
        if (!setup_task_done(t)) break;
        ++w.next_task;
        continue;
      }
      auto& shared = seg.slot(t.slot);
      if (load_acquire(shared.state) != static_cast<std::uint32_t>(ipc::SlotState::written)) break;
      // Validate and record one copy: the shared slot may change between two reads.
      ipc::SampleSlot slot;
      std::memcpy(&slot, &shared, sizeof slot);
      std::vector<double> rank_values;
      std::string problem = validate_slot(slot, t, w.token, t.slot);
      if (problem.empty() && w.world > 1) problem = read_rank_values(*rank_table, t.slot, w.world, slot.values.value_s, rank_values);
      if (!problem.empty()) {
        log.write("sample-rejected", "slot " + std::to_string(t.slot) + " of worker " + std::to_string(w.serial) +
                                         ": " + problem);
        w.rejected = "rejected sample: " + problem;
        ++w.next_task;
        continue;
      }
      record(slot, w.job.planned[w.next_task], w, std::move(rank_values));
      ++w.next_task;
    }
  }

  std::string validate_slot(const ipc::SampleSlot& slot, const ipc::Task& t, std::uint64_t token,
                            std::uint32_t slot_index) const {
    if (slot.token != token) return "written by a process that is not this slot's worker";
    if (slot.seal != ipc::seal_of(slot, slot_index)) return "contents changed after the worker sealed them";
    if (slot.instance != t.instance) return "instance index does not match the task";
    const ipc::SampleValues& v = slot.values;
    if (!std::isfinite(v.value_s) || v.value_s <= 0) return "value is not a finite positive time";
    if (v.inner != plan.instances.at(t.instance).inner) return "inner count differs from the pinned one";
    if (!std::isfinite(v.host_enqueue_s) || v.host_enqueue_s < 0) return "host enqueue time is not a finite time";
    if (!std::isfinite(v.kernel_gpu_s) || v.kernel_gpu_s < 0) return "kernel GPU time is not a finite time";
    return {};
  }

  // One sample into the journal, with where it was taken: the worker's GPU index, and the UUID
  // and name of the device the worker says it opened.
  void record(const ipc::SampleSlot& slot, const PlannedSample& ps, const Worker& w, std::vector<double> rank_values) {
    SampleRecord r;
    r.instance = plan.instances.at(ps.instance).worker.id;
    r.instance_index = ps.instance;
    r.sample = ps.sample;
    r.round = ps.round;
    r.slot = ps.slot;
    r.side = ps.side;
    r.worker_pid = w.proc->pid();
    r.worker_serial = w.serial;
    r.unix_time = unix_time_now();
    r.values = slot.values;
    r.rank_values = std::move(rank_values);
    r.gpu = pipes[w.pipe].gpu;
    const ipc::Lane& lane = seg.lane(w.lane);
    r.gpu_uuid = printable_text(lane.device_uuid, sizeof lane.device_uuid);
    r.gpu_name = printable_text(lane.device_name, sizeof lane.device_name);
    journal.append(r);
    done_slots.insert(ps.slot);
    ++outcome.samples_recorded;
  }

  bool finished(const Worker& w) const {
    return w.next_task >= w.job.tasks.size() && lane_state(w) == ipc::LaneState::done;
  }

  // Why the worker failed, from its exit status and its lane; empty if it did not.
  std::string failure_reason(const Worker& w, const ExitStatus& status) const {
    if (!w.rejected.empty()) return w.rejected;
    if (!status.ok()) {
      const ipc::Lane& lane = seg.lane(w.lane);
      const std::string lane_error = printable_text(lane.error, sizeof lane.error);
      return status.describe() + (lane_error.empty() ? "" : ": " + lane_error);
    }
    if (!finished(w))
      return "exited without finishing its tasks (" + std::to_string(w.next_task) + " of " +
             std::to_string(w.job.tasks.size()) + ")";
    return {};
  }

  double silent_seconds(const Worker& w) const {
    const std::uint64_t beat = load_acquire(seg.lane(w.lane).heartbeat_ns);
    return beat ? (ipc::monotonic_ns() - beat) / 1e9 : std::chrono::duration<double>(Clock::now() - w.started).count();
  }

  // The worker is over: journal what it did, free its lane, keep its process to reap later.
  void retire(std::unique_ptr<Worker> w, const std::string& reason, const ExitStatus* status) {
    stop_peers(*w, reason.empty());
    const ipc::Lane& lane = seg.lane(w->lane);
    journal.append_event({{"type", "worker"},
                          {"serial", w->serial},
                          {"pid", w->proc->pid()},
                          {"lane", w->lane},
                          {"side", w->job.side},
                          {"gpu", pipes[w->pipe].gpu},
                          {"what", w->job.what},
                          {"tasks", w->job.tasks.size()},
                          {"released_ns", w->released_ns},
                          {"permit_ns", w->permit_ns},
                          {"measure_permit_ns", w->measure_permit_ns},
                          {"spawned_ns", lane.spawned_ns},
                          {"attached_ns", lane.attached_ns},
                          {"context_begin_ns", lane.context_begin_ns},
                          {"device_ready_ns", lane.device_ready_ns},
                          {"prepared_ns", lane.prepared_ns},
                          {"measure_begin_ns", lane.measure_begin_ns},
                          {"measure_end_ns", lane.measure_end_ns},
                          {"ok", reason.empty()}});
    log.write(reason.empty() ? "worker-done" : "worker-failed",
              "worker " + std::to_string(w->serial) + " pid " + std::to_string(w->proc->pid()) + ": " +
                  (reason.empty() ? (status ? status->describe() : std::string("reported done")) : reason));
    free_lanes.push_back(w->lane);
    if (!status)
      pipes[w->pipe].exiting.push_back({std::move(w->proc), w->serial, Clock::now(), 0, device_bytes_of(w->job)});
  }

  void note_failure(const Worker& w, const std::string& reason, const ExitStatus& status) {
    nlohmann::json f = {{"type", "worker_failure"},
                        {"what", w.job.what},
                        {"pid", w.proc->pid()},
                        {"serial", w.serial},
                        {"attempt", w.job.attempt},
                        {"released", w.released},
                        {"reason", reason},
                        {"time", unix_time_now()},
                        {"signal", status.signaled ? status.signal : 0},
                        {"exit_code", status.signaled ? -1 : status.code}};
    journal.append_event(f);
    outcome.failures.push_back(f);
    progress.message("worker failed (" + w.job.what + "): " + reason);
  }

  // The job's tasks that are not done yet, as a new attempt; nullopt when there are none or no
  // attempts are left (then the loss is logged).
  std::optional<Job> retry_of(const Worker& w) {
    Job next;
    next.what = w.job.what;
    next.side = w.job.side;
    next.attempt = w.job.attempt + 1;
    for (std::size_t i = 0; i < w.job.tasks.size(); ++i) {
      const auto& t = w.job.tasks[i];
      const bool done = t.kind == kMeasure ? done_slots.count(t.slot) > 0 : setup_task_done(t);
      if (done) continue;
      next.tasks.push_back(t);
      if (t.kind == kMeasure) next.planned.push_back(w.job.planned[i]);
    }
    if (next.tasks.empty()) return std::nullopt;
    if (next.attempt > options.retries) {
      log.write("samples-lost", std::to_string(next.tasks.size()) + " " + w.job.what + " tasks abandoned after " +
                                    std::to_string(options.retries + 1) + " workers");
      return std::nullopt;
    }
    return next;
  }

  // Collects workers that finished tearing down; the journal gets when each was seen gone. One
  // that takes longer than the heartbeat timeout to exit is killed: with the context gate the
  // next timed phase waits for it.
  void reap_exiting() {
    for (auto& pipe : pipes) reap_exiting(pipe.exiting);
  }

  bool any_exiting() const {
    return std::any_of(pipes.begin(), pipes.end(), [](const Pipeline& p) { return !p.exiting.empty(); });
  }

  void reap_exiting(std::vector<ExitingWorker>& exiting) {
    for (auto it = exiting.begin(); it != exiting.end();) {
      auto status = it->proc->poll();
      if (!status && Clock::now() - it->since > std::chrono::duration<double>(options.worker_timeout_s)) {
        status = it->proc->kill();
        log.write("worker-teardown", "pid " + std::to_string(it->proc->pid()) + " still exiting after " +
                                         std::to_string(options.worker_timeout_s) + " s: " + status->describe());
      }
      if (!status) {
        ++it;
        continue;
      }
      if (!status->ok())
        log.write("worker-teardown", "pid " + std::to_string(it->proc->pid()) + " ended with " + status->describe() +
                                         " after reporting all its samples");
      journal.append_event({{"type", "worker_exit"},
                            {"serial", it->serial},
                            {"pid", it->proc->pid()},
                            {"exited_ns", ipc::monotonic_ns()},
                            {"ok", status->ok()}});
      it = exiting.erase(it);
    }
  }

  // Runs the jobs, each on the pipeline of its GPU, every pipeline at once (one on one GPU).
  void run_jobs(std::deque<Job> jobs) {
    for (auto& job : jobs) pipes[pipe_of(job)].jobs.push_back(std::move(job));
    auto busy = [&] {
      return std::any_of(pipes.begin(), pipes.end(),
                         [](const Pipeline& p) { return !p.jobs.empty() || !p.active.empty(); });
    };
    auto sleep_for = std::chrono::microseconds(20);
    while (busy()) {
      if (interrupt_requested()) {
        for (auto& pipe : pipes) {
          for (auto& w : pipe.active) {
            const auto status = w->proc->kill();
            drain(*w);
            retire(std::move(w), "interrupted", &status);
          }
          pipe.active.clear();
          pipe.jobs.clear();
        }
        outcome.interrupted = true;
        return;
      }
      reap_exiting();
      bool event = false;
      for (auto& pipe : pipes) event |= step(pipe);
      progress.update(outcome.samples_recorded, outcome.workers_started);
      // Back off to 1 ms between looks. Polling every 100 us while a worker measured made CPU
      // kernels bimodal on a 2-core machine (a third of the fresh processes 15-30% slower; see
      // docs/results/process-overhead.md): the orchestrator must stay off the CPU it measures.
      if (event) {
        sleep_for = std::chrono::microseconds(20);
      } else {
        std::this_thread::sleep_for(sleep_for);
        sleep_for = std::min(sleep_for * 2, std::chrono::microseconds(1000));
      }
    }
  }

  // One look at a pipeline: starts workers up to the pre-start depth, admits the head, journals
  // its samples, and retires (and retries) whatever ended. The head of `active` is the only
  // worker of the pipeline allowed to measure; up to options.prestart more are started behind it
  // and wait, loaded, for their turn. True when something happened.
  bool step(Pipeline& pipe) {
    auto& jobs = pipe.jobs;
    auto& active = pipe.active;
    const std::size_t depth = 1 + static_cast<std::size_t>(std::max(0, options.prestart));
    bool event = false;
    while (active.size() < depth && !jobs.empty() && !free_lanes.empty() &&
           (active.empty() || world_of(jobs.front()) == 1)) {
      active.push_back(start(std::move(jobs.front()), !active.empty()));
      jobs.pop_front();
      event = true;
    }
    if (active.empty()) return event;
    Worker& head = *active.front();
    event |= admit(head, active.size() > 1 ? active[1].get() : nullptr);
    const std::size_t before = head.next_task;
    drain(head);
    event |= head.next_task != before;

    for (std::size_t k = 0; k < active.size(); ++k) {
      Worker& w = *active[k];
      const bool is_head = k == 0;
      if (is_head && finished(w) && w.rejected.empty()) {
        // Reported everything: release the next one now; this process tears down on its own.
        auto done = std::move(active.front());
        active.pop_front();
        retire(std::move(done), "", nullptr);
        return true;
      }
      std::optional<ExitStatus> status = w.proc->poll();
      std::string reason;
      if (is_head && finished(w)) {
        // Done, but a sample in its slots was not its own: those slots are measured again.
        status = w.proc->kill();
        reason = w.rejected;
      } else if (auto peer = peer_failure(w)) {
        w.proc->kill();
        if (is_head) drain(w);
        status = peer->status;  // the failure is recorded as the failed rank's
        reason = std::move(peer->reason);
      } else if (status) {
        if (is_head) drain(w);
        reason = failure_reason(w, *status);
      } else if (silent_seconds(w) > options.worker_timeout_s) {
        status = w.proc->kill();
        reason = "hung: no heartbeat for " + std::to_string(static_cast<int>(silent_seconds(w))) +
                 " s (--worker-timeout " + std::to_string(options.worker_timeout_s) + " s), " + status->describe();
      }
      if (!status) continue;
      auto gone = std::move(active[k]);
      active.erase(active.begin() + static_cast<std::ptrdiff_t>(k));
      if (!reason.empty()) note_failure(*gone, reason, *status);
      auto retry = reason.empty() ? std::nullopt : retry_of(*gone);
      retire(std::move(gone), reason, &*status);
      if (retry) {
        // The replacement takes the failed worker's place in the order: plan order is kept.
        auto replacement = start(std::move(*retry), !is_head);
        active.insert(active.begin() + static_cast<std::ptrdiff_t>(k), std::move(replacement));
      }
      return true;  // `active` changed: look again from the top
    }
    return event;
  }

  // What the first worker to set up each instance said about it (the timer's note, and the
  // kernel's describe(): for GEMMs the cuBLASLt algorithm that ran).
  void write_instance_reports() {
    nlohmann::json reports = dir.exists("instance_reports.json") ? dir.read_json("instance_reports.json")
                                                                : nlohmann::json{{"schema_version", kRunSchemaVersion},
                                                                                 {"instances", nlohmann::json::object()}};
    for (std::uint32_t i = 0; i < plan.instances.size(); ++i)
      if (auto report = instance_report(i)) reports["instances"][plan.instances[i].worker.id] = std::move(*report);
    dir.write_json("instance_reports.json", reports);
  }

  // The report a worker published for instance i, once it is a JSON object.
  std::optional<nlohmann::json> instance_report(std::uint32_t i) {
    const auto& entry = seg.instance(i);
    if (load_acquire(entry.report_ready) == 0) return std::nullopt;
    const std::string text = printable_text(entry.report, sizeof entry.report);
    auto report = nlohmann::json::parse(text, nullptr, false);
    if (report.is_discarded() || !report.is_object()) {
      log.write("report-rejected", plan.instances[i].worker.id + ": the worker's report is not a JSON object");
      return std::nullopt;
    }
    return report;
  }

  // Pins each CUDA instance's choice (its describe(): for a GEMM, the cuBLASLt algorithm) as the
  // first worker to set it up made it, with the baseline build, so that every later worker and
  // both sides of an A/B run replay the same algorithm: a heuristic that picked differently in
  // one process, or in the candidate build, would otherwise be measured as a regression. Pins
  // already in the plan (a resumed run, --replay-from) are kept.
  void pin_choices() {
    Job job;
    job.what = "describe";
    for (std::uint32_t i = 0; i < plan.instances.size(); ++i) {
      const auto& p = plan.instances[i];
      if (p.replay.is_null() && p.worker.backend == "cuda" && load_acquire(seg.instance(i).report_ready) == 0)
        job.tasks.push_back({static_cast<std::uint32_t>(ipc::TaskKind::describe), i, 0, 0});
    }
    if (!job.tasks.empty()) run_jobs(setup_jobs(job));
    if (interrupt_requested()) return;
    bool pinned_now = false;
    for (std::uint32_t i = 0; i < plan.instances.size(); ++i) {
      auto& p = plan.instances[i];
      if (!p.replay.is_null() || p.worker.backend != "cuda") continue;
      const auto report = instance_report(i);
      if (!report || !report->contains("describe") || !(*report)["describe"].is_object() ||
          (*report)["describe"].empty())
        continue;
      p.replay = (*report)["describe"];
      pinned_now = true;
    }
    for (std::uint32_t i = 0; i < plan.instances.size(); ++i) {
      const auto& p = plan.instances[i];
      if (p.replay.is_null()) continue;
      const std::string text = p.replay.dump();
      if (text.size() >= ipc::kReportBytes) {
        log.write("pin-skipped", p.worker.id + ": the recorded choice is too long to pin (" +
                                     std::to_string(text.size()) + " bytes)");
        continue;
      }
      ipc::copy_text(seg.instance(i).pin, sizeof seg.instance(i).pin, text);
    }
    if (pinned_now) dir.write_json("plan.json", plan.to_json());
  }

  // kernels.json (--record-kernels): per instance that asked, per side, the record the first
  // worker of that side published, or why there is none. A resumed run keeps the records an
  // earlier start wrote and fills in what it lacked.
  void write_kernel_records() {
    bool asked = false;
    for (const auto& p : plan.instances) asked |= p.worker.measure.record_kernels;
    if (!asked) return;
    nlohmann::json records = dir.exists("kernels.json") ? dir.read_json("kernels.json") : nlohmann::json();
    if (!records.is_object() || !records.contains("instances") || !records["instances"].is_object())
      records = {{"schema_version", kRunSchemaVersion}, {"instances", nlohmann::json::object()}};
    for (std::uint32_t i = 0; i < plan.instances.size(); ++i) {
      const auto& p = plan.instances[i];
      if (!p.worker.measure.record_kernels) continue;
      auto& sides = records["instances"][p.worker.id];
      if (!sides.is_array()) sides = nlohmann::json::array();
      for (std::uint32_t side = 0; side < plan.schedule.sides; ++side) {
        if (sides.size() <= side) sides.push_back({{"reason", "no worker of this side reached its record pass"}});
        if (sides[side].is_object() && !sides[side].contains("reason")) continue;  // recorded earlier
        const auto text = ipc::read_kernel_record(seg.instance(i), side);
        if (!text) continue;
        auto record = nlohmann::json::parse(*text, nullptr, false);
        if (record.is_discarded() || !record.is_object()) {
          log.write("kernel-record-rejected", p.worker.id + " side " + std::to_string(side) +
                                                  ": the worker's kernel record is not a JSON object");
          continue;
        }
        sides[side] = std::move(record);
      }
    }
    dir.write_json("kernels.json", records);
  }

  // ----- the two phases ------------------------------------------------------------------------

  // Pins the inner count of every instance that asks for "auto", with the baseline build.
  void calibrate() {
    Job job;
    job.what = "calibration";
    for (std::uint32_t i = 0; i < plan.instances.size(); ++i)
      if (plan.instances[i].inner == 0) job.tasks.push_back({static_cast<std::uint32_t>(ipc::TaskKind::calibrate), i, 0, 0});
    if (job.tasks.empty()) return;
    run_jobs(setup_jobs(job));
    if (interrupt_requested()) return;
    nlohmann::json calibration = nlohmann::json::array();
    std::string failed;
    for (const auto& t : job.tasks) {
      auto& entry = seg.instance(t.instance);
      auto& p = plan.instances[t.instance];
      if (load_acquire(entry.calibrated) == 0 || entry.calibrated_inner == 0) {
        failed = p.worker.id;
        continue;
      }
      p.inner = entry.calibrated_inner;
      entry.inner = p.inner;
      calibration.push_back({{"id", p.worker.id},
                             {"inner", p.inner},
                             {"seconds_per_launch", entry.calibrated_seconds_per_launch},
                             {"min_sample_time_s", p.min_sample_time_s}});
      log.write("calibrated", p.worker.id + ": inner " + std::to_string(p.inner) + " (" +
                                  std::to_string(entry.calibrated_seconds_per_launch * 1e6) + " us per launch)");
    }
    if (!failed.empty())
      throw std::runtime_error("calibration failed for " + failed + " after " + std::to_string(options.retries + 1) +
                               " workers; see " + dir.file("log.txt"));
    dir.write_json("calibration.json", {{"schema_version", kRunSchemaVersion}, {"instances", calibration}});
  }

  void execute() {
    const auto start_time = Clock::now();
    outcome.samples_expected = plan.schedule.total_samples();
    outcome.samples_recorded = done_slots.size();
    for (std::uint32_t i = 0; i < plan.instances.size(); ++i) {
      auto& e = seg.instance(i);
      e.warmup = plan.instances[i].warmup;
      e.min_sample_time_s = plan.instances[i].min_sample_time_s;
      e.inner = plan.instances[i].inner;
    }
    if (!plan.calibrated()) {
      calibrate();
      if (interrupt_requested()) {
        outcome.interrupted = true;
        return;
      }
      dir.write_json("plan.json", plan.to_json());
    }
    pin_choices();
    if (interrupt_requested()) {
      outcome.interrupted = true;
      return;
    }
    std::deque<Job> jobs;
    for (const auto& run : plan.schedule.runs) {
      Job job;
      job.what = "measure";
      job.side = run.side;
      for (const auto& t : run.tasks) {
        if (done_slots.count(t.slot)) continue;
        job.tasks.push_back({kMeasure, t.instance, t.slot, t.round});
        job.planned.push_back(t);
      }
      for (auto& part : split_by_world(job)) jobs.push_back(std::move(part));
    }
    run_jobs(std::move(jobs));
    write_instance_reports();
    write_kernel_records();
    // Wait for the last workers' teardown, so the run ends with no child left behind.
    const auto deadline = Clock::now() + std::chrono::duration<double>(options.worker_timeout_s);
    while (any_exiting() && Clock::now() < deadline) {
      reap_exiting();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    progress.finish(outcome.samples_recorded, outcome.workers_started);
    outcome.wall_seconds = std::chrono::duration<double>(Clock::now() - start_time).count();
  }
};

Runner::Runner(const RunDirectory& dir, Plan& plan, RunnerOptions options, RunLog& log)
    : dir_(dir), plan_(plan), options_(std::move(options)), log_(log) {}

RunOutcome Runner::run() {
  for (const auto& name : ipc::remove_stale_segments())
    log_.write("stale-segment", "removed " + name + " (its orchestrator is gone)");

  // Samples already journaled (a resumed run) are not measured again.
  const auto journal = read_journal(dir_.file("samples.jsonl"));
  if (journal.dropped_torn_tail) {
    truncate_journal(dir_.file("samples.jsonl"), journal.valid_bytes);
    log_.write("journal", "dropped a torn last line of samples.jsonl");
  }
  std::set<std::uint32_t> done;
  for (const auto& s : journal.samples) done.insert(s.slot);

  std::size_t max_tasks = plan_.instances.size();
  for (const auto& r : plan_.schedule.runs) max_tasks = std::max(max_tasks, r.tasks.size());
  std::vector<ipc::WorkerInstance> table;
  for (const auto& p : plan_.instances) table.push_back(p.worker);
  ipc::SegmentShape shape;
  shape.n_instances = static_cast<std::uint32_t>(plan_.instances.size());
  shape.n_slots = plan_.schedule.n_instances * plan_.schedule.samples * plan_.schedule.sides;
  // Each GPU's pipeline: the measuring worker, the pre-started ones, and one being replaced.
  const auto n_gpus = plan_gpus(plan_, options_.device).size();
  shape.n_lanes = static_cast<std::uint32_t>(n_gpus * (2 + std::max(0, options_.prestart)));
  shape.tasks_per_lane = static_cast<std::uint32_t>(max_tasks);
  shape.instances_json = ipc::encode_instances(table);
  const auto worlds = instance_worlds(plan_.instances);
  const std::uint32_t max_world = worlds.empty() ? 1 : *std::max_element(worlds.begin(), worlds.end());
  make_room_for_ranks(shape, max_world);
  auto seg = ipc::Segment::create(shape);
  if (max_world > 1) ipc::init_rank_table(seg, shape.n_lanes, max_world);
  log_.write("segment", "created " + seg.name() + " (" + std::to_string(seg.size()) + " bytes)");

  Impl impl(dir_, plan_, options_, log_, std::move(seg), std::move(done));
  impl.execute();
  return impl.outcome;
}

}  // namespace isobench::orchestrator
