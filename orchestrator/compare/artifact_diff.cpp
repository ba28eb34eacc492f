#include "orchestrator/compare/artifact_diff.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>

#include "ipc/artifact_folder.hpp"
#include "orchestrator/compare/compare_inputs.hpp"
#include "orchestrator/format/markdown.hpp"
#include "orchestrator/compare/ir_locations.hpp"

namespace isobench::orchestrator {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// One side of a run's artifacts.json: its files, and where each instance's folder is.
struct RunSide {
  ArtifactSide files;
  std::map<std::string, fs::path> folders;  // instance id -> its folder
};

std::optional<RunSide> read_side(const std::string& run_dir, std::uint32_t side) {
  const std::string path = (fs::path(run_dir) / "artifacts.json").string();
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  const json document = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) throw UsageError(path + ": invalid JSON");
  RunSide out;
  try {
    out.files = artifact_side_from_json(document, side, path);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  // artifact_side_from_json checked the document's shape; a folder that is not a string is left out.
  const json sides = document.value("sides", json::array());
  for (const auto& s : sides) {
    if (!s.is_object() || s.value("side", -1) != static_cast<int>(side)) continue;
    const json instances = s.value("instances", json::object());
    for (const auto& [id, entry] : instances.items())
      if (entry.is_object() && entry.contains("folder") && entry["folder"].is_string())
        out.folders[id] = fs::path(run_dir) / entry["folder"].get<std::string>();
  }
  return out;
}

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A Triton IR file that differs in its hash but not once its source locations are removed.
bool differs_in_locations_only(const ArtifactChange& change, const RunSide& a, const RunSide& b) {
  const std::string stage = ir_stage_of(change.path);
  if (change.path.rfind("triton/", 0) != 0 || stage.empty()) return false;
  const auto fa = a.folders.find(change.instance), fb = b.folders.find(change.instance);
  if (fa == a.folders.end() || fb == b.folders.end()) return false;
  const auto ta = read_text(fa->second / change.path), tb = read_text(fb->second / change.path);
  return ta && tb && compare_ir(*ta, *tb, stage) == IrDifference::source_locations;
}

const char* kind_name(ArtifactChange::Kind kind) {
  switch (kind) {
    case ArtifactChange::Kind::source_locations: return "source_locations";
    case ArtifactChange::Kind::only_a: return "only_a";
    case ArtifactChange::Kind::only_b: return "only_b";
    case ArtifactChange::Kind::content: break;
  }
  return "content";
}

const char* kind_text(ArtifactChange::Kind kind) {
  switch (kind) {
    case ArtifactChange::Kind::source_locations: return "differs only in source locations";
    case ArtifactChange::Kind::only_a: return "only in A";
    case ArtifactChange::Kind::only_b: return "only in B";
    case ArtifactChange::Kind::content: break;
  }
  return "differs";
}

json entry_json(const ArtifactFile& f) {
  json j = {{"bytes", f.bytes}, {"sha256", f.sha256.empty() ? json(nullptr) : json(f.sha256)}};
  if (!f.symlink.empty()) j["symlink"] = f.symlink;
  if (!f.skipped.empty()) j["skipped"] = f.skipped;
  return j;
}

bool is_ttgir(const ArtifactChange& c) {
  const std::string suffix = ".ttgir";
  return c.path.rfind("triton/", 0) == 0 && c.path.size() > suffix.size() &&
         c.path.compare(c.path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<std::string> ttgir_instances(const ArtifactComparison& comparison, bool locations_only) {
  std::vector<std::string> ids;
  for (const auto& c : comparison.changes) {
    if (!is_ttgir(c) || (c.kind == ArtifactChange::Kind::source_locations) != locations_only) continue;
    if (ids.empty() || ids.back() != c.instance) ids.push_back(c.instance);
  }
  return ids;
}

// The changes a listing names one by one, in the comparison's order: all but those only in
// source locations, which one line counts (the same kernel in two checkouts changes every IR file
// of every instance: 16 lines for 4 instances, where the real news is elsewhere).
std::vector<const ArtifactChange*> listed(const ArtifactComparison& comparison) {
  std::vector<const ArtifactChange*> order;
  for (const auto& c : comparison.changes)
    if (c.kind != ArtifactChange::Kind::source_locations) order.push_back(&c);
  return order;
}

// "N Triton IR files of K instances differ only in source locations ...", or "" when none do.
std::string locations_only_line(const ArtifactComparison& comparison) {
  std::size_t files = 0;
  std::vector<std::string> instances;
  for (const auto& c : comparison.changes) {
    if (c.kind != ArtifactChange::Kind::source_locations) continue;
    ++files;
    if (std::find(instances.begin(), instances.end(), c.instance) == instances.end()) instances.push_back(c.instance);
  }
  if (files == 0) return "";
  return std::to_string(files) + " Triton IR file" + (files == 1 ? "" : "s") + " of " +
         std::to_string(instances.size()) + (instances.size() == 1 ? " instance" : " instances") +
         " differ only in source locations (file paths, lines; compare --json lists them)";
}

}  // namespace

std::vector<std::string> ttgir_differences(const ArtifactComparison& comparison) {
  return ttgir_instances(comparison, /*locations_only=*/false);
}

std::vector<std::string> ttgir_location_differences(const ArtifactComparison& comparison) {
  return ttgir_instances(comparison, /*locations_only=*/true);
}

std::vector<std::string> autotune_differences(const ArtifactComparison& comparison) {
  std::vector<std::string> ids;
  for (const auto& c : comparison.changes)
    if (c.path == kAutotuneChoicesFile && std::find(ids.begin(), ids.end(), c.instance) == ids.end())
      ids.push_back(c.instance);
  return ids;
}

std::vector<std::string> ttgir_lines(const ArtifactComparison& comparison) {
  const auto ids_text = [](const std::vector<std::string>& ids) {
    std::string text = std::to_string(ids.size()) + (ids.size() == 1 ? " instance: " : " instances: ");
    for (std::size_t i = 0; i < ids.size(); ++i) text += (i ? ", " : "") + ids[i];
    return text;
  };
  std::vector<std::string> lines;
  if (const auto ids = autotune_differences(comparison); !ids.empty())
    lines.push_back("autotune choices differ for " + ids_text(ids) + " (the sides' autotuners chose other "
                    "configurations: " + std::string(kAutotuneChoicesFile) + " in each side's artifact folder)");
  if (const auto ids = ttgir_differences(comparison); !ids.empty())
    lines.push_back("TTGIR differs for " + ids_text(ids) + " (orchestrate ir-diff RUN INSTANCE prints the difference)");
  if (const auto ids = ttgir_location_differences(comparison); !ids.empty())
    lines.push_back("TTGIR differs only in source locations (file paths, lines) for " + ids_text(ids));
  return lines;
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
  ArtifactComparison comparison = compare_artifacts(a->files, b->files, ids);
  for (auto& c : comparison.changes)
    if (c.kind == ArtifactChange::Kind::content && differs_in_locations_only(c, *a, *b))
      c.kind = ArtifactChange::Kind::source_locations;
  return comparison;
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
          {"ttgir_differ", ttgir_differences(comparison)},
          {"autotune_differ", autotune_differences(comparison)},
          {"ttgir_differ_in_locations_only", ttgir_location_differences(comparison)}};
}

void print_artifact_changes(const ArtifactComparison& comparison, bool markdown, std::ostream& out) {
  const std::string counts = std::to_string(comparison.files_a) + " archived in A, " +
                             std::to_string(comparison.files_b) + " in B";
  if (comparison.changes.empty()) {
    out << (markdown ? "\n" : "") << "artifacts: none differ (" << counts << ")\n";
    return;
  }
  const auto changes = listed(comparison);
  auto lines = ttgir_lines(comparison);
  if (const auto line = locations_only_line(comparison); !line.empty()) lines.insert(lines.begin(), line);
  if (markdown) {
    out << "\nartifacts that differ (" << counts << "):\n";
    if (!changes.empty()) out << "\n| instance | artifact | difference |\n| --- | --- | --- |\n";
    for (const auto* c : changes)
      out << "| " << markdown_cell(c->instance) << " | " << markdown_cell(c->path) << " | " << kind_text(c->kind)
          << " |\n";
    if (!lines.empty()) out << "\n";
    for (const auto& line : lines) out << line << "\n";
    return;
  }
  out << "artifacts that differ (" << counts << "):\n";
  for (const auto* c : changes) out << "  " << c->instance << ": " << c->path << " " << kind_text(c->kind) << "\n";
  for (const auto& line : lines) out << line << "\n";
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
