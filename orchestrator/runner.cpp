#include "runner.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <stdexcept>
#include <thread>

#include "interrupt.hpp"
#include "ipc/segment.hpp"
#include "progress.hpp"
#include "sample_journal.hpp"
#include "worker_process.hpp"

namespace isobench::orchestrator {

namespace {

using ipc::load_acquire;
using ipc::store_release;

// What happened to one worker process.
struct WorkerResult {
  bool ok = false;
  std::string reason;  // why not ok: exit status, lane error, timeout, rejected samples
  ExitStatus status;
  std::int64_t pid = 0;
};

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
  RunOutcome outcome;
  Progress progress;

  Impl(const RunDirectory& d, Plan& p, const RunnerOptions& o, RunLog& l, ipc::Segment s,
       std::set<std::uint32_t> done)
      : dir(d), plan(p), options(o), log(l), seg(std::move(s)), journal(d.file("samples.jsonl")),
        worker_output(d.file("workers.log")), done_slots(std::move(done)),
        progress(p.schedule.total_samples(), o.quiet) {}

  // Starts one worker on lane 0 for `tasks` and follows it to its end, journaling samples as they
  // land. Measure tasks that were journaled are added to done_slots.
  WorkerResult run_worker(const std::vector<ipc::Task>& tasks, const std::vector<PlannedSample>& planned,
                          std::uint32_t side) {
    const std::uint32_t lane_index = 0;
    ipc::Lane& lane = seg.lane(lane_index);
    std::memset(&lane, 0, sizeof lane);
    const std::uint64_t token = token_rng() | 1;
    lane.token = token;
    lane.n_tasks = static_cast<std::uint32_t>(tasks.size());
    std::memcpy(seg.lane_tasks(lane_index), tasks.data(), tasks.size() * sizeof(ipc::Task));
    for (const auto& t : tasks)
      if (t.kind == static_cast<std::uint32_t>(ipc::TaskKind::measure)) {
        auto& slot = seg.slot(t.slot);
        std::memset(&slot, 0, sizeof slot);
      }
    store_release(lane.state, static_cast<std::uint32_t>(ipc::LaneState::assigned));

    const std::uint64_t serial = next_serial++;
    const std::string& exe = options.worker_executables.at(side);
    WorkerResult result;
    WorkerProcess proc(exe,
                       {"--segment", seg.name(), "--lane", std::to_string(lane_index), "--token",
                        std::to_string(token), "--device", std::to_string(options.device)},
                       worker_output.get());
    ++outcome.workers_started;
    result.pid = proc.pid();
    log.write("worker-start", "worker " + std::to_string(serial) + " pid " + std::to_string(proc.pid()) +
                                  " side " + std::to_string(side) + ": " + std::to_string(tasks.size()) + " tasks");

    std::size_t next_task = 0;  // tasks are journaled in plan order
    auto drain = [&] {
      while (next_task < tasks.size()) {
        const auto& t = tasks[next_task];
        if (t.kind != static_cast<std::uint32_t>(ipc::TaskKind::measure)) {
          if (load_acquire(seg.instance(t.instance).calibrated) == 0) break;
          ++next_task;
          continue;
        }
        auto& slot = seg.slot(t.slot);
        if (load_acquire(slot.state) != static_cast<std::uint32_t>(ipc::SlotState::written)) break;
        if (auto problem = validate_slot(slot, t, token); !problem.empty()) {
          log.write("sample-rejected", "slot " + std::to_string(t.slot) + " of worker " +
                                           std::to_string(serial) + ": " + problem);
          result.reason = "rejected sample: " + problem;
          ++next_task;
          continue;
        }
        record(slot, planned[next_task], proc.pid(), serial);
        ++next_task;
      }
    };

    const auto start = std::chrono::steady_clock::now();
    auto sleep_for = std::chrono::microseconds(50);
    for (;;) {
      drain();
      if (auto status = proc.poll()) {
        result.status = *status;
        break;
      }
      if (interrupt_requested()) {
        result.status = proc.kill();
        result.reason = "interrupted";
        break;
      }
      const std::uint64_t beat = load_acquire(lane.heartbeat_ns);
      const double silent_s =
          beat ? (ipc::monotonic_ns() - beat) / 1e9
               : std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (silent_s > options.worker_timeout_s) {
        result.status = proc.kill();
        result.reason = "hung: no heartbeat for " + std::to_string(static_cast<int>(silent_s)) +
                        " s (--worker-timeout " + std::to_string(options.worker_timeout_s) + " s), " +
                        result.status.describe();
        break;
      }
      progress.update(outcome.samples_recorded, outcome.workers_started);
      std::this_thread::sleep_for(sleep_for);
      sleep_for = std::min(sleep_for * 2, std::chrono::microseconds(2000));
    }
    drain();
    const auto state = static_cast<ipc::LaneState>(load_acquire(lane.state));
    if (result.reason.empty()) {
      if (!result.status.ok()) {
        std::string lane_error(lane.error, strnlen(lane.error, sizeof lane.error));
        result.reason = result.status.describe() + (lane_error.empty() ? "" : ": " + lane_error);
      } else if (state != ipc::LaneState::done || next_task < tasks.size()) {
        result.reason = "exited without finishing its tasks (" + std::to_string(next_task) + " of " +
                        std::to_string(tasks.size()) + ")";
      }
    }
    result.ok = result.reason.empty();
    log.write(result.ok ? "worker-exit" : "worker-failed",
              "worker " + std::to_string(serial) + " pid " + std::to_string(proc.pid()) + ": " +
                  (result.ok ? result.status.describe() : result.reason));
    return result;
  }

