#include "orchestrator/compare/artifact_diff.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>

#include "ipc/artifact_folder.hpp"
#include "orchestrator/compare/compare_inputs.hpp"

namespace isobench::orchestrator {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::optional<ArtifactSide> read_side(const std::string& run_dir, std::uint32_t side) {
  const std::string path = (fs::path(run_dir) / "artifacts.json").string();
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  const json document = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) throw UsageError(path + ": invalid JSON");
  try {
    return artifact_side_from_json(document, side, path);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
}

const char* kind_name(ArtifactChange::Kind kind) {
  switch (kind) {
    case ArtifactChange::Kind::only_a: return "only_a";
    case ArtifactChange::Kind::only_b: return "only_b";
    case ArtifactChange::Kind::content: break;
  }
  return "content";
}

const char* kind_text(ArtifactChange::Kind kind) {
  switch (kind) {
    case ArtifactChange::Kind::only_a: return "only in A";
    case ArtifactChange::Kind::only_b: return "only in B";
    case ArtifactChange::Kind::content: break;
  }
  return "differs";
}

// A markdown table cell: a '|' in an id or a file name would end the cell.
std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

json entry_json(const ArtifactFile& f) {
  json j = {{"bytes", f.bytes}, {"sha256", f.sha256.empty() ? json(nullptr) : json(f.sha256)}};
  if (!f.symlink.empty()) j["symlink"] = f.symlink;
  if (!f.skipped.empty()) j["skipped"] = f.skipped;
  return j;
}

// The one line naming the instances whose Triton TTGIR differs (python/isobench/triton_ir.py's
// triton/<order>-<name>/<name>.ttgir), with the command that shows the difference.
void print_ttgir_line(const ArtifactComparison& comparison, std::ostream& out) {
  const auto ids = ttgir_differences(comparison);
  if (ids.empty()) return;
  out << "TTGIR differs for " << ids.size() << (ids.size() == 1 ? " instance: " : " instances: ");
  for (std::size_t i = 0; i < ids.size(); ++i) out << (i ? ", " : "") << ids[i];
  out << " (orchestrate ir-diff RUN INSTANCE prints the difference)\n";
}

}  // namespace

std::vector<std::string> ttgir_differences(const ArtifactComparison& comparison) {
  std::vector<std::string> ids;
  const std::string suffix = ".ttgir";
  for (const auto& c : comparison.changes) {
    const bool ttgir = c.path.rfind("triton/", 0) == 0 && c.path.size() > suffix.size() &&
                       c.path.compare(c.path.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (ttgir && (ids.empty() || ids.back() != c.instance)) ids.push_back(c.instance);
  }
  return ids;
}

ArtifactComparison compare_artifacts(const ArtifactSide& a, const ArtifactSide& b, const std::vector<std::string>& ids) {
  ArtifactComparison result;
  result.available = true;
  static const std::vector<ArtifactFile> none;
  for (const auto& id : ids) {
    const auto ia = a.find(id), ib = b.find(id);
    const auto& fa = ia == a.end() ? none : ia->second;
    const auto& fb = ib == b.end() ? none : ib->second;
    result.files_a += fa.size();
    result.files_b += fb.size();
    std::map<std::string, std::pair<const ArtifactFile*, const ArtifactFile*>> by_path;
    for (const auto& f : fa) by_path[f.path].first = &f;
    for (const auto& f : fb) by_path[f.path].second = &f;
    for (const auto& [path, pair] : by_path) {
      const auto [in_a, in_b] = pair;
      ArtifactChange change;
      change.instance = id;
      change.path = path;
      if (in_a) change.a = *in_a;
      if (in_b) change.b = *in_b;
      if (!in_b)
        change.kind = ArtifactChange::Kind::only_a;
      else if (!in_a)
        change.kind = ArtifactChange::Kind::only_b;
      else if (in_a->same_content(*in_b) || path == ipc::kIterationTraceFile)
        continue;  // a trace's timestamps differ on every side: only its absence is news
      result.changes.push_back(std::move(change));
    }
  }
  return result;
}

ArtifactComparison compare_run_artifacts(const std::vector<std::string>& runs, const std::vector<std::string>& ids) {
  const bool one_ab_run = runs.size() == 1;
  const auto a = read_side(runs.at(0), 0);
  const auto b = read_side(one_ab_run ? runs.at(0) : runs.at(1), one_ab_run ? 1 : 0);
  if (!a || !b) return {};
  return compare_artifacts(*a, *b, ids);
}

json artifact_changes_json(const ArtifactComparison& comparison) {
  json differ = json::array();
  for (const auto& c : comparison.changes) {
    json j = {{"instance", c.instance}, {"path", c.path}, {"difference", kind_name(c.kind)}};
    j["a"] = c.kind == ArtifactChange::Kind::only_b ? json(nullptr) : entry_json(c.a);
    j["b"] = c.kind == ArtifactChange::Kind::only_a ? json(nullptr) : entry_json(c.b);
    differ.push_back(std::move(j));
  }
  return {{"files_a", comparison.files_a}, {"files_b", comparison.files_b}, {"differ", differ},
          {"ttgir_differ", ttgir_differences(comparison)}};
}

void print_artifact_changes(const ArtifactComparison& comparison, bool markdown, std::ostream& out) {
  const std::string counts = std::to_string(comparison.files_a) + " archived in A, " +
                             std::to_string(comparison.files_b) + " in B";
  if (comparison.changes.empty()) {
    out << (markdown ? "\n" : "") << "artifacts: none differ (" << counts << ")\n";
    return;
  }
  if (markdown) {
    out << "\nartifacts that differ (" << counts << "):\n\n| instance | artifact | difference |\n| --- | --- | --- |\n";
    for (const auto& c : comparison.changes)
      out << "| " << markdown_cell(c.instance) << " | " << markdown_cell(c.path) << " | " << kind_text(c.kind) << " |\n";
    if (!ttgir_differences(comparison).empty()) out << "\n";
    print_ttgir_line(comparison, out);
    return;
  }
  out << "artifacts that differ (" << counts << "):\n";
  for (const auto& c : comparison.changes) out << "  " << c.instance << ": " << c.path << " " << kind_text(c.kind) << "\n";
  print_ttgir_line(comparison, out);
}

std::string artifact_changes_cell(const ArtifactComparison& comparison, const std::string& instance) {
  std::string cell;
  for (const auto& c : comparison.changes) {
    if (c.instance != instance) continue;
    cell += (cell.empty() ? "" : "; ") + c.path;
    if (c.kind != ArtifactChange::Kind::content) cell += std::string(" (") + kind_text(c.kind) + ")";
  }
  return cell;
}

}  // namespace isobench::orchestrator
