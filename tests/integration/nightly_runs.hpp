#pragma once
// Synthetic nightly runs for the history and report suites: run directories as orchestrate writes
// them (docs/run-format.md), with made-up samples, two instances: step[n=1] 3% slower from night
// 16 (run 17) on, flat[n=1] unchanged.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness.hpp"

namespace isobench::testing {

// A run directory as orchestrate writes one (docs/run-format.md), with made-up samples: 8 per
// instance around `level` seconds, 0.5% run-to-run and 0.5% sample noise.
inline void write_run(const Scratch& s, const std::string& name, int night, std::mt19937_64& engine) {
  std::normal_distribution<double> z(0, 0.005);
  const std::filesystem::path dir = s.dir / name;
  std::filesystem::create_directories(dir);
  char started[64];
  std::snprintf(started, sizeof started, "2026-11-%02dT02:00:00.000Z", night + 1);
  std::ofstream(dir / "run.json") << nlohmann::json{{"schema_version", 1}, {"status", "complete"}, {"started", started}}.dump();
  std::ofstream(dir / "environment.json")
      << nlohmann::json{{"schema_version", 1}, {"host", {{"hostname", "nightly-1"}}}, {"cpu", {{"model", "Test CPU"}}}}.dump();
  const std::vector<std::string> ids{"step[n=1]", "flat[n=1]"};
  nlohmann::json instances = nlohmann::json::array();
  for (std::size_t i = 0; i < ids.size(); ++i)
    instances.push_back({{"index", i}, {"id", ids[i]}, {"kernel", ids[i].substr(0, 4)}, {"params", {{"n", 1}}}});
  std::ofstream(dir / "plan.json") << nlohmann::json{{"schema_version", 1}, {"instances", instances}, {"schedule", {{"sides", 1}}}}.dump();
  std::ofstream samples(dir / "samples.jsonl");
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const double level = 1e-3 * (i == 0 && night >= 16 ? 1.03 : 1.0) * (1 + z(engine));
    for (int k = 0; k < 8; ++k)
      samples << nlohmann::json{{"type", "sample"}, {"instance", ids[i]}, {"value", level * (1 + z(engine))}, {"side", 0}}.dump()
              << "\n";
  }
}

}  // namespace isobench::testing
