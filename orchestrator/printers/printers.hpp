#pragma once
// Inside orchestrator/printers/: each printer's factory, and the rows the table and the Markdown
// printers share.

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "orchestrator/printers/printer.hpp"

namespace isobench::orchestrator {

std::unique_ptr<Printer> make_table_printer();
std::unique_ptr<Printer> make_markdown_printer();
std::unique_ptr<Printer> make_csv_printer();
std::unique_ptr<Printer> make_json_printer();

// "790.1 TFLOP/s", "12.3 GFLOP/s", "4301.2 GB/s", or empty when the kernel states neither.
std::string throughput_text(const InstanceSummary& r);

// "cast 1M: bimodal: 7 samples near 132.0 us, 8 near 150.6 us: the median describes neither",
// or empty: the table and Markdown print it as a warning, like a high CV.
std::string bimodal_warning(const InstanceSummary& r);

// A comparison's columns; with kernel records a "kernels" column (differ / same) beside the
// verdict, so a verdict on code that ran other kernels is read as such.
std::vector<std::string> comparison_header(const ComparisonReport& report);
std::vector<std::string> comparison_row(const ComparisonReport& report, const Comparison& c);
// "GPU (A and B): ..." or "GPU: A ...; B ...": the table and Markdown name the GPUs once.
std::string gpus_line(const ComparisonReport& report);
// "geometric mean of HL ratios B/A over 12 instances: 1.0123"
std::string mean_ratio_line(const ComparisonReport& report);

// The JSON printer's documents of the listings (kernels_printer.cpp, history_printer.cpp).
nlohmann::json kernel_catalog_json(const std::vector<CatalogEntry>& catalog);
nlohmann::json history_runs_json(const std::string& history, const std::vector<history::StoredRun>& runs);
nlohmann::json history_series_json(const HistorySeries& shown);
nlohmann::json history_regressions_json(const HistorySeries& searched);

// What a history series was measured on: "CPU X on host (inner 4, timer graph)".
std::string series_machine(const history::InstanceSeries& series);
// A change point in one line, as history regressions prints it and its CI case says it: "run 17
// (2026-12-01T02:00:00.000Z) of 20, after run 16 (...): +5.12% (HL ratio 1.0512 [1.0400, 1.0600]),
// p 0.00012, SLOWER".
std::string change_line(const history::InstanceSeries& series, const history::SeriesChange& change);
// `history regressions`'s outcome: "3 series, 1 change points, 1 SLOWER (noise floor 2%, ...)".
std::string regressions_outcome(const HistorySeries& searched);

}  // namespace isobench::orchestrator
