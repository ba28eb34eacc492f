#include "orchestrator/printers/ci_report.hpp"

#include <algorithm>

#include "orchestrator/format/numbers.hpp"
#include "orchestrator/printers/printers.hpp"

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
  out.cells = {c.control ? c.id + " (control)" : c.id,
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
  if (c.control) out.properties.emplace_back("control", "true");
  return out;
}

// A series as a CI case: failed when a change point is SLOWER, skipped when one is UNCERTAIN (and
// none SLOWER), passed otherwise; its message the change lines `history regressions` prints.
CiCase series_case(const SeriesChanges& sc) {
  using stats::Verdict;
  const history::InstanceSeries& s = *sc.series;
  std::vector<std::string> lines;
  for (const auto& change : sc.changes) lines.push_back(change_line(s, change));
  CiCase c;
  c.name = s.instance + (s.settings.empty() ? "" : " (" + s.settings + ")");  // a series split by settings
  c.group = "isobench.history." + s.machine;
  c.verdict = "no change";
  const history::SeriesChange* worst = nullptr;
  for (const Verdict v : {Verdict::slower, Verdict::uncertain, Verdict::faster, Verdict::same}) {
    for (const auto& f : sc.changes)
      if (f.verdict == v && !worst) worst = &f;
  }
  if (worst) c.verdict = stats::to_string(worst->verdict);
  c.status = worst && worst->verdict == Verdict::slower      ? CiCase::Status::failed
             : worst && worst->verdict == Verdict::uncertain ? CiCase::Status::skipped
                                                             : CiCase::Status::passed;
  c.notable = worst && (worst->verdict == Verdict::slower || worst->verdict == Verdict::faster);
  std::string changes;
  for (const auto& line : lines) changes += (changes.empty() ? "" : "; ") + line;
  c.message = c.verdict + ": " + std::to_string(s.points.size()) + " runs on " + series_machine(s) +
              (lines.empty() ? ", no change point" : ": " + changes);
  c.cells = {s.instance, c.notable ? "**" + c.verdict + "**" : c.verdict, series_machine(s),
             std::to_string(s.points.size()), changes};
  c.properties = {{"runs", std::to_string(s.points.size())}};
  if (!s.points.empty()) c.properties.emplace_back("median_last_s", number(s.points.back().median));
  if (worst)
    for (const auto& [name, v] : {std::pair{"mean_before_s", worst->point.mean_before},
                                  std::pair{"mean_after_s", worst->point.mean_after}, std::pair{"hl_ratio", worst->ratio.ratio},
                                  std::pair{"hl_lo", worst->ratio.lo}, std::pair{"hl_hi", worst->ratio.hi},
                                  std::pair{"p", worst->point.p_value}})
      c.properties.emplace_back(name, number(v));
  return c;
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
  for (auto& line : report.control_lines()) out.notes.push_back(std::move(line));
  for (const auto& e : report.excluded) out.notes.push_back("not compared: " + e.id + ": " + e.reason + " (" + e.remedy + ")");
  if (report.artifacts.shown())
    for (auto& line : ttgir_lines(report.artifacts)) out.notes.push_back(std::move(line));
  return out;
}

CiReport ci_report(const HistorySeries& searched, int exit_code) {
  const auto& o = searched.options;
  CiReport ci;
  ci.title = "orchestrate history regressions";
  ci.properties = {{"history", searched.history}, {"threshold", format("%g", o.threshold)},
                   {"max_p", format("%g", o.detect.max_p)}, {"window", std::to_string(o.detect.window)}};
  ci.columns = {"instance", "verdict", "machine", "runs", "change points"};
  for (const auto& sc : searched.series) ci.cases.push_back(series_case(sc));
  ci.exit_code = exit_code;
  ci.outcome = regressions_outcome(searched) + " -> exit " + std::to_string(exit_code);
  return ci;
}

}  // namespace isobench::orchestrator
