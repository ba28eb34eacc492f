#include "orchestrator/compare/kernel_diff.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>

#include "orchestrator/format/numbers.hpp"

namespace isobench::orchestrator {

namespace {

using nlohmann::json;

// A side's record when it holds kernels (not a {"reason": ...}).
const json* record_of(const KernelRecords& records, const std::string& id, unsigned side) {
  const auto it = records.sides.find(id);
  if (it == records.sides.end() || side >= it->second.size()) return nullptr;
  const json& r = it->second[side];
  return r.is_object() && r.contains("kernels") && r["kernels"].is_array() ? &r : nullptr;
}

std::set<std::string> names_of(const json& record) {
  std::set<std::string> names;
  for (const auto& k : record["kernels"])
    if (k.is_object() && k.contains("name") && k["name"].is_string()) names.insert(k["name"].get<std::string>());
  return names;
}

bool truncated(const json& record) {
  return record.contains("truncated_kernels") && record["truncated_kernels"].is_number() &&
         record["truncated_kernels"].get<double>() > 0;
}

// Templated kernels have names of hundreds of characters: a line shows the start of each.
std::string shown_name(const std::string& name) {
  constexpr std::size_t kShown = 100;
  return name.size() <= kShown ? name : name.substr(0, kShown - 3) + "...";
}

std::string list(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + shown_name(n);
  return text;
}

double number(const json& record, const char* key) {
  return record.contains(key) && record[key].is_number() ? record[key].get<double>() : 0.0;
}

// The kernels' GPU time per iteration by name (the grids of one name together).
std::map<std::string, double> time_per_iteration(const json& record) {
  std::map<std::string, double> ns;
  const double inner = number(record, "inner");
  if (inner <= 0) return ns;
  for (const auto& k : record["kernels"])
    if (k.is_object() && k.contains("name") && k["name"].is_string())
      ns[k["name"].get<std::string>()] += number(k, "total_gpu_ns") / inner;
  return ns;
}

double launches_per_iteration(const json& record) {
  if (record.contains("kernels_per_launch")) return number(record, "kernels_per_launch");
  const double inner = number(record, "inner");
  return inner > 0 ? number(record, "kernel_launches") / inner : 0.0;
}

const json* accounting(const json& record) {
  if (!record.contains("iteration")) return nullptr;
  const json& it = record["iteration"];
  return it.is_object() && !it.contains("reason") ? &it : nullptr;
}

KernelSideBySide side_by_side(const std::string& id, const json& a, const json& b) {
  KernelSideBySide s;
  s.instance = id;
  s.launches_a = launches_per_iteration(a);
  s.launches_b = launches_per_iteration(b);
  const auto ta = time_per_iteration(a), tb = time_per_iteration(b);
  double total_a = 0, total_b = 0;
  for (const auto& [n, ns] : ta) total_a += ns;
  for (const auto& [n, ns] : tb) total_b += ns;
  const double step = std::max(total_a, total_b);
  for (const auto& [name, a_ns] : ta) {
    const auto it = tb.find(name);
    if (it == tb.end()) continue;
    const double delta = std::abs(it->second - a_ns);
    if (delta > 0 && delta >= kKernelMoveShare * std::max(a_ns, it->second) && delta >= kKernelMoveStepShare * step)
      s.moves.push_back({name, a_ns, it->second});
  }
  std::stable_sort(s.moves.begin(), s.moves.end(), [](const KernelMove& x, const KernelMove& y) {
    return std::abs(x.b_ns - x.a_ns) > std::abs(y.b_ns - y.a_ns);
  });
  if (s.moves.size() > kMaxMovesShown) s.moves.resize(kMaxMovesShown);
  const json *ia = accounting(a), *ib = accounting(b);
  if (ia && ib) {
    s.iteration_a = *ia;
    s.iteration_b = *ib;
  }
  return s;
}

// Whether the line has anything to say: plain records of identical single-kernel benchmarks
// (the common --record-kernels run) print nothing more than before.
bool worth_a_line(const KernelSideBySide& s) {
  return s.launches_a != s.launches_b || !s.moves.empty() || !s.iteration_a.is_null();
}

std::string count(double v) { return std::abs(v - std::round(v)) < 1e-9 ? format("%.0f", v) : format("%.1f", v); }

std::string ns_text(double ns) { return format_time(ns * 1e-9); }

}  // namespace

std::optional<bool> KernelComparison::differ(const std::string& instance) const {
  if (!recorded.count(instance)) return std::nullopt;
  return change(instance) != nullptr;
}

const KernelChange* KernelComparison::change(const std::string& instance) const {
  for (const auto& c : changes)
    if (c.instance == instance) return &c;
  return nullptr;
}

KernelComparison compare_kernels(const KernelRecords& a, unsigned side_a, const KernelRecords& b, unsigned side_b,
                                 const std::vector<std::string>& ids) {
  KernelComparison comparison;
  for (const auto& id : ids) {
    const json* ra = record_of(a, id, side_a);
    const json* rb = record_of(b, id, side_b);
    if (!ra || !rb) continue;
    comparison.recorded.insert(id);
    comparison.per_iteration.push_back(side_by_side(id, *ra, *rb));
    const auto na = names_of(*ra), nb = names_of(*rb);
    if (na == nb) continue;
    KernelChange change;
    change.instance = id;
    std::set_difference(na.begin(), na.end(), nb.begin(), nb.end(), std::back_inserter(change.only_a));
    std::set_difference(nb.begin(), nb.end(), na.begin(), na.end(), std::back_inserter(change.only_b));
    change.truncated = truncated(*ra) || truncated(*rb);
    comparison.changes.push_back(std::move(change));
  }
  return comparison;
}

KernelComparison compare_run_kernels(const std::vector<std::string>& runs, const std::vector<std::string>& ids,
                                     std::ostream& err) {
  if (runs.size() == 1) {
    const auto records = read_kernel_records(runs[0], err);
    auto comparison = compare_kernels(records, 0, records, 1, ids);
    comparison.a_label = "baseline";
    comparison.b_label = "candidate";
    return comparison;
  }
  if (runs.size() != 2) return {};
  return compare_kernels(read_kernel_records(runs[0], err), 0, read_kernel_records(runs[1], err), 0, ids);
}

std::string kernel_change_text(const KernelComparison& comparison, const KernelChange& change) {
  std::string text = "kernels differ:";
  if (!change.only_b.empty()) text += " only " + comparison.b_label + " ran " + list(change.only_b);
  if (!change.only_a.empty())
    text += std::string(change.only_b.empty() ? "" : ";") + " only " + comparison.a_label + " ran " + list(change.only_a);
  if (change.truncated) text += " (a record left its smallest kernels out to fit: some may be missing)";
  return text;
}

std::string per_iteration_text(const KernelComparison& comparison, const KernelSideBySide& s) {
  const std::string arrow = " -> ";
  std::string text = "per iteration: " + count(s.launches_a) + arrow + count(s.launches_b) + " kernel launches";
  if (!s.iteration_a.is_null()) {
    const json &a = s.iteration_a, &b = s.iteration_b;
    text += "; GPU " + ns_text(number(a, "gpu_ns")) + arrow + ns_text(number(b, "gpu_ns"));
    text += "; host enqueue " + ns_text(number(a, "host_enqueue_ns")) + arrow + ns_text(number(b, "host_enqueue_ns"));
    if (number(a, "synchronizations") != number(b, "synchronizations") || number(a, "synchronizations") > 0)
      text += "; " + count(number(a, "synchronizations")) + arrow + count(number(b, "synchronizations")) +
              " synchronisations";
    for (const auto& [flag, words] : {std::pair{"host_bound", "host-bound"}, std::pair{"blocking_launch", "a blocking launch"}}) {
      const bool fa = a.value(flag, false), fb = b.value(flag, false);
      if (fa && fb) text += std::string("; both ") + words;
      else if (fa || fb) text += "; only " + (fa ? comparison.a_label : comparison.b_label) + " " + words;
    }
  }
  for (const auto& m : s.moves) text += "; " + shown_name(m.name) + ": " + ns_text(m.a_ns) + arrow + ns_text(m.b_ns);
  return text;
}

json kernel_changes_json(const KernelComparison& comparison) {
  json changes = json::array();
  for (const auto& c : comparison.changes)
    changes.push_back({{"instance", c.instance},
                       {"only_a", c.only_a},
                       {"only_b", c.only_b},
                       {"truncated", c.truncated},
                       {"text", kernel_change_text(comparison, c)}});
  json per_iteration = json::array();
  for (const auto& s : comparison.per_iteration) {
    if (!worth_a_line(s)) continue;
    json moves = json::array();
    for (const auto& m : s.moves) moves.push_back({{"name", m.name}, {"a_gpu_ns", m.a_ns}, {"b_gpu_ns", m.b_ns}});
    per_iteration.push_back({{"instance", s.instance},
                             {"kernel_launches_a", s.launches_a},
                             {"kernel_launches_b", s.launches_b},
                             {"moved_kernels", moves},
                             {"iteration_a", s.iteration_a},
                             {"iteration_b", s.iteration_b},
                             {"text", per_iteration_text(comparison, s)}});
  }
  return {{"a", comparison.a_label},
          {"b", comparison.b_label},
          {"instances_recorded", comparison.recorded.size()},
          {"changes", changes},
          {"per_iteration", per_iteration}};
}

void print_kernel_changes(const KernelComparison& comparison, bool markdown, std::ostream& out) {
  if (markdown) out << "\n";
  auto line = [&](const std::string& instance, const std::string& text) {
    out << (markdown ? "- " : "") << (markdown ? "`" + instance + "`" : instance) << ": " << text << "\n";
  };
  if (comparison.changes.empty())
    out << "kernels: the same kernel names on both sides for all " << comparison.recorded.size()
        << " instances with records\n";
  for (const auto& c : comparison.changes) line(c.instance, kernel_change_text(comparison, c));
  for (const auto& s : comparison.per_iteration)
    if (worth_a_line(s)) line(s.instance, per_iteration_text(comparison, s));
}

std::string kernels_cell(const KernelComparison& comparison, const std::string& instance) {
  const auto d = comparison.differ(instance);
  return d ? (*d ? "differ" : "same") : "";
}

}  // namespace isobench::orchestrator
