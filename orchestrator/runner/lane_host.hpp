#pragma once
// The orchestrator's side of the lane protocol (ipc/lane_protocol.hpp): it hands a job's tasks to a
// fresh worker process on a free lane, grants the context permit, the release and the measure
// permit as the context gate allows, and reads each lane's state, refusing a lane that moves in a
// way the protocol does not allow.

#include <cstdint>
#include <memory>

#include "run_state.hpp"

namespace isobench::orchestrator {

class LaneHost {
 public:
  explicit LaneHost(RunState& state) : s_(state) {}

  // Starts a worker for the job. `ahead`: another worker is in the pipeline (pre-start). A held
  // worker sets up only once released; with the context gate every worker is held and also
  // waits for its context permit and its measure permit, so that no context is created or torn
  // down beside a measurement. A multi-rank job starts its rank 0, then its other ranks, only at
  // the head of an empty pipeline (docs/multi-rank.md); the other ranks are neither held nor
  // gated: they meet rank 0 at the group's barriers, so rank 0's permits gate the whole group.
  // `batched`: a worker of a set-up batch (setup_batches.hpp), held, and admitted by the batch's
  // rules rather than admit()'s.
  std::unique_ptr<Worker> start(Job job, bool ahead, bool batched = false);

  // The context gate, for the pipeline's head (the next worker in plan order to measure) and the
  // worker behind it; true when something changed (see lane_host.cpp).
  bool admit(Worker& head, Worker* next);

  // What the orchestrator grants a lane, one flag each (admit() and SetupBatches decide when).
  bool permit_context(Worker& w);
  void release(Worker& w);
  void permit_measure(Worker& w);
  void permit_exit(ExitingWorker& e);
  // Permitted, and its device context not made yet.
  bool creating_context(Worker& w);

  // The lane's state now. A state the last look's cannot reach marks the worker broken.
  ipc::LaneState state(Worker& w);
  // Every task journaled (by SampleIntake) and the lane done.
  bool finished(Worker& w) { return w.next_task >= w.job.tasks.size() && state(w) == ipc::LaneState::done; }
  // Seconds since the worker's last heartbeat (since its start, before the first).
  double silent_seconds(const Worker& w) const;

 private:
  std::unique_ptr<Worker> start_rank(Job job, bool ahead, bool batched, std::uint32_t rank, std::uint32_t world,
                                     std::uint32_t group, std::size_t pipe);
  bool fits_beside_exiting(const Worker& w) const;

  RunState& s_;
};

}  // namespace isobench::orchestrator
