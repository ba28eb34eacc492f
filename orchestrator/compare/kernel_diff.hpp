#pragma once
// `compare` on run directories made with --record-kernels: the instances whose two sides ran
// different CUDA kernels (kernels.json), by name. A listing beside the verdicts, which it never
// changes: a different cuBLASLt kernel or tile explains a verdict, it is not one.

#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "orchestrator/compare/compare_inputs.hpp"

namespace isobench::orchestrator {

struct KernelChange {
  std::string instance;
  std::vector<std::string> only_a, only_b;  // kernel names one side ran and the other did not
  bool truncated = false;  // a record left small kernels out to fit: they may be missing from it
};

struct KernelComparison {
  std::string a_label = "A", b_label = "B";  // "baseline" and "candidate" for one A/B run
  std::set<std::string> recorded;            // instances with a kernel record on both sides
  std::vector<KernelChange> changes;         // in the order of the ids given
  // Printed only when there is something to compare, so runs without records compare as before.
  bool shown() const { return !recorded.empty(); }
  // Whether the kernels of `instance` differ; nullopt when a side has no record of it.
  std::optional<bool> differ(const std::string& instance) const;
  const KernelChange* change(const std::string& instance) const;
};

// The kernel names of `ids`: side `side_a` of `a` against side `side_b` of `b`.
KernelComparison compare_kernels(const KernelRecords& a, unsigned side_a, const KernelRecords& b, unsigned side_b,
                                 const std::vector<std::string>& ids);

// The records of the runs `compare` was given: one A/B run (side 0, the baseline, against side 1,
// the candidate) or two runs (side 0 of each). Runs without kernels.json have no records.
KernelComparison compare_run_kernels(const std::vector<std::string>& runs, const std::vector<std::string>& ids,
                                     std::ostream& err);

// The printers' pieces: "kernels differ: only candidate ran X; only baseline ran Y", the JSON
// value of "kernels", the text section of the terminal and markdown outputs, and the table and
// CSV cell of one instance ("differ", "same", or empty without records).
std::string kernel_change_text(const KernelComparison& comparison, const KernelChange& change);
nlohmann::json kernel_changes_json(const KernelComparison& comparison);
void print_kernel_changes(const KernelComparison& comparison, bool markdown, std::ostream& out);
std::string kernels_cell(const KernelComparison& comparison, const std::string& instance);

}  // namespace isobench::orchestrator
