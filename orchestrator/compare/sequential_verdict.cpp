#include "orchestrator/compare/sequential_verdict.hpp"

#include <algorithm>

namespace isobench::orchestrator {

namespace {

// The first n values in sample-index order, when the samples hold indices 0..n-1.
std::optional<std::vector<double>> first_n(const SamplesByIndex& samples, std::size_t n) {
  std::vector<double> values;
  for (const auto& [index, value] : samples) {
    if (index >= n) break;
    values.push_back(value);
  }
  if (values.size() < n) return std::nullopt;
  return values;
}

}  // namespace

std::optional<SequentialOutcome> replay_looks(const stats::SequentialDesign& design, std::size_t last_look,
                                              const SamplesByIndex& baseline, const SamplesByIndex& candidate,
                                              double threshold) {
  std::optional<SequentialOutcome> outcome;
  for (std::size_t k = 0; k <= last_look && k < design.looks.size(); ++k) {
    const std::size_t n = design.looks[k].n;
    const auto a = first_n(baseline, n), b = first_n(candidate, n);
    if (!a || !b) break;
    outcome = SequentialOutcome{k, n, stats::decide_at_look(design, k, *a, *b, threshold)};
    if (outcome->decision.stop) break;
  }
  return outcome;
}

}  // namespace isobench::orchestrator
