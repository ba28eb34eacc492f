#pragma once
// The design of a sequential A/B run (ab --until-verdict), as planned and kept in plan.json: its
// looks, the error it spends over them and the floor its verdicts are judged by. A plan records
// it; the runner and compare replay it (orchestrator/compare/sequential_verdict.hpp).

#include <cstdint>
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
  // Looks that stop SLOWER or FASTER only (stats::early_separation_look); plan.json's
  // "separation_looks", none in a plan from before them.
  std::vector<std::size_t> separation;
  // Looks after the ordinary ones for an instance whose interval lies beyond the floor and whose p
  // is short of its level (stats::SequentialExtension); plan.json's "extension", null where none
  // (and in a plan from before it).
  stats::SequentialExtension extension;
  // The futility level (stats::SequentialDesign::futility; 0: none); plan.json's "futility", 0 in a
  // plan from before it.
  double futility = 0;

  stats::SequentialDesign design() const;
  // Whether some look of the design can stop SLOWER or FASTER (spends any alpha).
  bool can_reject() const;
  nlohmann::json to_json() const;
  static SequentialPlan from_json(const nlohmann::json& j);  // throws std::runtime_error naming the field
};

// The default looks up to max_samples: 8, 12, 16, 24, 36, 54, 81, ... (from 16 on, each 1.5 times the
// last), ending at max_samples itself.
std::vector<std::size_t> default_looks(std::size_t max_samples);

// ab's cap for an instance whose interval lies beyond the floor at the last ordinary look with its
// p short (--extend-to), and the share of alpha the looks up to it spend.
inline constexpr std::size_t kDefaultExtendTo = 60;
inline constexpr double kExtensionShare = 0.25;
// ab's futility level (--futility; stats::futile_at_look): an instance whose estimate lies inside the
// floor stops UNCERTAIN where its chances of SAME and of an interval beyond the floor at the last
// ordinary look are both below it (bench/verdict_simulation section 6: 0.01 and 0.05 stop alike).
inline constexpr double kDefaultFutility = 0.01;
// The highest futility level ab takes (above it an instance likelier to settle than not could stop).
inline constexpr double kMaxFutility = 0.5;

// Gives `plan` (its alpha, instances, spending and confidence set) the default looks up to
// max_samples, with the separation look stats::early_separation_look finds for its design where
// there is one (9 per side over 4 instances at alpha 0.001: 8, 9, 12, 16, 20); with extend_to above
// max_samples, the extension's looks after it (each 1.5 times the last, ending at extend_to: 30,
// 45, 60 after 20), spending kExtensionShare of alpha.
void use_default_looks(SequentialPlan& plan, std::size_t max_samples, std::size_t extend_to = 0);
// Appends to `plan`'s looks the extension's up to extend_to (none where extend_to is not above
// the last look).
void extend_looks(SequentialPlan& plan, std::size_t extend_to);

}  // namespace isobench::orchestrator
