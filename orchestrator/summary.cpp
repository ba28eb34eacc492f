#include "summary.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "kernels/catalog.hpp"
#include "kernels/plugin_loader.hpp"
#include "stats/descriptive.hpp"

namespace isobench::orchestrator {


// The spec behind an instance's throughput columns: a built-in kernel's, or its plugin's (none
// when the library cannot be loaded any more, or for commands).
static const kernels::KernelSpec* throughput_spec(const ipc::WorkerInstance& w) {
  if (w.plugin.empty()) return kernels::find_kernel(w.kernel);
  try {
    return kernels::load_plugin(w.plugin).find(w.kernel);
  } catch (const kernels::PluginError&) {
    return nullptr;
  }
}

std::vector<InstanceSummary> summarize(const Plan& plan, const std::vector<SampleRecord>& samples) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<const SampleRecord*>> by;
  for (const auto& s : samples) by[{s.side, s.instance_index}].push_back(&s);
  std::vector<InstanceSummary> rows;
  for (const auto& [key, recs] : by) {
    const auto& p = plan.instances.at(key.second);
    std::vector<double> values;
    InstanceSummary row;
    for (const auto* r : recs) {
      values.push_back(r->values.value_s);
      if (r->values.flags & ipc::flag_low_sm_clock) ++row.low_clock_samples;
    }
    const auto d = stats::describe(values);
    row.id = p.worker.id;
    row.side = key.first;
    row.inner = p.inner;
    row.n = d.n;
    row.median = d.median;
    row.q1 = d.q1;
    row.q3 = d.q3;
    row.iqr = d.iqr;
    row.cv = d.cv;
    row.min = d.min;
    row.max = d.max;
    row.mean = d.mean;
    row.outliers = d.outlier_count;
    row.modes = stats::bimodality(values);
    row.gpu = recs.front()->gpu;  // an instance runs on one GPU (plan.json)
    row.gpu_name = recs.front()->gpu_name;
    if (const auto* spec = throughput_spec(p.worker)) {
      if (spec->bytes_per_launch && d.median > 0)
        row.gb_per_s = static_cast<double>(spec->bytes_per_launch(p.worker.params)) / d.median / 1e9;
      if (spec->flops_per_launch && d.median > 0)
        row.tflop_per_s = static_cast<double>(spec->flops_per_launch(p.worker.params)) / d.median / 1e12;
    }
    rows.push_back(row);
  }
  return rows;
}

nlohmann::json summary_to_json(const std::vector<InstanceSummary>& rows) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& r : rows)
    arr.push_back({{"id", r.id},       {"side", r.side},       {"inner", r.inner},   {"n", r.n},
                   {"median", r.median}, {"q1", r.q1},         {"q3", r.q3},         {"iqr", r.iqr},
                   {"cv", r.cv},       {"min", r.min},         {"max", r.max},       {"mean", r.mean},
                   {"outliers", r.outliers}, {"low_clock_samples", r.low_clock_samples},
                   {"gb_per_s", r.gb_per_s}, {"tflop_per_s", r.tflop_per_s}, {"unit", "s"}});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].gpu >= 0) arr[i]["gpu"] = rows[i].gpu;
    if (!rows[i].gpu_name.empty()) arr[i]["gpu_name"] = rows[i].gpu_name;
    const auto& m = rows[i].modes;
    arr[i]["bimodal"] = m.bimodal;
    if (m.bimodal)
      arr[i]["modes"] = {{"lower", {{"n", m.lower}, {"median", m.lower_median}}},
                         {"upper", {{"n", m.upper}, {"median", m.upper_median}}}};
  }
  return {{"schema_version", 1}, {"instances", arr}};
}

bool spans_gpus(const std::vector<InstanceSummary>& rows) {
  return std::any_of(rows.begin(), rows.end(), [&](const InstanceSummary& r) { return r.gpu != rows.front().gpu; });
}

}  // namespace isobench::orchestrator
