#pragma once
// Another tool's results as a run directory (docs/history.md, "Importing"): what the readers of
// Google Benchmark, nvbench and pytest-benchmark JSON produce, and the writer that turns it into
// plan.json, samples.jsonl, run.json and environment.json, so compare, history and report read
// it like any run.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace isobench::orchestrator::import {

struct ImportedInstance {
  std::string id;         // the instance id runs join on: the tool's own name for the benchmark
  std::string name;       // the benchmark (plan.json "kernel")
  nlohmann::json params = nlohmann::json::object();  // its parameters, where the tool names them
  // Seconds per iteration (per launch): one value per repetition or round where the file holds
  // them; otherwise one summary statistic (summary_only).
  std::vector<double> values;
  bool summary_only = false;
  std::string statistic;       // what one value is, e.g. "mean of a repetition's iterations"
  std::uint64_t iterations = 0;  // iterations behind each value (0: unknown)
};

struct ImportedRun {
  std::string tool;     // "google-benchmark", "nvbench", "pytest-benchmark"
  std::string file;     // the file it came from
  std::string started;  // UTC, ISO 8601 (run.json)
  // host, cpu and gpu (gpus: names) as environment.json spells them, where the tool says.
  nlohmann::json environment = nlohmann::json::object();
  std::vector<ImportedInstance> instances;
  std::vector<std::string> notes;  // what was left out and why (benchmarks the tool skipped)
};

// Writes the run directory `out` (which must not exist or be empty). Throws UsageError naming
// `out` when it cannot be created, before anything is written.
void write_imported_run(const ImportedRun& run, const std::string& out, const std::vector<std::string>& command_line);

// Reading JSON with every problem named "FILE: path.to.field: what is wrong".
class Fields {
 public:
  explicit Fields(std::string file) : file_(std::move(file)) {}
  [[noreturn]] void fail(const std::string& path, const std::string& problem) const;
  const nlohmann::json& object(const nlohmann::json& parent, const std::string& key, const std::string& path) const;
  const nlohmann::json& array(const nlohmann::json& parent, const std::string& key, const std::string& path) const;
  std::string text(const nlohmann::json& parent, const std::string& key, const std::string& path) const;
  double number(const nlohmann::json& parent, const std::string& key, const std::string& path) const;
  // A time: finite and > 0.
  double seconds(const nlohmann::json& parent, const std::string& key, const std::string& path, double scale) const;

 private:
  const nlohmann::json& member(const nlohmann::json& parent, const std::string& key, const std::string& path) const;
  std::string file_;
};

// "2026-12-01T09:19:55+00:00" (Google Benchmark, pytest-benchmark: any ISO 8601 with an offset
// or none, read as UTC) -> "2026-12-01T09:19:55.000Z". Empty when it is not such a time.
std::string utc_iso(const std::string& text);

}  // namespace isobench::orchestrator::import
