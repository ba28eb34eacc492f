#pragma once
// The printers: one interface, four renderings (a terminal table, Markdown, CSV, JSON) of the
// same finished data, as nvbench's printer_base and hyperfine's exporters do. A printer decides
// nothing: verdicts and exit codes come from the comparison model (orchestrator/compare/), the
// numbers of a run's summary from orchestrator/summary.hpp. The files a CI job shows (JUnit XML,
// a Markdown summary) render the verdicts of ab and compare and the change points of history
// regressions alike, so they render a model of their own (ci_report.hpp, ci_printers.hpp).
//
// The verbs that list rather than measure (kernels, history list, show and regressions, ir-diff),
// and what calibrate and bisect conclude, print through the same printers: as text by the table
// printer (which the Markdown and CSV printers share: those verbs offer text, and some --json),
// as JSON by the JSON printer. A calibration's files (report.md, its charts) are rendered here
// too (calibration_report.hpp).

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "kernels/kernel_spec.hpp"
#include "orchestrator/bisect/bisect_outcome.hpp"
#include "orchestrator/calibration/analysis.hpp"
#include "orchestrator/compare/comparison.hpp"
#include "orchestrator/compare/ir_diff.hpp"
#include "orchestrator/history/series_changes.hpp"
#include "orchestrator/summary.hpp"

namespace isobench::orchestrator {

enum class Format { table, markdown, csv, json };

// `orchestrate kernels`: a kernel of the catalog and the plugin library it came from (its absolute
// path; empty for a built-in kernel).
struct CatalogEntry {
  const kernels::KernelSpec* spec = nullptr;
  std::string plugin;
};

// The version of `orchestrate kernels --json`'s document.
inline constexpr int kKernelsSchemaVersion = 1;

// An instance's series of runs in the history, and the change points found in it.
struct SeriesChanges {
  const history::InstanceSeries* series = nullptr;
  std::vector<history::SeriesChange> changes;
};

// `history show` (every run with its samples) and `history regressions` (side 0 of each series,
// or of one instance's): the history file, the instance asked for (empty: all), the series and the
// options their change points were found by.
struct HistorySeries {
  std::string history;
  std::string instance;
  history::ChangeOptions options;
  std::vector<SeriesChanges> series;

  std::size_t change_points() const;
  std::size_t slower() const;  // change points whose verdict is SLOWER
};

// "table", "markdown", "csv", "json"; nullopt for anything else.
std::optional<Format> parse_format(const std::string& name);

class Printer {
 public:
  virtual ~Printer() = default;
  // A run's per-instance statistics (one side per row).
  virtual void summary(std::ostream& out, const std::vector<InstanceSummary>& rows) const = 0;
  // A finished comparison: per-instance verdicts, what was not compared, artifacts and kernels
  // that differ; for two sample files, every test and alternative.
  virtual void comparison(std::ostream& out, const ComparisonReport& report) const = 0;

  // The kernel catalog: a block per kernel with one aligned row per axis.
  virtual void kernel_catalog(std::ostream& out, const std::vector<CatalogEntry>& catalog) const;
  // `history list`: the runs of the history file `history`, oldest first.
  virtual void history_runs(std::ostream& out, const std::string& history,
                            const std::vector<history::StoredRun>& runs) const;
  // `history show`: an instance's series, every run with its samples' spread, change points marked.
  virtual void history_series(std::ostream& out, const HistorySeries& shown) const;
  // `history regressions`: every change point with its size and verdict, then the outcome line.
  virtual void history_regressions(std::ostream& out, const HistorySeries& searched) const;
  // `ir-diff`: per launch the options and stages that differ, unified diffs, a count per stage.
  virtual void ir_diff(std::ostream& out, const IrDiffReport& report) const;
  // `calibrate`: the FPR table (Markdown, report.md's first table) and the samples per side each
  // mode needs, the largest over instances.
  virtual void calibration(std::ostream& out, const calibration::CalibrationResult& result) const;
  // `bisect`: the steps with their verdicts and run directories, the commits skipped, each
  // instance's answer (instances that agree on one line), then the outcome line.
  virtual void bisection(std::ostream& out, const BisectOutcome& outcome) const;
};

std::unique_ptr<Printer> make_printer(Format format);

}  // namespace isobench::orchestrator
