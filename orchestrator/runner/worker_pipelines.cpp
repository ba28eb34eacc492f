#include "worker_pipelines.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <thread>

#include "orchestrator/interrupt.hpp"

namespace isobench::orchestrator {

namespace {

// A failure's cause without its numbers (pids, task counts, seconds, serials).
std::string cause_of(const std::string& reason) {
  std::string cause;
  for (char c : reason)
    if (!std::isdigit(static_cast<unsigned char>(c))) cause += c;
  return cause;
}

// Two jobs that measure the same thing: the same kind, side and tasks in the same order.
bool same_job(const Job& a, const Job& b) {
  return a.what == b.what && a.side == b.side && a.tasks.size() == b.tasks.size() &&
         std::equal(a.tasks.begin(), a.tasks.end(), b.tasks.begin(), [](const ipc::Task& x, const ipc::Task& y) {
           return x.kind == y.kind && x.instance == y.instance && x.slot == y.slot && x.round == y.round;
         });
}

}  // namespace

std::size_t WorkerPipelines::batch_size(const std::deque<Job>& jobs) {
  const auto size = static_cast<std::size_t>(std::max(1, s_.options.setup_batch));
  if (size == 1 || batches_shrunk_) return 1;
  for (const auto& job : jobs)
    if (job.what != "measure") return 1;
  for (const auto& job : jobs) {
    if (s_.world_of(job) == 1) continue;
    // A rank group's workers start together on an empty pipeline; they are not batched.
    if (!multi_rank_noted_) s_.log.write("setup-batch", "multi-rank instances: measuring workers set up one at a time");
    multi_rank_noted_ = true;
    return 1;
  }
  return size;
}

std::size_t WorkerPipelines::set_up_batches(const std::deque<Job>& jobs) {
  const std::size_t size = batch_size(jobs);
  if (size == 1) return 0;
  std::vector<std::size_t> per_pipe(s_.pipes.size(), 0);
  for (const auto& job : jobs) ++per_pipe[s_.pipe_of(job)];
  std::size_t most = 0;
  for (std::size_t count : per_pipe) most = std::max(most, (count + size - 1) / size);
  return most;
}

void WorkerPipelines::run_jobs(std::deque<Job> jobs, std::deque<Job> next_call) {
  if (!s_.outcome.deterministic_failure.empty()) {  // the run stopped on it
    drop_next_call();
    return;
  }
  batch_ = batch_size(jobs);
  for (auto& job : jobs) s_.pipes[s_.pipe_of(job)].jobs.push_back(std::move(job));
  for (auto& pipe : s_.pipes) {
    take_next_call(pipe);
    pipe.next_call.clear();
  }
  next_batch_ = batch_size(next_call);
  for (auto& job : next_call)
    if (s_.world_of(job) == 1) s_.pipes[s_.pipe_of(job)].next_call.push_back(std::move(job));
  // Workers started for the next call wait beyond this one: it is done without them.
  auto busy = [&] {
    return std::any_of(s_.pipes.begin(), s_.pipes.end(), [](const Pipeline& p) {
      return !p.jobs.empty() ||
             std::any_of(p.active.begin(), p.active.end(), [](const auto& w) { return !w->for_next_call; });
    });
  };
  auto sleep_for = std::chrono::microseconds(20);
  while (busy()) {
    if (interrupt_requested()) {
      for (auto& pipe : s_.pipes) {
        for (auto& w : pipe.active) {
          const auto status = w->proc->kill();
          intake_.drain(*w);
          retire(std::move(w), "interrupted", &status);
        }
        pipe.active.clear();
        pipe.jobs.clear();
      }
      s_.outcome.interrupted = true;
      return;
    }
    reap_exiting();
    bool event = false;
    for (auto& pipe : s_.pipes) event |= step(pipe);
    s_.progress.update(s_.outcome.samples_recorded, s_.outcome.workers_started);
    // Back off to 1 ms between looks. Polling every 100 us while a worker measured made CPU
    // kernels bimodal on a 2-core machine (many fresh processes far slower; see
    // docs/results/process-overhead.md): the orchestrator must stay off the CPU it measures.
    if (event) {
      sleep_for = std::chrono::microseconds(20);
    } else {
      std::this_thread::sleep_for(sleep_for);
      sleep_for = std::min(sleep_for * 2, std::chrono::microseconds(1000));
    }
  }
  for (auto& pipe : s_.pipes) batches_.release_exits(pipe);  // nothing more is measured in these jobs
}

// The workers the last call started for this one (all of the pipeline's active ones, in order)
// take the jobs at the front of this call's, where theirs are the same and they would be batched
// as this call batches; from the first that does not fit on, they are dropped.
void WorkerPipelines::take_next_call(Pipeline& pipe) {
  auto& active = pipe.active;
  std::size_t k = 0;
  for (; k < active.size(); ++k) {
    Worker& w = *active[k];
    if (!w.for_next_call || pipe.jobs.empty() || !same_job(w.job, pipe.jobs.front()) || w.batched != (batch_ > 1))
      break;
    w.for_next_call = false;
    pipe.jobs.pop_front();
  }
  while (active.size() > k) {
    auto w = std::move(active.back());
    active.pop_back();
    drop(std::move(w), "started for the next jobs; the next jobs differ");
  }
}

void WorkerPipelines::drop_next_call() {
  for (auto& pipe : s_.pipes) {
    pipe.next_call.clear();
    drop_where(pipe, [](const Worker& w) { return w.for_next_call; },
               "started for the next jobs; the run needs no more workers");
  }
}

void WorkerPipelines::drop_where(Pipeline& pipe, const std::function<bool(const Worker&)>& which, const char* why) {
  for (auto it = pipe.active.begin(); it != pipe.active.end();) {
    if (!which(**it)) {
      ++it;
      continue;
    }
    auto w = std::move(*it);
    it = pipe.active.erase(it);
    drop(std::move(w), why);
  }
}

// A worker started for a next call that did not take it, or not yet released when the run stopped
// on a failure not retried: killed without waiting (with others'
// teardown, not one after another), its exit followed as any worker's, so the gate keeps it from
// beside a timed phase; journaled as dropped, not as a worker of the run's phases.
void WorkerPipelines::drop(std::unique_ptr<Worker> w, const char* why) {
  const ipc::Lane& lane = s_.seg.lane(w->lane);
  s_.journal.append_event({{"type", "worker_dropped"},
                           {"serial", w->serial},
                           {"pid", w->proc->pid()},
                           {"side", w->job.side},
                           {"gpu", s_.pipes[w->pipe].gpu},
                           {"what", w->job.what},
                           {"permit_ns", w->permit_ns},
                           {"spawned_ns", lane.spawned_ns},
                           {"attached_ns", lane.attached_ns},
                           {"context_begin_ns", lane.context_begin_ns},
                           {"device_ready_ns", lane.device_ready_ns},
                           {"dropped_ns", ipc::monotonic_ns()}});
  s_.log.write("worker-dropped", "worker " + std::to_string(w->serial) + " pid " + std::to_string(w->proc->pid()) +
                                     ": " + why);
  w->proc->signal_kill();
  auto& exiting = s_.pipes[w->pipe].exiting;
  exiting.push_back({std::move(w->proc), w->serial, Clock::now(), 0, 0, w->lane});
  exiting.back().dropped = true;
}

// Every job of this call has started: pre-start goes on into the next call's jobs, behind this
// call's workers, never on an empty pipeline (a worker there would be this call's head), and for
// one of its batches at most (one worker without batches): those that would be released first,
// where a look that stops an instance drops them all.
bool WorkerPipelines::start_for_next_call(Pipeline& pipe, std::size_t depth) {
  std::size_t started = 0;
  const auto waiting = static_cast<std::size_t>(
      std::count_if(pipe.active.begin(), pipe.active.end(), [](const auto& w) { return w->for_next_call; }));
  while (s_.outcome.deterministic_failure.empty() && pipe.jobs.empty() && !pipe.next_call.empty() &&
         !pipe.active.empty() && pipe.active.size() < depth && waiting + started < next_batch_ &&
         !s_.free_lanes.empty() && s_.world_of(pipe.active.front()->job) == 1) {
    auto w = lanes_.start(std::move(pipe.next_call.front()), true, next_batch_ > 1);
    pipe.next_call.pop_front();
    w->for_next_call = true;
    pipe.active.push_back(std::move(w));
    ++started;
  }
  return started > 0;
}

// One look at a pipeline. The head of `active` is the only worker of the pipeline allowed to
// measure; up to options.prestart more are started behind it and wait, loaded, for their turn
// (with set-up batches, the head's batch and prestart batches more). True when something happened.
bool WorkerPipelines::step(Pipeline& pipe) {
  auto& jobs = pipe.jobs;
  auto& active = pipe.active;
  const bool batched = batch_ > 1;
  // After a failure in a batch (batches_shrunk_) this call's workers keep their batched lanes,
  // and its batches are released one worker at a time.
  const std::size_t size = batches_shrunk_ ? 1 : batch_;
  const std::size_t depth = size * (1 + static_cast<std::size_t>(std::max(0, s_.options.prestart)));
  bool event = false;
  while (active.size() < depth && !jobs.empty() && s_.free_lanes.size() >= s_.world_of(jobs.front()) &&
         (active.empty() || s_.world_of(jobs.front()) == 1)) {
    active.push_back(lanes_.start(std::move(jobs.front()), !active.empty(), batched));
    jobs.pop_front();
    event = true;
  }
  event |= start_for_next_call(pipe, depth);
  // A pipeline whose only workers wait for the next call (another GPU's pipeline still runs this
  // one's jobs) admits nobody: its front would be released before its call.
  if (active.empty() || active.front()->for_next_call) return event;
  Worker& head = *active.front();
  if (batched)
    event |= batches_.admit(pipe, size);
  else
    event |= lanes_.admit(head, active.size() > 1 ? active[1].get() : nullptr);
  const std::size_t before = head.next_task;
  intake_.drain(head);
  event |= head.next_task != before;

  for (std::size_t k = 0; k < active.size(); ++k) {
    Worker& w = *active[k];
    const bool is_head = k == 0;
    lanes_.state(w);  // every look checks the lane against the protocol
    if (is_head && lanes_.finished(w) && w.rejected.empty() && w.broken.empty()) {
      // Reported everything: release the next one now; this process tears down on its own.
      auto done = std::move(active.front());
      active.pop_front();
      retire(std::move(done), "", nullptr);
      return true;
    }
    std::optional<ExitStatus> status = w.proc->poll();
    std::string reason;
    if (!w.broken.empty()) {
      // Its lane was written by something else: nothing more it reports can be trusted.
      status = w.proc->kill();
      reason = "lane protocol broken: " + w.broken;
    } else if (is_head && lanes_.finished(w)) {
      // Done, but a sample in its slots was not its own: those slots are measured again.
      status = w.proc->kill();
      reason = w.rejected;
    } else if (auto peer = peer_failure(w)) {
      w.proc->kill();
      if (is_head) intake_.drain(w);
      status = peer->status;  // the failure is recorded as the failed rank's
      reason = std::move(peer->reason);
    } else if (status) {
      if (is_head) intake_.drain(w);
      reason = failure_reason(w, *status);
    } else if (lanes_.silent_seconds(w) > s_.options.worker_timeout_s) {
      status = w.proc->kill();
      reason = "hung: no heartbeat for " + std::to_string(static_cast<int>(lanes_.silent_seconds(w))) +
               " s (--worker-timeout " + std::to_string(s_.options.worker_timeout_s) + " s), " + status->describe();
    }
    if (!status) continue;
    auto gone = std::move(active[k]);
    active.erase(active.begin() + static_cast<std::ptrdiff_t>(k));
    if (gone->for_next_call) {
      // Not retried here: its job is the next call's, which starts it afresh; the workers started
      // after it no longer line up with that call's jobs and are dropped there.
      if (!reason.empty()) note_failure(*gone, reason, *status);
      s_.log.write("worker-failed", "worker " + std::to_string(gone->serial) + " pid " +
                                        std::to_string(gone->proc->pid()) + " (started for the next jobs): " +
                                        (reason.empty() ? status->describe() : reason));
      s_.free_lanes.push_back(gone->lane);
      pipe.next_call.clear();
      return true;
    }
    if (!reason.empty()) note_failure(*gone, reason, *status);
    // A worker that failed before it measured, having made its context or set up beside its
    // batch-mates, may have failed for want of what they held (device memory): a worker that does
    // both alone, as every one does from now on, may not. It is retried, and its cause is not
    // taken for the side's.
    const bool crowded = gone->beside_batch_mates && !gone->measure_permitted;
    if (!reason.empty() && gone->batched && (gone->released || crowded) && !gone->measure_permitted &&
        !batches_shrunk_) {
      batches_shrunk_ = true;
      next_batch_ = 1;  // workers started for the next call from now on are not batched, as it will not be
      s_.log.write("setup-batch", "worker " + std::to_string(gone->serial) + " failed in its set-up batch" +
                                      (gone->released ? "" : " (making its context)") +
                                      ", before it measured: the rest of the run sets up one worker at a time");
    }
    const bool deterministic = !reason.empty() && !crowded && repeats_cause(*gone, reason);
    auto retry = reason.empty() || deterministic ? std::nullopt : retry_of(*gone);
    retire(std::move(gone), reason, &*status);
    if (deterministic) {
      s_.outcome.deterministic_failure = reason;
      s_.log.write("deterministic-failure", "not retried, nothing more started: " + reason);
      for (auto& p : s_.pipes) {
        p.jobs.clear();
        // Workers started and not yet released would meet the cause in their set-ups: dropped.
        drop_where(p, [](const Worker& x) { return !x.released && !x.for_next_call; },
                   "not released: the run stopped on a failure not retried");
      }
    }
    if (retry) {
      // The replacement takes the failed worker's place in the order: plan order is kept.
      auto replacement = lanes_.start(std::move(*retry), !is_head, batched);
      active.insert(active.begin() + static_cast<std::ptrdiff_t>(k), std::move(replacement));
    }
    return true;  // `active` changed: look again from the top
  }
  return event;
}

// Why the worker failed, from its exit status and its lane; empty if it did not.
std::string WorkerPipelines::failure_reason(Worker& w, const ExitStatus& status) {
  if (!w.rejected.empty()) return w.rejected;
  if (!status.ok()) {
    const ipc::Lane& lane = s_.seg.lane(w.lane);
    const std::string lane_error = printable_text(lane.error, sizeof lane.error);
    return status.describe() + (lane_error.empty() ? "" : ": " + lane_error);
  }
  if (!lanes_.finished(w))
    return "exited without finishing its tasks (" + std::to_string(w.next_task) + " of " +
           std::to_string(w.job.tasks.size()) + ")";
  return {};
}

// A rank of w's group beyond rank 0 that failed: it ended before finishing its tasks, or has been
// silent longer than --worker-timeout (ranks waiting for a peer keep beating, so the silent one is
// the culprit). None while every peer is sound.
std::optional<WorkerPipelines::RankFailure> WorkerPipelines::peer_failure(Worker& w) {
  for (auto& peer : w.peers) {
    const std::string who = "rank " + std::to_string(peer->rank) + " (pid " + std::to_string(peer->proc->pid()) + ")";
    if (const auto status = peer->proc->poll()) {
      if (status->ok() && lanes_.state(*peer) == ipc::LaneState::done) continue;
      return RankFailure{who + ": " + failure_reason(*peer, *status), *status};
    }
    if (const double silent = lanes_.silent_seconds(*peer); silent > s_.options.worker_timeout_s)
      return RankFailure{who + " hung: no heartbeat for " + std::to_string(static_cast<int>(silent)) +
                             " s (--worker-timeout " + std::to_string(s_.options.worker_timeout_s) + " s)",
                         peer->proc->kill()};
  }
  return std::nullopt;
}

// The other ranks leave with rank 0. After a success they end on their own (reaped with the
// exiting workers, their lanes freed then: one may still be writing its lane); after a failure the
// group is aborted, so no rank waits at its barrier for one that is gone, and they are killed.
void WorkerPipelines::stop_peers(Worker& w, bool ok) {
  if (w.peers.empty()) return;
  if (!ok) ipc::abort_rank_group(*s_.rank_table, w.group, ipc::kAbortedByOrchestrator);
  for (auto& peer : w.peers) {
    if (ok) {
      s_.pipes[w.pipe].exiting.push_back(
          {std::move(peer->proc), peer->serial, Clock::now(), peer->rank, s_.device_bytes_of(w.job), peer->lane});
    } else {
      const auto status = peer->proc->kill();
      s_.log.write("rank-stopped", "rank " + std::to_string(peer->rank) + " pid " + std::to_string(peer->proc->pid()) +
                                       " of worker " + std::to_string(w.serial) + ": " + status.describe());
      s_.free_lanes.push_back(peer->lane);
    }
  }
  w.peers.clear();
}

// The worker is over: journal what it did, free its lane, keep its process to reap later.
void WorkerPipelines::retire(std::unique_ptr<Worker> w, const std::string& reason, const ExitStatus* status) {
  stop_peers(*w, reason.empty());
  const ipc::Lane& lane = s_.seg.lane(w->lane);
  nlohmann::json event = {{"type", "worker"},
                          {"serial", w->serial},
                          {"pid", w->proc->pid()},
                          {"lane", w->lane},
                          {"side", w->job.side},
                          {"gpu", s_.pipes[w->pipe].gpu},
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
                          {"ok", reason.empty()}};
  if (w->batched) event["batch"] = w->batch;
  // The build that measured (a side's zygote forks its workers: no executable of its own).
  if (const auto& side = s_.options.workers.at(w->job.side); !side.launcher) event["executable"] = side.executable;
  s_.journal.append_event(event);
  s_.log.write(reason.empty() ? "worker-done" : "worker-failed",
               "worker " + std::to_string(w->serial) + " pid " + std::to_string(w->proc->pid()) + ": " +
                   (reason.empty() ? (status ? status->describe() : std::string("reported done")) : reason));
  // A batched worker still running reads its exit permit in its lane: it keeps the lane until it
  // is gone.
  const bool keeps_lane = !status && w->batched;
  if (!keeps_lane) s_.free_lanes.push_back(w->lane);
  if (reason.empty()) {
    side_reported_[w->job.side & 1] = side_done_[w->job.side & 1] = true;
    const bool all = side_done_[0] && (s_.plan.schedule.sides < 2 || side_done_[1]);
    if (all && !sides_announced_ && s_.options.on_sides_reported) {
      sides_announced_ = true;
      s_.options.on_sides_reported();
    }
  }
  if (!status) {
    auto& exiting = s_.pipes[w->pipe].exiting;
    exiting.push_back({std::move(w->proc), w->serial, Clock::now(), 0, s_.device_bytes_of(w->job)});
    if (keeps_lane) {
      // It holds its exit while a batch-mate is due to measure (SetupBatches lets it go); without
      // the context gate it goes now.
      exiting.back().lane = w->lane;
      exiting.back().exit_held = true;
      if (!s_.options.context_gate) lanes_.permit_exit(exiting.back());
    }
  }
}

void WorkerPipelines::note_failure(const Worker& w, const std::string& reason, const ExitStatus& status) {
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
  s_.journal.append_event(f);
  s_.outcome.failures.push_back(f);
  if (cause_of(reason) != last_shown_cause_) s_.progress.message("worker failed (" + w.job.what + "): " + reason);
  last_shown_cause_ = cause_of(reason);
}

bool WorkerPipelines::repeats_cause(const Worker& w, const std::string& reason) {
  const std::size_t side = w.job.side & 1;
  side_reported_[side] = side_reported_[side] || w.next_task > 0;
  if (side_reported_[side]) return false;
  // A lane that no longer holds what was written into it (another process wrote into the
  // segment) failed the worker for a cause that a fresh worker on a freshly written lane does not
  // meet: retried, and the cause is not remembered as the side's.
  if (!lane_as_written(w)) return false;
  const std::string cause = cause_of(reason);
  const bool again = cause == fruitless_cause_[side];
  fruitless_cause_[side] = cause;
  return again;
}

bool WorkerPipelines::lane_as_written(const Worker& w) {
  const ipc::Lane& lane = s_.seg.lane(w.lane);
  const auto n = w.job.tasks.size();
  return lane.n_tasks == n && lane.side == w.job.side &&
         std::memcmp(s_.seg.lane_tasks(w.lane), w.job.tasks.data(), n * sizeof(ipc::Task)) == 0;
}

// The job's tasks that are not done yet, as a new attempt; nullopt when there are none or no
// attempts are left (then the loss is logged).
std::optional<Job> WorkerPipelines::retry_of(const Worker& w) {
  Job next;
  next.what = w.job.what;
  next.side = w.job.side;
  next.attempt = w.job.attempt + 1;
  for (std::size_t i = 0; i < w.job.tasks.size(); ++i) {
    const auto& t = w.job.tasks[i];
    const bool done = t.kind == kMeasureTask ? s_.done_slots.count(t.slot) > 0 : s_.setup_task_done(t);
    if (done) continue;
    next.tasks.push_back(t);
    if (t.kind == kMeasureTask) next.planned.push_back(w.job.planned[i]);
  }
  if (next.tasks.empty()) return std::nullopt;
  if (next.attempt > s_.options.retries) {
    s_.log.write("samples-lost", std::to_string(next.tasks.size()) + " " + w.job.what + " tasks abandoned after " +
                                     std::to_string(s_.options.retries + 1) + " workers");
    return std::nullopt;
  }
  return next;
}

// Collects workers that finished tearing down; the journal gets when each was seen gone. One that
// takes longer than the heartbeat timeout to exit is killed: with the context gate the next timed
// phase waits for it.
void WorkerPipelines::reap_exiting() {
  for (auto& pipe : s_.pipes) {
    auto& exiting = pipe.exiting;
    for (auto it = exiting.begin(); it != exiting.end();) {
      auto status = it->proc->poll();
      if (!status && !it->exit_held &&
          Clock::now() - it->since > std::chrono::duration<double>(s_.options.worker_timeout_s)) {
        status = it->proc->kill();
        s_.log.write("worker-teardown", "pid " + std::to_string(it->proc->pid()) + " still exiting after " +
                                            std::to_string(s_.options.worker_timeout_s) + " s: " + status->describe());
      }
      if (!status) {
        ++it;
        continue;
      }
      if (!status->ok() && !it->dropped)
        s_.log.write("worker-teardown", "pid " + std::to_string(it->proc->pid()) + " ended with " +
                                            status->describe() + " after reporting all its samples");
      nlohmann::json event = {{"type", "worker_exit"},
                              {"serial", it->serial},
                              {"pid", it->proc->pid()},
                              {"exited_ns", ipc::monotonic_ns()},
                              {"ok", status->ok()}};
      if (it->exit_permit_ns != 0) event["exit_permit_ns"] = it->exit_permit_ns;
      if (it->dropped) event["dropped"] = true;  // killed: its "ok" is false, and nothing failed
      s_.journal.append_event(event);
      if (it->lane) s_.free_lanes.push_back(*it->lane);
      it = exiting.erase(it);
    }
  }
}

bool WorkerPipelines::any_exiting() const {
  return std::any_of(s_.pipes.begin(), s_.pipes.end(), [](const Pipeline& p) { return !p.exiting.empty(); });
}

void WorkerPipelines::wait_for_exits() {
  const auto deadline = Clock::now() + std::chrono::duration<double>(s_.options.worker_timeout_s);
  while (any_exiting() && Clock::now() < deadline) {
    reap_exiting();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace isobench::orchestrator
