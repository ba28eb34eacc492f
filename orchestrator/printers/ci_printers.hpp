#pragma once
// The two renderings of a CiReport (ci_report.hpp), for files a CI job picks up:
//
//   JUnit XML (--junit FILE): a testsuite of one testcase per case; a failed case carries a
//   <failure> whose message is the verdict with its ratio, interval and p, a skipped one a
//   <skipped> with the same; every testcase's <system-out> holds that line, and the testsuite's
//   <properties> the rule and, per case, its medians, n, ratio and p ("<id>.median_a_s", ...).
//   The elements and attributes are those of the JUnit schema Jenkins' xunit plugin validates
//   against (tests/orchestrator/junit.xsd restates it; test_ci_printers checks the output with it).
//
//   Markdown (--summary FILE): for a job's step summary and a pull-request comment: a marker
//   comment a bot can find its earlier comment by, the outcome line, the notable cases (SLOWER,
//   FASTER) as a table, the others folded in <details>, then the notes.

#include <ostream>

#include "orchestrator/printers/ci_report.hpp"

namespace isobench::orchestrator {

void print_junit(std::ostream& out, const CiReport& report);
void print_ci_summary(std::ostream& out, const CiReport& report);

}  // namespace isobench::orchestrator
