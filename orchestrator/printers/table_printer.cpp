// The terminal: aligned columns, the GPUs named once, warnings for people.
#include <algorithm>
#include <cstdio>

#include "orchestrator/format/numbers.hpp"
#include "orchestrator/printers/printers.hpp"

namespace isobench::orchestrator {

namespace {

void print_rows(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      const std::string pad(width[i] - row[i].size(), ' ');
      out << (i ? "  " : "") << (i == 0 ? row[i] + pad : pad + row[i]);
    }
    out << "\n";
  }
}

void print_detail(std::ostream& out, const ComparisonReport& report) {
  const Comparison& c = report.compared.front();
  const SamplesDetail& d = *report.detail;
  out << "A: " << report.a << "  n=" << c.n_a << "  median " << format_time(c.median_a) << "\n";
  out << "B: " << report.b << "  n=" << c.n_b << "  median " << format_time(c.median_b) << "\n";
  const char* alternatives[] = {"two-sided", "less", "greater"};
  for (const auto& test : d.brunner_munzel) {
    const auto& two = test.by_alternative[0];
    out << "Brunner-Munzel (" << test.distribution << "): statistic " << format("%.4g", two.statistic);
    if (std::isfinite(two.df)) out << ", df " << format("%.4g", two.df);
    out << ", relative effect P(A<B) " << format("%.3f", two.relative_effect) << ", asymptotic p";
    for (int k = 0; k < 3; ++k)
      out << " " << alternatives[k] << " " << format_p(test.by_alternative[k].asymptotic_p_value);
    out << "\n";
  }
  if (!d.brunner_munzel.empty()) {
    // The verdict's p-value: valid at every n (docs/statistics.md), whatever the distribution.
    const auto& permutation = d.brunner_munzel.front().by_alternative;
    out << "Brunner-Munzel studentized permutation (" << stats::to_string(permutation[0].method) << "): p";
    for (int k = 0; k < 3; ++k) out << " " << alternatives[k] << " " << format_p(permutation[k]);
    if (permutation[0].method == stats::BrunnerMunzelMethod::separation) out << " (complete separation)";
    if (permutation[0].method == stats::BrunnerMunzelMethod::all_tied) out << " (all values equal)";
    out << "\n";
  }
  const auto& mw = d.mann_whitney[0];
  out << "Mann-Whitney U (" << (mw.method == stats::MannWhitneyMethod::exact ? "exact" : "normal approximation")
      << "): U " << format("%.6g", mw.u1) << ", p";
  for (int k = 0; k < 3; ++k) out << " " << alternatives[k] << " " << format_p(d.mann_whitney[k].p_value);
  out << "\n";
  out << "Hodges-Lehmann ratio B/A: " << format_ratio(c.hl.ratio) << " " << format_interval(c.hl) << " ("
      << format("%.3g", c.hl.confidence * 100) << "% interval); ratio of medians " << format_ratio(c.median_ratio())
      << "\n";
  out << "verdict: " << stats::to_string(c.verdict) << " (alpha " << format_p(report.rule.alpha) << ", noise floor "
      << format("%.3g", report.rule.threshold * 100) << "%)\n";
}

class TablePrinter final : public Printer {
 public:
  void summary(std::ostream& out, const std::vector<InstanceSummary>& rows) const override {
    if (rows.empty()) return;
    const bool gpus = spans_gpus(rows);  // --gpus: which GPU each instance ran on
    std::vector<std::vector<std::string>> table{{"instance", "side", "n", "median", "IQR", "CV", "min", "throughput"}};
    if (gpus) table.front().push_back("gpu");
    for (const auto& r : rows) {
      table.push_back({r.id, std::to_string(r.side), std::to_string(r.n), format_time(r.median), format_time(r.iqr),
                       format_percent(r.cv), format_time(r.min), throughput_text(r)});
      if (gpus) table.back().push_back(std::to_string(r.gpu));
    }
    print_rows(out, table);
    for (const auto& r : rows) {
      if (r.cv > 0.05)
        out << "warning: " << r.id << ": the standard deviation is " << format_percent(r.cv)
            << " of the mean: the result may be unstable\n";
      if (r.modes.bimodal) out << "warning: " << bimodal_warning(r) << "\n";
      if (r.low_clock_samples > 0)
        out << "warning: " << r.id << ": " << r.low_clock_samples << " samples taken below the SM clock floor\n";
    }
  }

  void comparison(std::ostream& out, const ComparisonReport& report) const override {
    if (report.detail) return print_detail(out, report);
    std::vector<std::vector<std::string>> rows{comparison_header(report)};
    for (const auto& c : report.compared) rows.push_back(comparison_row(report, c));
    out << "A: " << report.a << "\nB: " << report.b << "\n";
    if (report.names_gpus()) out << gpus_line(report) << "\n";
    print_rows(out, rows);
    out << mean_ratio_line(report) << " (alpha " << format_p(report.rule.alpha) << " after Holm, noise floor "
        << format("%.3g", report.rule.threshold * 100) << "%, " << format("%.3g", report.rule.confidence * 100)
        << "% intervals)\n";
    for (const auto& line : report.control_lines()) out << line << "\n";
    for (const auto& e : report.excluded) out << "not compared: " << e.id << ": " << e.reason << " (" << e.remedy << ")\n";
    if (report.artifacts.shown()) print_artifact_changes(report.artifacts, /*markdown=*/false, out);
    if (report.kernels.shown()) print_kernel_changes(report.kernels, /*markdown=*/false, out);
  }
};

}  // namespace

std::unique_ptr<Printer> make_table_printer() { return std::make_unique<TablePrinter>(); }

}  // namespace isobench::orchestrator
