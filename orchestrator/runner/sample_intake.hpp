#pragma once
// Samples from the segment into the journal: each slot a worker sealed is copied once, validated
// (its writer, its seal, its instance, finite times, the pinned inner count and, for a multi-rank
// sample, the slowest-rank rule) and journaled with where it was taken, in plan order. A sample
// that fails validation is rejected and its slot measured again by a fresh worker.

#include <string>
#include <vector>

#include "run_state.hpp"

namespace isobench::orchestrator {

class SampleIntake {
 public:
  explicit SampleIntake(RunState& state) : s_(state) {}

  // Journals the samples the worker has written, in plan order; stops at the first missing one.
  void drain(Worker& w);

 private:
  std::string validate(const ipc::SampleSlot& slot, const ipc::Task& t, std::uint64_t token,
                       std::uint32_t slot_index) const;
  void record(const ipc::SampleSlot& slot, const PlannedSample& ps, const Worker& w, std::vector<double> rank_values);

  RunState& s_;
};

}  // namespace isobench::orchestrator
