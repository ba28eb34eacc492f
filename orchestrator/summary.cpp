#include "summary.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "kernels/catalog.hpp"
#include "kernels/plugin_loader.hpp"
#include "stats/descriptive.hpp"

namespace isobench::orchestrator {

std::string format_time(double seconds) {
  char buf[32];
  if (seconds < 1e-6)
    std::snprintf(buf, sizeof buf, "%.1f ns", seconds * 1e9);
  else if (seconds < 1e-3)
    std::snprintf(buf, sizeof buf, "%.2f us", seconds * 1e6);
  else if (seconds < 1)
    std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.3f s", seconds);
  return buf;
}

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
  }
  return {{"schema_version", 1}, {"instances", arr}};
}

bool spans_gpus(const std::vector<InstanceSummary>& rows) {
  return std::any_of(rows.begin(), rows.end(), [&](const InstanceSummary& r) { return r.gpu != rows.front().gpu; });
}

namespace {

std::string throughput(const InstanceSummary& r) {
  char buf[48];
  if (r.tflop_per_s >= 1)
    std::snprintf(buf, sizeof buf, "%.1f TFLOP/s", r.tflop_per_s);
  else if (r.tflop_per_s > 0)
    std::snprintf(buf, sizeof buf, "%.1f GFLOP/s", r.tflop_per_s * 1e3);
  else if (r.gb_per_s > 0)
    std::snprintf(buf, sizeof buf, "%.1f GB/s", r.gb_per_s);
  else
    return "";
  return buf;
}

std::string percent(double v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%.2f%%", v * 100);
  return buf;
}

}  // namespace

void print_table(std::ostream& out, const std::vector<InstanceSummary>& rows) {
  std::size_t w = 8;
  for (const auto& r : rows) w = std::max(w, r.id.size());
  char line[512];
  const bool gpus = spans_gpus(rows);  // --gpus: which GPU each instance ran on
  std::snprintf(line, sizeof line, "%-*s %4s %7s %12s %12s %8s %12s %16s", static_cast<int>(w), "instance",
                "side", "n", "median", "IQR", "CV", "min", "throughput");
  out << line << (gpus ? "  gpu" : "") << "\n";
  for (const auto& r : rows) {
    std::snprintf(line, sizeof line, "%-*s %4u %7zu %12s %12s %8s %12s %16s", static_cast<int>(w),
                  r.id.c_str(), r.side, r.n, format_time(r.median).c_str(), format_time(r.iqr).c_str(),
                  percent(r.cv).c_str(), format_time(r.min).c_str(), throughput(r).c_str());
    out << line << (gpus ? "  " + std::to_string(r.gpu) : std::string()) << "\n";
  }
  for (const auto& r : rows) {
    if (r.cv > 0.05)
      out << "warning: " << r.id << ": the standard deviation is " << percent(r.cv)
          << " of the mean: the result may be unstable\n";
    if (r.low_clock_samples > 0)
      out << "warning: " << r.id << ": " << r.low_clock_samples << " samples taken below the SM clock floor\n";
  }
}

void print_csv(std::ostream& out, const std::vector<InstanceSummary>& rows) {
  out << "instance,side,inner,n,median_s,q1_s,q3_s,iqr_s,cv,min_s,max_s,mean_s,outliers,gb_per_s,tflop_per_s,gpu\n";
  for (const auto& r : rows) {
    std::string id = r.id;
    out << '"' << id << "\"," << r.side << ',' << r.inner << ',' << r.n << ',' << r.median << ',' << r.q1 << ','
        << r.q3 << ',' << r.iqr << ',' << r.cv << ',' << r.min << ',' << r.max << ',' << r.mean << ','
        << r.outliers << ',' << r.gb_per_s << ',' << r.tflop_per_s << ',';
    if (r.gpu >= 0) out << r.gpu;
    out << '\n';
  }
}

void print_markdown(std::ostream& out, const std::vector<InstanceSummary>& rows) {
  const bool gpus = spans_gpus(rows);
  out << "| instance | side | n | median | IQR | CV | min | throughput |" << (gpus ? " gpu |" : "") << "\n";
  out << "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" << (gpus ? " ---: |" : "") << "\n";
  for (const auto& r : rows)
    out << "| `" << r.id << "` | " << r.side << " | " << r.n << " | " << format_time(r.median) << " | "
        << format_time(r.iqr) << " | " << percent(r.cv) << " | " << format_time(r.min) << " | " << throughput(r)
        << " |" << (gpus ? " " + std::to_string(r.gpu) + " |" : std::string()) << "\n";
}

}  // namespace isobench::orchestrator
