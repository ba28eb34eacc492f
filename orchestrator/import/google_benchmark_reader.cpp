#include <map>

#include "orchestrator/import/tool_readers.hpp"

namespace isobench::orchestrator::import {

using nlohmann::json;

namespace {

double unit_scale(const Fields& f, const json& b, const std::string& path) {
  const std::string unit = f.text(b, "time_unit", path + ".time_unit");
  if (unit == "ns") return 1e-9;
  if (unit == "us") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1;
  f.fail(path + ".time_unit", "not ns, us, ms or s: \"" + unit + "\"");
}

}  // namespace

ImportedRun read_google_benchmark(const std::string& file, const json& root) {
  const Fields f(file);
  ImportedRun run;
  run.tool = "google-benchmark";
  run.file = file;
  const json& context = f.object(root, "context", "context");
  run.started = utc_iso(f.text(context, "date", "context.date"));
  if (run.started.empty()) f.fail("context.date", "not an ISO 8601 time: " + context["date"].dump());
  run.environment = {{"host", {{"hostname", context.value("host_name", "")}}},
                     {"cpu", {{"logical_cores", context.value("num_cpus", 0)}, {"mhz", context.value("mhz_per_cpu", 0)}}},
                     {"google_benchmark_context", context}};
  struct Found {
    ImportedInstance instance;
    double median = 0, mean = 0;  // aggregates, for files that hold nothing else
  };
  std::vector<Found> found;
  std::map<std::string, std::size_t> by_name;
  const json& benchmarks = f.array(root, "benchmarks", "benchmarks");
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const std::string path = "benchmarks[" + std::to_string(i) + "]";
    const json& b = benchmarks[i];
    const std::string name = f.text(b, "name", path + ".name");
    if (b.value("error_occurred", false)) {
      run.notes.push_back(name + ": left out: Google Benchmark reports an error: " + b.value("error_message", std::string()));
      continue;
    }
    const std::string run_name = b.contains("run_name") ? f.text(b, "run_name", path + ".run_name") : name;
    const std::string run_type = b.contains("run_type") ? f.text(b, "run_type", path + ".run_type") : "iteration";
    auto [it, fresh] = by_name.emplace(run_name, found.size());
    if (fresh) {
      Found n;
      const auto slash = run_name.find('/');
      n.instance.id = run_name;
      n.instance.name = run_name.substr(0, slash);
      if (slash != std::string::npos) n.instance.params = {{"arguments", run_name.substr(slash + 1)}};
      found.push_back(n);
    }
    Found& into = found[it->second];
    if (run_type == "iteration") {
      into.instance.values.push_back(f.seconds(b, "real_time", path + ".real_time", unit_scale(f, b, path)));
      into.instance.iterations = static_cast<std::uint64_t>(f.number(b, "iterations", path + ".iterations"));
    } else if (run_type == "aggregate") {
      const std::string aggregate = f.text(b, "aggregate_name", path + ".aggregate_name");
      if (b.value("aggregate_unit", std::string("time")) != "time") continue;  // cv is a fraction
      if (aggregate == "median") into.median = f.seconds(b, "real_time", path + ".real_time", unit_scale(f, b, path));
      if (aggregate == "mean") into.mean = f.seconds(b, "real_time", path + ".real_time", unit_scale(f, b, path));
    } else {
      f.fail(path + ".run_type", "neither \"iteration\" nor \"aggregate\": \"" + run_type + "\"");
    }
  }
  for (auto& n : found) {
    ImportedInstance& inst = n.instance;
    if (!inst.values.empty()) {
      inst.statistic = "real time per iteration, one value per repetition";
    } else if (n.median > 0 || n.mean > 0) {
      inst.values = {n.median > 0 ? n.median : n.mean};
      inst.summary_only = true;
      inst.statistic = n.median > 0 ? "median of repetitions (aggregate only)" : "mean of repetitions (aggregate only)";
    } else {
      continue;  // only aggregates that are not times
    }
    run.instances.push_back(std::move(inst));
  }
  if (run.instances.empty()) f.fail("benchmarks", "no benchmark with a time");
  return run;
}

}  // namespace isobench::orchestrator::import
