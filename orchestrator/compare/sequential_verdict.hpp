#pragma once
// Sequential sampling of an A/B run (ab --until-verdict): the design a run was planned with
// (orchestrator/sequential_plan.hpp, kept in plan.json) replayed over an instance's samples. The
// runner replays it after each look to stop the instances that reached SLOWER, FASTER or SAME;
// compare replays it over the journal to give the same verdicts: one decision procedure, so the
// two can never disagree.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/sequential_plan.hpp"
#include "stats/sequential_design.hpp"

namespace isobench::orchestrator {

// An instance's samples by their sample index (the plan's order, whatever order they arrived in).
using SamplesByIndex = std::map<std::uint32_t, double>;

struct SequentialOutcome {
  std::size_t look = 0;  // the look that decided (or the last one reached)
  std::size_t n = 0;     // samples per side it used
  stats::LookDecision decision;
};

// The looks from the first up to `last_look` (inclusive) over the samples with index below each
// look's n; stops at the first look that decides. nullopt when the samples do not reach even the
// first look's n on both sides. A look whose n the samples do not reach ends the replay there
// (the outcome is the last look reached, undecided).
std::optional<SequentialOutcome> replay_looks(const stats::SequentialDesign& design, std::size_t last_look,
                                              const SamplesByIndex& baseline, const SamplesByIndex& candidate,
                                              double threshold);

}  // namespace isobench::orchestrator
