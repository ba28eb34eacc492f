#pragma once
// Sequential sampling of an A/B run (ab --until-verdict): the design a run was planned with, kept in
// plan.json, and its replay over an instance's samples. The runner replays it after each look to
// stop the instances that reached SLOWER, FASTER or SAME; compare replays it over the journal to
// give the same verdicts: one decision procedure, so the two can never disagree.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "stats/sequential_design.hpp"

namespace isobench::orchestrator {

struct SequentialPlan {
  std::vector<std::size_t> looks;  // samples per side at each look, ascending
  double alpha = 0.001;
  double threshold = 0.02;
  double confidence = 0.95;
  std::size_t instances = 1;  // m: the design spends alpha / m per instance
  stats::SpendingFunction spending = stats::SpendingFunction::pocock;

  stats::SequentialDesign design() const;
  nlohmann::json to_json() const;
  static SequentialPlan from_json(const nlohmann::json& j);  // throws std::runtime_error naming the field
};

// The default looks up to max_samples: 8, 12, 16, 24, 32, 48, 64, ... (each about 1.5 times the
// last), ending at max_samples itself.
std::vector<std::size_t> default_looks(std::size_t max_samples);

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