  std::string validate_slot(const ipc::SampleSlot& slot, const ipc::Task& t, std::uint64_t token) const {
    if (slot.token != token) return "written by a process that is not this slot's worker";
    if (slot.instance != t.instance) return "instance index does not match the task";
    if (!std::isfinite(slot.value_s) || slot.value_s <= 0) return "value is not a finite positive time";
    if (slot.inner != plan.instances.at(t.instance).inner) return "inner count differs from the pinned one";
    return {};
  }

  void record(const ipc::SampleSlot& slot, const PlannedSample& ps, std::int64_t pid, std::uint64_t serial) {
    SampleRecord r;
    r.instance = plan.instances.at(ps.instance).worker.id;
    r.instance_index = ps.instance;
    r.sample = ps.sample;
    r.round = ps.round;
    r.slot = ps.slot;
    r.side = ps.side;
    r.value = slot.value_s;
    r.inner = slot.inner;
    r.worker_pid = pid;
    r.worker_serial = serial;
    r.unix_time = unix_time_now();
    r.begin_ns = slot.begin_ns;
    r.end_ns = slot.end_ns;
    r.sm_clock_mhz = slot.sm_clock_mhz;
    if (slot.flags & ipc::flag_low_sm_clock) r.flags.push_back("low_sm_clock");
    if (slot.flags & ipc::flag_graph_fallback) r.flags.push_back("graph_fallback");
    journal.append(r);
    done_slots.insert(ps.slot);
    ++outcome.samples_recorded;
  }

  void note_failure(const WorkerResult& result, const std::string& what, int attempt) {
    nlohmann::json f = {{"type", "worker_failure"}, {"what", what},         {"pid", result.pid},
                        {"attempt", attempt},       {"reason", result.reason}, {"time", unix_time_now()},
                        {"signal", result.status.signaled ? result.status.signal : 0},
                        {"exit_code", result.status.signaled ? -1 : result.status.code}};
    journal.append_event(f);
    outcome.failures.push_back(f);
    progress.message("worker failed (" + what + "): " + result.reason);
  }

  // Pins the inner count of every instance that asks for "auto": one worker per side-0 build.
  void calibrate() {
    std::vector<ipc::Task> tasks;
    for (std::uint32_t i = 0; i < plan.instances.size(); ++i)
      if (plan.instances[i].inner == 0)
        tasks.push_back({static_cast<std::uint32_t>(ipc::TaskKind::calibrate), i, 0, 0});
    if (tasks.empty()) return;
    nlohmann::json calibration = nlohmann::json::array();
    for (int attempt = 0; attempt <= options.retries && !tasks.empty(); ++attempt) {
      if (interrupt_requested()) return;
      const auto result = run_worker(tasks, {}, 0);
      std::vector<ipc::Task> missing;
      for (const auto& t : tasks) {
        auto& entry = seg.instance(t.instance);
        if (load_acquire(entry.calibrated) == 0 || entry.calibrated_inner == 0) {
          missing.push_back(t);
          continue;
        }
        auto& p = plan.instances[t.instance];
        p.inner = entry.calibrated_inner;
        entry.inner = p.inner;
        calibration.push_back({{"id", p.worker.id},
                               {"inner", p.inner},
                               {"seconds_per_launch", entry.calibrated_seconds_per_launch},
                               {"min_sample_time_s", p.min_sample_time_s}});
        log.write("calibrated", p.worker.id + ": inner " + std::to_string(p.inner) + " (" +
                                    std::to_string(entry.calibrated_seconds_per_launch * 1e6) + " us per launch)");
      }
      if (!result.ok) note_failure(result, "calibration", attempt);
      tasks = std::move(missing);
    }
    if (!tasks.empty() && !interrupt_requested())
      throw std::runtime_error("calibration failed for " + plan.instances[tasks.front().instance].worker.id +
                               " after " + std::to_string(options.retries + 1) + " workers; see " +
                               dir.file("log.txt"));
    dir.write_json("calibration.json", {{"schema_version", kRunSchemaVersion}, {"instances", calibration}});
  }

  void execute() {
    const auto start = std::chrono::steady_clock::now();
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
    for (const auto& run : plan.schedule.runs) {
      std::vector<PlannedSample> todo;
      for (const auto& t : run.tasks)
        if (!done_slots.count(t.slot)) todo.push_back(t);
      for (int attempt = 0; attempt <= options.retries && !todo.empty(); ++attempt) {
        if (interrupt_requested()) break;
        std::vector<ipc::Task> tasks;
        for (const auto& t : todo)
          tasks.push_back({static_cast<std::uint32_t>(ipc::TaskKind::measure), t.instance, t.slot, t.round});
        const auto result = run_worker(tasks, todo, run.side);
        if (!result.ok && result.reason != "interrupted") note_failure(result, "measure", attempt);
        std::vector<PlannedSample> missing;
        for (const auto& t : todo)
          if (!done_slots.count(t.slot)) missing.push_back(t);
        todo = std::move(missing);
      }
      if (interrupt_requested()) {
        outcome.interrupted = true;
        break;
      }
      if (!todo.empty())
        log.write("samples-lost", std::to_string(todo.size()) + " samples abandoned after " +
                                      std::to_string(options.retries + 1) + " workers");
    }
    progress.finish(outcome.samples_recorded, outcome.workers_started);
    outcome.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
  shape.n_lanes = 1;
  shape.tasks_per_lane = static_cast<std::uint32_t>(max_tasks);
  shape.instances_json = ipc::encode_instances(table);
  auto seg = ipc::Segment::create(shape);
  log_.write("segment", "created " + seg.name() + " (" + std::to_string(seg.size()) + " bytes)");

  Impl impl(dir_, plan_, options_, log_, std::move(seg), std::move(done));
  impl.execute();
  return impl.outcome;
}

}  // namespace isobench::orchestrator
