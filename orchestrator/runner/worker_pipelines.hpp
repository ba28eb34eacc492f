#pragma once
// Runs jobs through the per-GPU pipelines, every pipeline at once: starts workers up to the
// pre-start depth, admits the head through the context gate, journals its samples, and retires
// whatever ended. A worker that crashes, fails, breaks the lane protocol or stops beating its
// heart is killed if needed and recorded, and its missing tasks go to a fresh worker (up to
// --retries times); the run goes on. Interrupted (Ctrl-C), every running worker is killed.
//
// A failure no fresh worker gets past is not retried: when a worker that reported nothing fails
// with the same cause (numbers aside: pids, task counts, seconds) as the side's worker before it,
// which also reported nothing, and no worker of that side has reported anything in this run (a
// --worker that is no worker, a Python set-up that raises, a baseline that exits 0 without a
// report), and its lane still holds what was written into it (no other process wrote there), the
// run stops there: nothing more is started, outcome.deterministic_failure names the
// cause, and a repeated cause is shown on the progress line once.

#include <array>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lane_host.hpp"
#include "run_state.hpp"
#include "sample_intake.hpp"
#include "setup_batches.hpp"

namespace isobench::orchestrator {

class WorkerPipelines {
 public:
  WorkerPipelines(RunState& state, LaneHost& lanes, SampleIntake& intake)
      : s_(state), lanes_(lanes), intake_(intake), batches_(state, lanes) {}

  // Runs the jobs, each on the pipeline of its GPU, until every one is done or abandoned, or the
  // run is interrupted (then outcome.interrupted is set). Measure jobs run in set-up batches
  // (options.setup_batch) when every one of them runs on one rank; calibration and describe
  // jobs, and measure jobs beside a multi-rank one, one worker at a time.
  //
  // `next_call`: the jobs the next call will most likely bring (the next look's of sequential
  // sampling, the measurement's after calibration). Once every job of this call has started,
  // pre-start reaches into them: up to the pre-start depth, their workers start and make their
  // contexts as pre-started workers do, under the same gate (never beside a timed phase), and
  // are never released here. The next call takes those whose jobs begin its own, in order, so its
  // first workers do not start from nothing where a look or the calibration ended; the others are
  // dropped (killed, never measured: a look that stopped an instance changes the next jobs).
  void run_jobs(std::deque<Job> jobs, std::deque<Job> next_call = {});
  // Drops every worker started for a next call that will not come (the run's last look stopped
  // every instance).
  void drop_next_call();
  // The set-up batches these jobs would take on their busiest GPU (0: they would not be batched:
  // the run's batch size is 1, a batch failed before, or a job is not a single-rank measurement).
  std::size_t set_up_batches(const std::deque<Job>& jobs);
  // Waits (up to --worker-timeout) for the last workers' teardown, so the run ends with no child
  // left behind.
  void wait_for_exits();

 private:
  struct RankFailure {
    std::string reason;
    ExitStatus status;  // how the failed rank ended (killed here when it hung)
  };

  bool step(Pipeline& pipe);
  void retire(std::unique_ptr<Worker> w, const std::string& reason, const ExitStatus* status);
  void note_failure(const Worker& w, const std::string& reason, const ExitStatus& status);
  bool repeats_cause(const Worker& w, const std::string& reason);
  bool lane_as_written(const Worker& w);  // its tasks and side as LaneHost wrote them
  std::optional<Job> retry_of(const Worker& w);
  std::string failure_reason(Worker& w, const ExitStatus& status);
  std::optional<RankFailure> peer_failure(Worker& w);
  void stop_peers(Worker& w, bool ok);
  void reap_exiting();
  bool any_exiting() const;

  std::size_t batch_size(const std::deque<Job>& jobs);
  void take_next_call(Pipeline& pipe);
  void drop(std::unique_ptr<Worker> w, const char* why);
  // Drops the pipeline's active workers `which` picks, in order.
  void drop_where(Pipeline& pipe, const std::function<bool(const Worker&)>& which, const char* why);
  bool start_for_next_call(Pipeline& pipe, std::size_t depth);

  RunState& s_;
  LaneHost& lanes_;
  SampleIntake& intake_;
  SetupBatches batches_;
  std::size_t batch_ = 1;  // workers to a set-up batch in the jobs running now; 1: no batches
  // Once a worker of a batch failed before it measured (its set-up, or while it waited set up),
  // batches are released one worker at a time for the rest of the run: workers that set up
  // together may not fit together (device memory, which a Python set-up's is not estimated).
  bool batches_shrunk_ = false;
  std::size_t next_batch_ = 1;  // the same for the next call's jobs
  bool multi_rank_noted_ = false;
  // Per side: the cause of its last worker that failed having reported nothing, and whether any
  // of its workers has reported something in this run.
  std::array<std::string, 2> fruitless_cause_;
  std::array<bool, 2> side_reported_{};
  // Per side: whether a worker of it has ended well; once every side's has, the runner's
  // on_sides_reported is called (sides_announced_).
  std::array<bool, 2> side_done_{};
  bool sides_announced_ = false;
  std::string last_shown_cause_;  // on the progress line
};

}  // namespace isobench::orchestrator
