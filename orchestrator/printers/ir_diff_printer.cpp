// `orchestrate ir-diff`: one instance's Triton IR, side A against side B, as text (Printer's own
// rendering): per launch its option changes and each stage's state or unified diff, then a count
// per stage and the launches of one side alone.
#include <cctype>

#include "orchestrator/printers/printers.hpp"

namespace isobench::orchestrator {

namespace {

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

void print_stage(std::ostream& out, const IrDiffReport& report, const IrStageDiff& d) {
  out << "  " << upper(d.stage) << ": ";
  switch (d.kind) {
    case IrStageDiff::Kind::identical: out << "identical\n"; return;
    case IrStageDiff::Kind::only_in: out << "only in " << d.only_in << "\n"; return;
    case IrStageDiff::Kind::source_locations:
      out << "differs only in source locations (" << report.a.label << ": " << d.sources_a << "; " << report.b.label
          << ": " << d.sources_b << ")\n";
      return;
    case IrStageDiff::Kind::differs:
      out << "differs\n" << d.diff;
      if (!d.diff.empty() && d.diff.back() != '\n') out << "\n";
      return;
  }
}

}  // namespace

void Printer::ir_diff(std::ostream& out, const IrDiffReport& report) const {
  out << report.instance << ": " << report.a.label << " " << report.a.folder << "\n"
      << std::string(report.instance.size() + 2, ' ') << report.b.label << " " << report.b.folder << "\n\n";
  for (const auto& launch : report.launches) {
    out << "== launch " << launch.order << ": " << launch.name << "\n";
    if (!launch.only_in.empty()) {
      out << "  only in " << launch.only_in << "\n";
      continue;
    }
    for (const auto& line : launch.option_changes) out << "  " << line << "\n";
    for (const auto& stage : launch.stages) print_stage(out, report, stage);
  }
  out << "\n";
  for (const auto& stage : report.stages) {
    const auto it = report.counts.find(stage);
    if (it == report.counts.end()) {
      out << upper(stage) << ": not recorded on either side\n";
      continue;
    }
    out << upper(stage) << ": " << it->second.real << " of " << it->second.compared << " launches differ";
    if (it->second.locations) out << ", " << it->second.locations << " more only in source locations";
    out << "\n";
  }
  for (const auto& [side, launches] : report.only_in) {
    out << (launches.size() == 1 ? "1 launch" : std::to_string(launches.size()) + " launches") << " only in " << side
        << ":";
    for (const auto& l : launches) out << " " << l << (&l == &launches.back() ? "" : ",");
    out << "\n";
  }
}

}  // namespace isobench::orchestrator
