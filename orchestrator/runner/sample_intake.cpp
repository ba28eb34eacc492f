#include "sample_intake.hpp"

#include <cmath>
#include <cstring>

#include "orchestrator/rank_groups.hpp"

namespace isobench::orchestrator {

void SampleIntake::drain(Worker& w) {
  while (w.next_task < w.job.tasks.size()) {
    const auto& t = w.job.tasks[w.next_task];
    if (t.kind != kMeasureTask) {
      if (!s_.setup_task_done(t)) break;
      ++w.next_task;
      continue;
    }
    auto& shared = s_.seg.slot(t.slot);
    if (ipc::load_acquire(shared.state) != static_cast<std::uint32_t>(ipc::SlotState::written)) break;
    // Validate and record one copy: the shared slot may change between two reads.
    ipc::SampleSlot slot;
    std::memcpy(&slot, &shared, sizeof slot);
    std::vector<double> rank_values;
    std::string problem = validate(slot, t, w.token, t.slot);
    if (problem.empty() && w.world > 1)
      problem = read_rank_values(*s_.rank_table, t.slot, w.world, slot.values.value_s, rank_values);
    if (!problem.empty()) {
      s_.log.write("sample-rejected",
                   "slot " + std::to_string(t.slot) + " of worker " + std::to_string(w.serial) + ": " + problem);
      w.rejected = "rejected sample: " + problem;
      ++w.next_task;
      continue;
    }
    record(slot, w.job.planned[w.next_task], w, std::move(rank_values));
    ++w.next_task;
  }
}

std::string SampleIntake::validate(const ipc::SampleSlot& slot, const ipc::Task& t, std::uint64_t token,
                                   std::uint32_t slot_index) const {
  if (slot.token != token) return "written by a process that is not this slot's worker";
  if (slot.seal != ipc::seal_of(slot, slot_index)) return "contents changed after the worker sealed them";
  if (slot.instance != t.instance) return "instance index does not match the task";
  const ipc::SampleValues& v = slot.values;
  if (!std::isfinite(v.value_s) || v.value_s <= 0) return "value is not a finite positive time";
  if (v.inner != s_.plan.instances.at(t.instance).inner) return "inner count differs from the pinned one";
  if (!std::isfinite(v.host_enqueue_s) || v.host_enqueue_s < 0) return "host enqueue time is not a finite time";
  if (!std::isfinite(v.kernel_gpu_s) || v.kernel_gpu_s < 0) return "kernel GPU time is not a finite time";
  return {};
}

// One sample into the journal, with where it was taken: the worker's GPU index, and the UUID and
// name of the device the worker says it opened.
void SampleIntake::record(const ipc::SampleSlot& slot, const PlannedSample& ps, const Worker& w,
                          std::vector<double> rank_values) {
  SampleRecord r;
  r.instance = s_.plan.instances.at(ps.instance).worker.id;
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
  r.gpu = s_.pipes[w.pipe].gpu;
  const ipc::Lane& lane = s_.seg.lane(w.lane);
  r.gpu_uuid = printable_text(lane.device_uuid, sizeof lane.device_uuid);
  r.gpu_name = printable_text(lane.device_name, sizeof lane.device_name);
  s_.journal.append(r);
  s_.values.at(ps.instance)[ps.side & 1][ps.sample] = r.values.value_s;
  s_.done_slots.insert(ps.slot);
  ++s_.outcome.samples_recorded;
}

}  // namespace isobench::orchestrator
