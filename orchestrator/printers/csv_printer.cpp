// CSV: one table for any reader, raw numbers rather than the rounded terminal text.
#include "orchestrator/format/numbers.hpp"
#include "orchestrator/printers/printers.hpp"

namespace isobench::orchestrator {

namespace {

class CsvPrinter final : public Printer {
 public:
  void summary(std::ostream& out, const std::vector<InstanceSummary>& rows) const override {
    out << "instance,side,inner,n,median_s,q1_s,q3_s,iqr_s,cv,min_s,max_s,mean_s,outliers,gb_per_s,tflop_per_s,gpu,bimodal\n";
    for (const auto& r : rows) {
      out << '"' << r.id << "\"," << r.side << ',' << r.inner << ',' << r.n << ',' << r.median << ',' << r.q1 << ','
          << r.q3 << ',' << r.iqr << ',' << r.cv << ',' << r.min << ',' << r.max << ',' << r.mean << ','
          << r.outliers << ',' << r.gb_per_s << ',' << r.tflop_per_s << ',';
      if (r.gpu >= 0) out << r.gpu;
      out << ',' << (r.modes.bimodal ? "true" : "false") << '\n';
    }
  }

  void comparison(std::ostream& out, const ComparisonReport& report) const override {
    const std::vector<std::string> header{"instance",     "n A",      "n B", "median A", "median B", "B/A medians",
                                          "HL ratio B/A", "interval", "p",   "p Holm",   "verdict"};
    for (std::size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << csv_field(header[i]);
    // One more column, not a second table, so the CSV stays one table for any reader.
    if (report.artifacts.shown()) out << ",artifacts differ";
    if (report.kernels.shown()) out << ",kernels_differ,kernel_change";
    if (report.names_gpus()) out << ",gpu A,gpu B";
    const bool controls = report.controls().n > 0;
    if (controls) out << ",control";
    out << "\n";
    for (const auto& c : report.compared) {
      out << csv_field(c.id) << "," << c.n_a << "," << c.n_b << "," << format("%.9g", c.median_a) << ","
          << format("%.9g", c.median_b) << "," << format("%.9g", c.median_ratio()) << ","
          << format("%.9g", c.hl.ratio) << ",\"[" << format("%.9g", c.hl.lo) << ", " << format("%.9g", c.hl.hi)
          << "]\"," << format("%.6g", c.bm.p_value) << "," << format("%.6g", c.p_adjusted) << ","
          << stats::to_string(c.verdict);
      if (report.artifacts.shown()) out << "," << csv_field(artifact_changes_cell(report.artifacts, c.id));
      if (report.kernels.shown()) {
        const auto differ = report.kernels.differ(c.id);
        const KernelChange* change = report.kernels.change(c.id);
        out << "," << (differ ? (*differ ? "true" : "false") : "") << ","
            << csv_field(change ? kernel_change_text(report.kernels, *change) : "");
      }
      if (report.names_gpus()) out << "," << csv_field(gpus_text(c.gpus_a)) << "," << csv_field(gpus_text(c.gpus_b));
      if (controls) out << "," << (c.control ? "true" : "false");
      out << "\n";
    }
  }
};

}  // namespace

std::unique_ptr<Printer> make_csv_printer() { return std::make_unique<CsvPrinter>(); }

}  // namespace isobench::orchestrator
