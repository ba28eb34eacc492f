#include <cmath>

#include "orchestrator/import/tool_readers.hpp"

namespace isobench::orchestrator::import {

using nlohmann::json;

ImportedRun read_pytest_benchmark(const std::string& file, const json& root) {
  const Fields f(file);
  ImportedRun run;
  run.tool = "pytest-benchmark";
  run.file = file;
  run.started = utc_iso(f.text(root, "datetime", "datetime"));
  if (run.started.empty()) f.fail("datetime", "not an ISO 8601 time: " + root["datetime"].dump());
  if (root.contains("machine_info")) {
    const json& machine = f.object(root, "machine_info", "machine_info");
    std::string cpu;
    if (machine.contains("cpu") && machine["cpu"].is_object()) cpu = machine["cpu"].value("brand_raw", std::string());
    run.environment = {{"host", {{"hostname", machine.value("node", std::string())}}},
                       {"cpu", {{"model", cpu}}},
                       {"pytest_benchmark_machine_info", machine}};
  }
  if (root.contains("commit_info")) run.environment["commit_info"] = root["commit_info"];
  const json& benchmarks = f.array(root, "benchmarks", "benchmarks");
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const std::string path = "benchmarks[" + std::to_string(i) + "]";
    const json& b = benchmarks[i];
    ImportedInstance inst;
    const std::string name = f.text(b, "name", path + ".name");
    // fullname ("tests/test_ops.py::test_add[1024]") is unique across test files; name is not.
    inst.id = b.contains("fullname") ? f.text(b, "fullname", path + ".fullname") : name;
    inst.name = name.substr(0, name.find('['));
    if (b.contains("params") && b["params"].is_object()) inst.params = b["params"];
    const json& stats = f.object(b, "stats", path + ".stats");
    if (stats.contains("iterations")) inst.iterations = static_cast<std::uint64_t>(f.number(stats, "iterations", path + ".stats.iterations"));
    if (stats.contains("data")) {
      const json& data = f.array(stats, "data", path + ".stats.data");
      for (std::size_t k = 0; k < data.size(); ++k) {
        const std::string at = path + ".stats.data[" + std::to_string(k) + "]";
        if (!data[k].is_number() || !(data[k].get<double>() > 0) || !std::isfinite(data[k].get<double>()))
          f.fail(at, "not a positive time: " + data[k].dump());
        inst.values.push_back(data[k].get<double>());
      }
      if (inst.values.empty()) f.fail(path + ".stats.data", "empty");
      inst.statistic = "time per iteration, one value per round";
    } else {
      inst.values = {f.seconds(stats, "median", path + ".stats.median", 1)};
      inst.summary_only = true;
      inst.statistic = "median of rounds (summary only: run with --benchmark-save-data for every round)";
    }
    run.instances.push_back(std::move(inst));
  }
  if (run.instances.empty()) f.fail("benchmarks", "empty");
  return run;
}

}  // namespace isobench::orchestrator::import
