#include "orchestrator/printers/printers.hpp"

#include <sstream>

#include "orchestrator/format/numbers.hpp"

namespace isobench::orchestrator {

std::optional<Format> parse_format(const std::string& name) {
  if (name == "table") return Format::table;
  if (name == "markdown") return Format::markdown;
  if (name == "csv") return Format::csv;
  if (name == "json") return Format::json;
  return std::nullopt;
}

std::unique_ptr<Printer> make_printer(Format format) {
  switch (format) {
    case Format::table: return make_table_printer();
    case Format::markdown: return make_markdown_printer();
    case Format::csv: return make_csv_printer();
    case Format::json: return make_json_printer();
  }
  return make_table_printer();
}

std::string throughput_text(const InstanceSummary& r) {
  if (r.tflop_per_s >= 1) return format("%.1f TFLOP/s", r.tflop_per_s);
  if (r.tflop_per_s > 0) return format("%.1f GFLOP/s", r.tflop_per_s * 1e3);
  if (r.gb_per_s > 0) return format("%.1f GB/s", r.gb_per_s);
  return "";
}

std::string bimodal_warning(const InstanceSummary& r) {
  if (!r.modes.bimodal) return "";
  std::ostringstream s;
  s << r.id << ": bimodal: " << r.modes.lower << " samples near " << format_time(r.modes.lower_median) << ", "
    << r.modes.upper << " near " << format_time(r.modes.upper_median) << ": the median describes neither";
  return s.str();
}

std::vector<std::string> comparison_header(const ComparisonReport& report) {
  std::vector<std::string> header{"instance",   "n A",          "n B",      "median A", "median B", "B/A medians",
                                  "HL ratio B/A", "interval", "p",        "p Holm",   "verdict"};
  if (report.kernels.shown()) header.push_back("kernels");
  return header;
}

std::vector<std::string> comparison_row(const ComparisonReport& report, const Comparison& c) {
  std::vector<std::string> row{c.control ? c.id + " (control)" : c.id,
                               std::to_string(c.n_a),
                               std::to_string(c.n_b),
                               format_time(c.median_a),
                               format_time(c.median_b),
                               format_ratio(c.median_ratio()),
                               format_ratio(c.hl.ratio),
                               format_interval(c.hl),
                               format_p(c.bm),
                               format_p_adjusted(c.bm, c.p_adjusted),
                               std::string(stats::to_string(c.verdict))};
  if (report.kernels.shown()) row.push_back(kernels_cell(report.kernels, c.id));
  return row;
}

std::string gpus_line(const ComparisonReport& report) {
  if (report.gpus_a == report.gpus_b) return "GPU (A and B): " + gpus_text(report.gpus_a);
  const auto side = [](const GpuSet& gpus) { return gpus.empty() ? std::string("none named") : gpus_text(gpus); };
  return "GPU: A " + side(report.gpus_a) + "; B " + side(report.gpus_b);
}

std::string mean_ratio_line(const ComparisonReport& report) {
  return "geometric mean of HL ratios B/A over " + std::to_string(report.compared.size()) +
         " instances: " + format_ratio(report.geometric_mean_ratio);
}

}  // namespace isobench::orchestrator
