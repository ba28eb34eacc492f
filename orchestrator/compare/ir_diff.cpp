#include "orchestrator/compare/ir_diff.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "orchestrator/compare/ir_locations.hpp"
#include "orchestrator/errors.hpp"
#include "orchestrator/program_output.hpp"

namespace isobench::orchestrator {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kIndexPath = "triton/kernels.json";

json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  json document = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) throw UsageError(path + ": invalid JSON");
  return document;
}

const json& member(const json& object, const char* name) {
  static const json none;
  return object.is_object() && object.contains(name) ? object[name] : none;
}

// The instances of one side of artifacts.json that hold Triton IR, for the message of a miss.
std::vector<std::string> instances_with_ir(const json& side) {
  std::vector<std::string> found;
  const json& instances = member(side, "instances");
  if (!instances.is_object()) return found;
  for (const auto& [id, entry] : instances.items()) {
    const json& files = member(entry, "files");
    if (!files.is_array()) continue;
    for (const auto& f : files)
      if (member(f, "path") == kIndexPath) found.push_back(id);
  }
  return found;
}

// The launches of a kernels.json by their order.
std::map<long long, json> launches_by_order(const IrSide& side) {
  std::map<long long, json> out;
  for (const auto& l : member(side.index, "launches")) {
    const json& order = member(l, "order");
    out[order.is_number_integer() ? order.get<long long>() : -1] = l;
  }
  return out;
}

// The launch's file of `stage` ("<order>-<name>/<name>.<stage>" under triton/), or empty.
std::string stage_file(const json& launch, const std::string& stage) {
  for (const auto& f : member(launch, "files")) {
    if (!f.is_string()) continue;
    const std::string p = f.get<std::string>();
    const std::string suffix = "." + stage;
    if (p.size() > suffix.size() && p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0) return p;
  }
  return {};
}

std::string scalar_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string joined(const std::vector<std::string>& items) {
  if (items.empty()) return "no file named";
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// A temporary folder for the texts `diff` compares, removed with this object.
class NormalisedFiles {
 public:
  NormalisedFiles() {
    std::string pattern = (fs::temp_directory_path() / "isobench-ir-diff-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw UsageError("cannot create a temporary folder under " + fs::temp_directory_path().string());
    folder_ = pattern;
  }
  ~NormalisedFiles() {
    std::error_code ec;
    fs::remove_all(folder_, ec);
  }
  NormalisedFiles(const NormalisedFiles&) = delete;
  NormalisedFiles& operator=(const NormalisedFiles&) = delete;
  std::string write(const std::string& name, const std::string& text) const {
    const std::string path = (folder_ / name).string();
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f.flush()) throw UsageError(path + ": cannot write");
    return path;
  }

 private:
  fs::path folder_;
};

}  // namespace

IrSide read_ir_side(const std::string& run_dir, unsigned side, const std::string& instance, const std::string& label) {
  const std::string path = (fs::path(run_dir) / "artifacts.json").string();
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw UsageError(run_dir + ": no artifacts.json (a run whose instances kept no artifacts, or one still running)");
  const json document = read_json_file(path);
  const json* entry = nullptr;
  for (const auto& s : member(document, "sides"))
    if (member(s, "side") == side) entry = &s;
  if (!entry) throw UsageError(path + ": no side " + std::to_string(side) + " (is " + run_dir + " an A/B run?)");
  const json& instances = member(*entry, "instances");
  if (!member(member(instances, instance.c_str()), "folder").is_string()) {
    const auto with_ir = instances_with_ir(*entry);
    std::string hint = with_ir.empty() ? "no instance of this side has Triton IR" : "instances with Triton IR: ";
    for (std::size_t i = 0; i < with_ir.size() && i < 5; ++i) hint += (i ? ", " : "") + with_ir[i];
    if (with_ir.size() > 5) hint += ", ...";
    throw UsageError(path + ": side " + std::to_string(side) + " has no artifacts for instance " + instance + " (" +
                     hint + ")");
  }
  IrSide out;
  out.label = label;
  out.folder = (fs::path(run_dir) / instances[instance]["folder"].get<std::string>()).lexically_normal().string();
  const std::string index = (fs::path(out.folder) / kIndexPath).string();
  if (!fs::exists(index, ec))
    throw UsageError(run_dir + ": instance " + instance + " has no Triton IR on side " + std::to_string(side) +
                     " (no " + kIndexPath + " among its artifacts: python/isobench/triton_ir.py writes it for "
                     "Python benchmarks that launch Triton kernels)");
  out.index = read_json_file(index);
  if (!out.index.contains("launches") || !out.index["launches"].is_array())
    throw UsageError(index + ": launches: missing or not an array");
  return out;
}

