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

  stats::SequentialDesign design() const;
  nlohmann::json to_json() const;
  static SequentialPlan from_json(const nlohmann::json& j);  // throws std::runtime_error naming the field
};

// The default looks up to max_samples: 8, 12, 16, 24, 32, 48, 64, ... (each about 1.5 times the
// last), ending at max_samples itself.
std::vector<std::size_t> default_looks(std::size_t max_samples);

}  // namespace isobench::orchestrator
