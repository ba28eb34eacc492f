#pragma once
// The printers: one interface, four renderings (a terminal table, Markdown, CSV, JSON) of the
// same finished data, as nvbench's printer_base and hyperfine's exporters do. A printer decides
// nothing: verdicts and exit codes come from the comparison model (orchestrator/compare/), the
// numbers of a run's summary from orchestrator/summary.hpp. The files a CI job shows (JUnit XML,
// a Markdown summary) render the verdicts of ab and compare and the change points of history
// regressions alike, so they render a model of their own (ci_report.hpp, ci_printers.hpp).

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "orchestrator/compare/comparison.hpp"
#include "orchestrator/summary.hpp"

namespace isobench::orchestrator {

enum class Format { table, markdown, csv, json };

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
};

std::unique_ptr<Printer> make_printer(Format format);

}  // namespace isobench::orchestrator
