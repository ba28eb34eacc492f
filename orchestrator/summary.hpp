#pragma once
// Per-instance statistics of a run: summary.json holds them, and every printer
// (orchestrator/printers/) renders the same numbers.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan.hpp"
#include "stats/bimodality.hpp"
#include "sample_journal.hpp"

namespace isobench::orchestrator {

struct InstanceSummary {
  std::string id;
  std::uint32_t side = 0;
  std::uint32_t inner = 0;
  std::size_t n = 0;
  double median = 0, q1 = 0, q3 = 0, iqr = 0, cv = 0, min = 0, max = 0, mean = 0;
  std::size_t outliers = 0;
  std::size_t low_clock_samples = 0;
  double gb_per_s = 0;      // bytes moved per launch / median, when the kernel states its bytes
  double tflop_per_s = 0;   // likewise for FLOPs
  int gpu = -1;             // the device index its samples were taken on (-1: not recorded)
  std::string gpu_name;     // the GPU's name, for CUDA instances
  // Two clusters of samples (stats/bimodality.hpp): the median then describes neither, and every
  // printer says so rather than average over them.
  stats::Bimodality modes;
};

// Whether the rows were taken on more than one GPU (then the table shows which).
bool spans_gpus(const std::vector<InstanceSummary>& rows);

std::vector<InstanceSummary> summarize(const Plan& plan, const std::vector<SampleRecord>& samples);

// summary.json's form, which the JSON printer prints too.
nlohmann::json summary_to_json(const std::vector<InstanceSummary>& rows);

}  // namespace isobench::orchestrator
