#pragma once
// What a CI system shows of a verdict: one case per instance (ab, compare) or per series
// (history regressions), each passed, failed or skipped, with a one-line message and the numbers
// behind it, and the outcome line with the exit code that gates the job. Two renderings of it
// (ci_printers.hpp): JUnit XML for the CI's test view and a Markdown summary for its step summary
// and a pull-request comment. The verbs build a CiReport from their finished result; the
// renderers decide nothing (a case fails exactly when it meets the verb's exit-code rule).

#include <string>
#include <utility>
#include <vector>

#include "orchestrator/compare/comparison.hpp"
#include "orchestrator/printers/printer.hpp"

namespace isobench::orchestrator {

struct CiCase {
  // passed: nothing to act on; failed: meets the exit-code rule (by default SLOWER); skipped:
  // no decision (UNCERTAIN, not compared), shown without failing the job.
  enum class Status { passed, failed, skipped };
  std::string name;        // the instance id
  std::string group;       // JUnit classname: "isobench.ab", "isobench.history.<machine>"
  Status status = Status::passed;
  std::string verdict;     // "SLOWER", "FASTER", "SAME", "UNCERTAIN", "not compared", "no change"
  std::string message;     // one line: the verdict and the numbers it rests on
  bool notable = false;    // shown outside the summary's folded part (SLOWER, FASTER)
  std::vector<std::string> cells;  // the summary table's row, as CiReport::columns
  std::vector<std::pair<std::string, std::string>> properties;  // machine-readable numbers
};

struct CiReport {
  std::string title;    // "orchestrate ab", "orchestrate compare", "orchestrate history regressions"
  std::string outcome;  // "12 compared: 2 SLOWER, 1 FASTER, 9 SAME -> exit 1"
  int exit_code = 0;
  std::vector<std::pair<std::string, std::string>> properties;  // the rule and the inputs
  std::vector<std::string> columns;                             // the summary table's header
  std::vector<CiCase> cases;
  std::vector<std::string> notes;  // lines under the outcome: caveats, IR differences

  std::size_t count(CiCase::Status status) const;
};

// A finished comparison (ab, compare) as a CI report: a case per compared instance (failed when
// its verdict meets --fail-on, skipped when UNCERTAIN) and per instance left out (skipped, with
// the reason and its remedy). `title` names the verb; `exit_code` is the one the verb returns.
CiReport ci_report(const ComparisonReport& report, const std::string& title, int exit_code);

// History regressions as a CI report: a case per series, failed when a change point is SLOWER,
// skipped when one is UNCERTAIN (and none SLOWER), passed otherwise, its message the change lines
// `history regressions` prints. `exit_code` is the one the verb returns.
CiReport ci_report(const HistorySeries& searched, int exit_code);

}  // namespace isobench::orchestrator
