#pragma once
// `compare` on run directories made with --record-kernels: the instances whose two sides ran
// different CUDA kernels (kernels.json), by name, and per iteration (one benchmark launch, e.g.
// one training step) the two sides side by side: kernel launches, the accounting when the record
// has one (GPU time, host enqueue, synchronisations, flags; worker/iteration_accounting.hpp) and
// the kernels whose GPU time moved most ("Y: 2.100 ms -> 2.600 ms"). A listing beside the
// verdicts, which it never changes: a different cuBLASLt kernel or tile explains a verdict, it is
// not one.

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

// A kernel that ran on both sides, its GPU time per iteration on each.
struct KernelMove {
  std::string name;
  double a_ns = 0, b_ns = 0;
};

// A kernel's time is listed as moved when it changed by at least this share of its larger side
// and of the larger side's kernel time per iteration: smaller moves are the spread of one untimed
// pass, not an explanation. At most kMaxMovesShown are listed, the largest first.
inline constexpr double kKernelMoveShare = 0.05;
inline constexpr double kKernelMoveStepShare = 0.01;
inline constexpr std::size_t kMaxMovesShown = 3;

// One instance per iteration, both sides.
struct KernelSideBySide {
  std::string instance;
  double launches_a = 0, launches_b = 0;  // kernel launches per iteration
  std::vector<KernelMove> moves;          // largest change first, at most kMaxMovesShown
  // The records' "iteration" objects when both have an accounting (no "reason"); else null.
  nlohmann::json iteration_a, iteration_b;
};

struct KernelComparison {
  std::string a_label = "A", b_label = "B";  // "baseline" and "candidate" for one A/B run
  std::set<std::string> recorded;            // instances with a kernel record on both sides
  std::vector<KernelChange> changes;         // in the order of the ids given
  std::vector<KernelSideBySide> per_iteration;  // every recorded instance, in the order of the ids given
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
// "per iteration: 4122 -> 2011 kernel launches; GPU 69.10 ms -> 65.00 ms; host enqueue ...; Y: ..."
std::string per_iteration_text(const KernelComparison& comparison, const KernelSideBySide& side_by_side);
nlohmann::json kernel_changes_json(const KernelComparison& comparison);
void print_kernel_changes(const KernelComparison& comparison, bool markdown, std::ostream& out);
std::string kernels_cell(const KernelComparison& comparison, const std::string& instance);

}  // namespace isobench::orchestrator
