#include "orchestrator/printers/ci_report.hpp"

#include <algorithm>

#include "orchestrator/format/numbers.hpp"

namespace isobench::orchestrator {

namespace {

std::string number(double v) { return format("%.6g", v); }

CiCase compared_case(const ComparisonReport& report, const Comparison& c, const std::string& group) {
  CiCase out;
  out.name = c.id;
  out.group = group;
  out.verdict = stats::to_string(c.verdict);
  out.status = fails_on(report.rule.fail_on, c.verdict)     ? CiCase::Status::failed
               : c.verdict == stats::Verdict::uncertain ? CiCase::Status::skipped
                                                        : CiCase::Status::passed;
  out.notable = c.verdict == stats::Verdict::slower || c.verdict == stats::Verdict::faster;
  out.message = out.verdict + ": HL ratio B/A " + format_ratio(c.hl.ratio) + " " + format_interval(c.hl) + " (" +
                format("%g", report.rule.confidence * 100) + "% interval), p " + format_p(c.bm.p_value) + ", Holm " +
                format_p(c.p_adjusted) + "; median A " + format_time(c.median_a) + ", B " + format_time(c.median_b) +
                " (n " + std::to_string(c.n_a) + " / " + std::to_string(c.n_b) + ")";
  out.cells = {c.id,
               out.notable ? "**" + out.verdict + "**" : out.verdict,
               format_ratio(c.hl.ratio),
               format_interval(c.hl),
               format_p(c.p_adjusted),
               format_time(c.median_a),
               format_time(c.median_b),
               std::to_string(c.n_a) + " / " + std::to_string(c.n_b)};
  out.properties = {{"median_a_s", number(c.median_a)}, {"median_b_s", number(c.median_b)},
                    {"n_a", std::to_string(c.n_a)},      {"n_b", std::to_string(c.n_b)},
                    {"hl_ratio", number(c.hl.ratio)},    {"hl_lo", number(c.hl.lo)},
                    {"hl_hi", number(c.hl.hi)},          {"p", number(c.bm.p_value)},
                    {"p_holm", number(c.p_adjusted)},    {"verdict", out.verdict}};
  return out;
}

}  // namespace

std::size_t CiReport::count(CiCase::Status status) const {
  return static_cast<std::size_t>(
      std::count_if(cases.begin(), cases.end(), [status](const CiCase& c) { return c.status == status; }));
}

CiReport ci_report(const ComparisonReport& report, const std::string& title, int exit_code) {
  CiReport out;
  out.title = title;
  out.exit_code = exit_code;
  out.outcome = report.outcome() + " -> exit " + std::to_string(exit_code);
  out.properties = {{"a", report.a},
                    {"b", report.b},
                    {"alpha", number(report.rule.alpha)},
                    {"threshold", number(report.rule.threshold)},
                    {"confidence", number(report.rule.confidence)}};
  out.columns = {"instance", "verdict", "HL ratio B/A", "interval", "p Holm", "median A", "median B", "n A / B"};
  // "orchestrate ab" -> "isobench.ab": the CI's test view groups the cases by it.
  const std::string group = "isobench." + title.substr(title.rfind(' ') + 1);
  for (const auto& c : report.compared) out.cases.push_back(compared_case(report, c, group));
  for (const auto& e : report.excluded) {
    CiCase skipped;
    skipped.name = e.id;
    skipped.group = group;
    skipped.status = CiCase::Status::skipped;
    skipped.verdict = "not compared";
    skipped.message = "not compared: " + e.reason + " (" + e.remedy + ")";
    skipped.cells = {e.id, "not compared", "", "", "", "", "", ""};
    out.cases.push_back(std::move(skipped));
  }
  if (!report.caveat.empty()) out.notes.push_back("caveat: " + report.caveat);
  if (!report.unreachable.empty()) out.notes.push_back("warning: " + report.unreachable);
  for (const auto& e : report.excluded) out.notes.push_back("not compared: " + e.id + ": " + e.reason + " (" + e.remedy + ")");
  if (report.artifacts.shown())
    for (auto& line : ttgir_lines(report.artifacts)) out.notes.push_back(std::move(line));
  return out;
}

}  // namespace isobench::orchestrator
