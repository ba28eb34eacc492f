// Markdown for a CI job's step summary ($GITHUB_STEP_SUMMARY) and a pull-request comment: what
// changed first, the rest folded.
#include <map>

#include "orchestrator/format/markdown.hpp"
#include "orchestrator/printers/ci_printers.hpp"

namespace isobench::orchestrator {

namespace {

void table(std::ostream& out, const CiReport& report, const std::vector<const CiCase*>& cases) {
  out << "|";
  for (const auto& h : report.columns) out << " " << h << " |";
  out << "\n|";
  for (std::size_t i = 0; i < report.columns.size(); ++i) out << (i < 2 ? " --- |" : " ---: |");
  out << "\n";
  for (const auto* c : cases) {
    out << "|";
    for (std::size_t i = 0; i < c->cells.size(); ++i) {
      // The instance as code, so that brackets and underscores in an id are not Markdown.
      const char* quote = i == 0 && c->cells[i].find('`') == std::string::npos ? "`" : "";
      out << " " << quote << markdown_cell(c->cells[i]) << quote << " |";
    }
    out << "\n";
  }
}

}  // namespace

void print_ci_summary(std::ostream& out, const CiReport& report) {
  // Notable cases first, failed ones before the others; each group in the report's order.
  std::vector<const CiCase*> shown, folded;
  for (const auto& c : report.cases)
    if (c.notable && c.status == CiCase::Status::failed) shown.push_back(&c);
  for (const auto& c : report.cases)
    if (c.notable && c.status != CiCase::Status::failed) shown.push_back(&c);
  for (const auto& c : report.cases)
    if (!c.notable) folded.push_back(&c);

  out << "<!-- isobench: " << report.title << " -->\n"
      << "### isobench, " << report.title << ": "
      << (report.exit_code == 0 ? "passed" : report.exit_code == 1 ? "regression" : "no verdict") << "\n\n"
      << "**outcome**: " << report.outcome << "\n\n";
  if (shown.empty())
    out << "No instance is SLOWER or FASTER.\n\n";
  else
    table(out, report, shown);
  if (!folded.empty()) {
    std::map<std::string, std::size_t> verdicts;
    for (const auto* c : folded) ++verdicts[c->verdict];
    out << (shown.empty() ? "" : "\n") << "<details><summary>" << folded.size() << (shown.empty() ? "" : " more")
        << (folded.size() == 1 ? " instance" : " instances") << ":";
    bool first = true;
    for (const auto& [verdict, n] : verdicts) {
      out << (first ? " " : ", ") << n << " " << verdict;
      first = false;
    }
    out << "</summary>\n\n";
    table(out, report, folded);
    out << "\n</details>\n";
  }
  if (!report.notes.empty()) {
    out << "\n";
    for (const auto& note : report.notes) out << "- " << markdown_cell(note) << "\n";
  }
}

}  // namespace isobench::orchestrator
