#include "setup_batches.hpp"

#include <vector>

namespace isobench::orchestrator {

namespace {

// Released and not yet set up: allocating, filling inputs, warming up, or about to.
bool setting_up(LaneHost& lanes, Worker& w) {
  return w.released &&
         static_cast<std::uint32_t>(lanes.state(w)) < static_cast<std::uint32_t>(ipc::LaneState::prepared);
}

}  // namespace

bool SetupBatches::admit(Pipeline& pipe, std::size_t size) {
  auto& active = pipe.active;
  bool changed = false;
  std::vector<Worker*> up;  // setting up now
  for (auto& w : active)
    if (setting_up(lanes_, *w)) up.push_back(w.get());
  const bool any_setting_up = !up.empty();
  if (up.size() > 1)
    for (Worker* w : up) w->beside_batch_mates = true;
  // A measurement goes on or is due: the next worker in plan order (the front) is released and
  // nobody is setting up. Otherwise nothing is measured until a set-up ends or a batch is
  // released: held exits go, and the next batch makes its contexts.
  const bool due = !active.empty() && active.front()->released && !any_setting_up;
  if (!due) {
    changed |= release_exits(pipe);
    // The contexts of the batch released next: this call's workers only (release_batch stops
    // where the next call's begin, so theirs would only crowd this batch's set-up).
    std::size_t next = 0;
    for (auto& w : active) {
      if (w->released) continue;
      if (w->for_next_call || next++ == size) break;
      if (w->permitted) continue;
      changed |= lanes_.permit_context(*w);
      // Made beside the batch's other contexts (and the set-ups of the one before): a context
      // that fails may have failed for want of what they hold.
      w->beside_batch_mates = size > 1;
    }
    changed |= permit_next_call_context(pipe);
    // After a failure in a batch (size 1 from then on) a worker sets up alone: not beside the
    // set-ups of the failed worker's batch-mates either, whose memory may be what it lacked.
    if (!active.empty() && !active.front()->released && (size > 1 || !any_setting_up))
      changed |= release_batch(pipe, size);
    return changed;
  }
  Worker& front = *active.front();
  if (front.measure_permitted || lanes_.state(front) != ipc::LaneState::prepared) return changed;
  if (s_.options.context_gate) {
    for (auto& w : active)
      if (lanes_.creating_context(*w)) return changed;
    for (const auto& e : pipe.exiting)
      if (!e.exit_held) return changed;
  }
  lanes_.permit_measure(front);
  return true;
}

// The batch is the unreleased workers at the front of the pipeline, up to `size` and as many as
// the memory budget holds together (at least one). It is released once every one of them has
// its context, and once what the pipeline's other workers still hold (exiting ones, and prepared
// batch-mates of a replaced worker) leaves room for it.
bool SetupBatches::release_batch(Pipeline& pipe, std::size_t size) {
  const std::uint64_t budget = s_.options.memory_budget_bytes;
  std::vector<Worker*> batch;
  std::uint64_t bytes = 0;
  for (auto& w : pipe.active) {
    if (w->released || w->for_next_call || batch.size() == size) break;  // it waits for its call
    const std::uint64_t mine = s_.device_bytes_of(w->job);
    if (budget != 0 && !batch.empty() && bytes + mine > budget) break;
    batch.push_back(w.get());
    bytes += mine;
  }
  for (Worker* w : batch)
    if (!w->permitted || lanes_.state(*w) != ipc::LaneState::waiting) return false;
  const std::uint64_t held = bytes_held(pipe);
  if (budget != 0 && held != 0 && held + bytes > budget) return false;
  const std::uint64_t id = s_.next_batch++;
  for (Worker* w : batch) {
    w->batch = id;
    w->beside_batch_mates |= batch.size() > 1;  // or its context was made beside a batch's
    lanes_.release(*w);
  }
  return !batch.empty();
}

// Workers started for the next call make their contexts one at a time, and only while this
// call's last batch sets up: every worker of this call has been released (no batch of it needs a
// context any more), and the batch's first measurement, once it is set up, waits for the one
// context in flight at most. Made all at once, or beside an earlier batch, they held a prepared
// batch back for as long as the driver took to make them one after another.
bool SetupBatches::permit_next_call_context(Pipeline& pipe) {
  bool setting_up_last = false;
  for (auto& w : pipe.active) {
    if (w->for_next_call) break;
    if (!w->released) return false;
    setting_up_last |= setting_up(lanes_, *w);
  }
  if (!setting_up_last) return false;
  for (auto& w : pipe.active)
    if (lanes_.creating_context(*w)) return false;
  for (auto& w : pipe.active)
    if (w->for_next_call && !w->permitted) return lanes_.permit_context(*w);
  return false;
}

bool SetupBatches::release_exits(Pipeline& pipe) {
  bool changed = false;
  for (auto& e : pipe.exiting)
    if (e.exit_held) {
      lanes_.permit_exit(e);
      changed = true;
    }
  return changed;
}

std::uint64_t SetupBatches::bytes_held(const Pipeline& pipe) const {
  std::uint64_t bytes = 0;
  for (const auto& e : pipe.exiting) bytes += e.device_bytes;
  for (const auto& w : pipe.active)
    if (w->released) bytes += s_.device_bytes_of(w->job);
  return bytes;
}

}  // namespace isobench::orchestrator
