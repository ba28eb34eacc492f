#pragma once
// The readers of other tools' JSON. Each takes the file's parsed JSON and returns the run it
// holds, or throws UsageError naming the file and the field that is wrong.
//
// Google Benchmark (--benchmark_out_format=json): with --benchmark_repetitions=N each
// repetition's "iteration" entry is a sample (real_time per iteration, in its time_unit); a file
// with aggregates only (--benchmark_report_aggregates_only) gives its median, flagged summary.
// nvbench (--json, file version 1): each state's cold GPU sample times from the --jsonbin file
// (little-endian float32 seconds, "nv/json/bin:nv/cold/sample_times"); without it the state's
// "nv/cold/time/gpu/mean", flagged summary.
// pytest-benchmark (--benchmark-json): each round's time from stats.data, which only
// --benchmark-save-data writes; without it stats.median, flagged summary.

#include <string>

#include <nlohmann/json.hpp>

#include "orchestrator/import/imported_run.hpp"

namespace isobench::orchestrator::import {

ImportedRun read_google_benchmark(const std::string& file, const nlohmann::json& root);
// `file`'s folder is where relative --jsonbin file names are looked for first.
ImportedRun read_nvbench(const std::string& file, const nlohmann::json& root);
ImportedRun read_pytest_benchmark(const std::string& file, const nlohmann::json& root);

// Which tool wrote `root`: "google-benchmark", "nvbench", "pytest-benchmark", or empty.
std::string detect_tool(const nlohmann::json& root);

}  // namespace isobench::orchestrator::import
