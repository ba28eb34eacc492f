#include "orchestrator/compare/kernel_diff.hpp"

#include <algorithm>
#include <ostream>

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

json kernel_changes_json(const KernelComparison& comparison) {
  json changes = json::array();
  for (const auto& c : comparison.changes)
    changes.push_back({{"instance", c.instance},
                       {"only_a", c.only_a},
                       {"only_b", c.only_b},
                       {"truncated", c.truncated},
                       {"text", kernel_change_text(comparison, c)}});
  return {{"a", comparison.a_label},
          {"b", comparison.b_label},
          {"instances_recorded", comparison.recorded.size()},
          {"changes", changes}};
}

void print_kernel_changes(const KernelComparison& comparison, bool markdown, std::ostream& out) {
  if (markdown) out << "\n";
  if (comparison.changes.empty()) {
    out << "kernels: the same kernel names on both sides for all " << comparison.recorded.size()
        << " instances with records\n";
    return;
  }
  for (const auto& c : comparison.changes)
    out << (markdown ? "- " : "") << (markdown ? "`" + c.instance + "`" : c.instance) << ": "
        << kernel_change_text(comparison, c) << "\n";
}

std::string kernels_cell(const KernelComparison& comparison, const std::string& instance) {
  const auto d = comparison.differ(instance);
  return d ? (*d ? "differ" : "same") : "";
}

}  // namespace isobench::orchestrator
