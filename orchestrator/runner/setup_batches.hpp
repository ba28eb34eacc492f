#pragma once
// Set-up batches (--setup-batch K): up to K measuring workers of a pipeline are released into
// their set-up at once, while none of the pipeline measures, and then measured one after another
// in plan order, so that a batch shares one set-up's wall time where one worker at a time waits
// for each worker's own (docs/measurement.md). The rules keep each timed phase as alone as
// without batches:
//
//   - no worker is released (allocates, fills inputs, warms up) while another of the pipeline
//     measures or is due to: a batch is released only once the one before it has measured, and
//     its first worker measures only once all of it has set up;
//   - with the context gate, no context is created and no worker tears down beside a
//     measurement: a worker that has measured holds its exit (buffers and context kept) while a
//     batch-mate is due to measure, and the next workers' contexts are created while a batch
//     sets up, as one worker's are today.
//
// The pre-start depth counts batches: prestart x K workers wait behind the batch, so the next
// batch's contexts are made while this one sets up. Workers started for the next call (the next
// look's first batch) make theirs one at a time while this call's last batch sets up. A worker
// of a batch that fails is replaced in its place in the order; its replacement is set up on its
// own, while its prepared batch-mates wait, and measured in its turn; after such a failure before
// measuring, the rest of the run is released one worker at a time (WorkerPipelines).

#include <cstddef>

#include "lane_host.hpp"
#include "run_state.hpp"

namespace isobench::orchestrator {

class SetupBatches {
 public:
  SetupBatches(RunState& state, LaneHost& lanes) : s_(state), lanes_(lanes) {}

  // One look at a pipeline whose workers are batched, `size` to a batch: grants context
  // permits, releases the next batch, grants the next measure permit and lets held exits go, as
  // the rules allow; true when something changed.
  bool admit(Pipeline& pipe, std::size_t size);
  // Lets every worker of the pipeline that holds its exit go (nothing more is measured now).
  bool release_exits(Pipeline& pipe);

 private:
  bool release_batch(Pipeline& pipe, std::size_t size);
  bool permit_next_call_context(Pipeline& pipe);
  std::uint64_t bytes_held(const Pipeline& pipe) const;

  RunState& s_;
  LaneHost& lanes_;
};

}  // namespace isobench::orchestrator