std::vector<std::string> launch_option_changes(const json& a, const json& b) {
  std::set<std::string> keys;
  for (const auto& [k, v] : a.items()) keys.insert(k);
  for (const auto& [k, v] : b.items()) keys.insert(k);
  std::vector<std::string> out;
  for (const auto& k : keys) {
    if (k == "files" || k == "order") continue;
    const json va = a.contains(k) ? a[k] : json(nullptr), vb = b.contains(k) ? b[k] : json(nullptr);
    if (va != vb) out.push_back(k + ": " + scalar_text(va) + " -> " + scalar_text(vb));
  }
  return out;
}

IrDiffReport diff_ir(const IrSide& a, const IrSide& b, const std::vector<std::string>& stages) {
  IrDiffReport report;
  report.a = {a.label, a.folder};
  report.b = {b.label, b.folder};
  report.stages = stages;
  const auto la = launches_by_order(a), lb = launches_by_order(b);
  std::set<long long> orders;
  for (const auto& [o, l] : la) orders.insert(o);
  for (const auto& [o, l] : lb) orders.insert(o);
  const NormalisedFiles scratch;
  for (const auto order : orders) {
    const auto ia = la.find(order), ib = lb.find(order);
    IrLaunchDiff launch;
    launch.order = order;
    launch.name = (ia != la.end() ? ia->second : ib->second).value("name", "?");
    if (ia == la.end() || ib == lb.end()) {
      launch.only_in = ia == la.end() ? b.label : a.label;
      launch.real = true;
      report.only_in[launch.only_in].push_back(std::to_string(order) + " " + launch.name);
      report.launches.push_back(std::move(launch));
      continue;
    }
    launch.option_changes = launch_option_changes(ia->second, ib->second);
    for (const auto& stage : stages) {
      const std::string fa = stage_file(ia->second, stage), fb = stage_file(ib->second, stage);
      if (fa.empty() && fb.empty()) continue;
      auto& count = report.counts[stage];
      ++count.compared;
      IrStageDiff& d = launch.stages.emplace_back();
      d.stage = stage;
      if (fa.empty() || fb.empty()) {
        d.kind = IrStageDiff::Kind::only_in;
        d.only_in = fa.empty() ? b.label : a.label;
        ++count.real;
        launch.real = true;
        continue;
      }
      const std::string pa = (fs::path(a.folder) / "triton" / fa).string(), pb = (fs::path(b.folder) / "triton" / fb).string();
      const std::string ta = read_text(pa), tb = read_text(pb);
      const IrDifference difference = compare_ir(ta, tb, stage);
      if (difference == IrDifference::identical) continue;  // Kind::identical
      if (difference == IrDifference::source_locations) {
        ++count.locations;
        d.kind = IrStageDiff::Kind::source_locations;
        d.sources_a = joined(ir_source_files(ta));
        d.sources_b = joined(ir_source_files(tb));
        continue;
      }
      ++count.real;
      launch.real = true;
      // The diff of the IR without its source locations: a real change is not buried among
      // location lines (a kernel file in another folder changes every one of them).
      const std::string na = without_source_locations(ta, stage), nb = without_source_locations(tb, stage);
      const bool stripped = na != ta || nb != tb;
      const std::string note = stripped ? " (source locations removed)" : "";
      const auto diff = run_program("diff", {"-u", "--label", a.label + "/" + fa + note, "--label", b.label + "/" + fb + note,
                                             scratch.write("a", na), scratch.write("b", nb)},
                                    "Debian: apt-get install diffutils");
      if (diff.exit_code != 1)
        throw UsageError("diff " + pa + " " + pb + ": " + first_line(diff.err.empty() ? diff.out : diff.err));
      d.kind = IrStageDiff::Kind::differs;
      d.diff = diff.out;
    }
    report.launches.push_back(std::move(launch));
  }
  // Launches with a real difference first, each group in launch order.
  std::stable_partition(report.launches.begin(), report.launches.end(), [](const IrLaunchDiff& l) { return l.real; });
  return report;
}

IrDiffReport diff_ir(const IrDiffRequest& request) {
  std::vector<std::string> stages;
  if (request.stage == "all")
    stages = kIrStages;
  else if (std::find(kIrStages.begin(), kIrStages.end(), request.stage) != kIrStages.end())
    stages = {request.stage};
  else
    throw UsageError("--stage " + request.stage + ": expected ttir, ttgir, llir, ptx, sass or all");
  if (request.runs.empty() || request.runs.size() > 2) throw UsageError("give one A/B run or two runs");
  const bool ab = request.runs.size() == 1;
  // What the runs hold is input: a file they lack, or no diff on PATH (run_program), is bad input.
  try {
    const IrSide a = read_ir_side(request.runs[0], 0, request.instance, ab ? "baseline" : "A");
    const IrSide b =
        read_ir_side(ab ? request.runs[0] : request.runs[1], ab ? 1 : 0, request.instance, ab ? "candidate" : "B");
    IrDiffReport report = diff_ir(a, b, stages);
    report.instance = request.instance;
    return report;
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
}

}  // namespace isobench::orchestrator
