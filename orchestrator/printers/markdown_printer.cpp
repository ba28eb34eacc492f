// Markdown: tables to paste into a pull request or a results README.
#include "orchestrator/format/numbers.hpp"
#include "orchestrator/printers/printers.hpp"

namespace isobench::orchestrator {

namespace {

class MarkdownPrinter final : public Printer {
 public:
  void summary(std::ostream& out, const std::vector<InstanceSummary>& rows) const override {
    const bool gpus = !rows.empty() && spans_gpus(rows);
    out << "| instance | side | n | median | IQR | CV | min | throughput |" << (gpus ? " gpu |" : "") << "\n";
    out << "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" << (gpus ? " ---: |" : "") << "\n";
    for (const auto& r : rows) {
      out << "| `" << r.id << "` | " << r.side << " | " << r.n << " | " << format_time(r.median) << " | "
          << format_time(r.iqr) << " | " << format_percent(r.cv) << " | " << format_time(r.min) << " | "
          << throughput_text(r) << " |";
      if (gpus) out << " " << r.gpu << " |";
      out << "\n";
    }
    for (const auto& r : rows)
      if (r.modes.bimodal) out << "\n**warning**: " << bimodal_warning(r) << "\n";
  }

  void comparison(std::ostream& out, const ComparisonReport& report) const override {
    const auto header = comparison_header(report);
    out << "|";
    for (const auto& h : header) out << " " << h << " |";
    out << "\n|";
    for (std::size_t i = 0; i < header.size(); ++i) out << (i == 0 ? " --- |" : " ---: |");
    out << "\n";
    for (const auto& c : report.compared) {
      out << "|";
      for (const auto& cell : comparison_row(report, c)) out << " " << cell << " |";
      out << "\n";
    }
    out << "\n" << mean_ratio_line(report) << "\n";
    for (const auto& line : report.control_lines()) out << "\n" << line << "\n";
    if (report.names_gpus()) out << "\n" << gpus_line(report) << "\n";
    for (const auto& e : report.excluded)
      out << "\nnot compared: " << e.id << ": " << e.reason << " (" << e.remedy << ")";
    if (!report.excluded.empty()) out << "\n";
    if (report.artifacts.shown()) print_artifact_changes(report.artifacts, /*markdown=*/true, out);
    if (report.kernels.shown()) print_kernel_changes(report.kernels, /*markdown=*/true, out);
  }
};

}  // namespace

std::unique_ptr<Printer> make_markdown_printer() { return std::make_unique<MarkdownPrinter>(); }

}  // namespace isobench::orchestrator
