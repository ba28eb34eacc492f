#pragma once
// `orchestrate ir-diff`: the IR of the Triton kernels one instance launched, side A against side
// B (python/isobench/triton_ir.py records it into each instance's artifact folder:
// triton/kernels.json and triton/<order>-<name>/<name>.<stage>). Per launch: the launch options
// that differ (kernels.json) and, per stage, whether its files are identical, differ only in their
// source locations (compare/ir_locations.hpp: the same kernel compiled from another folder, or
// moved by a line; the files each side names are printed), or differ: then a unified diff, made
// by `diff -u` (GNU diffutils), of the two files without their source locations. Launches with a
// real difference come first, each group in launch order. `compare` names the instances whose
// TTGIR differs; this prints why.
//
//   orchestrate ir-diff RUN INSTANCE            an A/B run: baseline against candidate
//   orchestrate ir-diff RUN_A RUN_B INSTANCE    two runs: side 0 of each
//   --stage ttgir (default) | ttir | llir | ptx | sass | all
//
// Exit codes: 0 printed (whether or not anything differs: a difference is not a regression);
// 2 bad input (a run without artifacts, an instance that is not in the run or has no Triton IR on
// a side, an unknown stage, no `diff` on PATH): one line naming what.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isobench::orchestrator {

inline const std::vector<std::string> kIrStages = {"ttir", "ttgir", "llir", "ptx", "sass"};

struct IrDiffRequest {
  std::vector<std::string> runs;  // one A/B run or two runs
  std::string instance;
  std::string stage = "ttgir";    // one of kIrStages, or "all"
};

// One side's record of an instance: its artifact folder and its triton/kernels.json.
struct IrSide {
  std::string folder;      // the instance's artifact folder, absolute
  nlohmann::json index;    // triton/kernels.json
  std::string label;       // "A (baseline)", "B", ... for headers and diff labels
};

// The side's record of `instance`; UsageError naming the run and the instance when there is none.
IrSide read_ir_side(const std::string& run_dir, unsigned side, const std::string& instance, const std::string& label);

// The launch options that differ between two kernels.json launches (every field but "files"
// and "order"), as "name: a -> b" lines.
std::vector<std::string> launch_option_changes(const nlohmann::json& a, const nlohmann::json& b);

// One stage of one launch, side A against side B.
struct IrStageDiff {
  enum class Kind { identical, source_locations, differs, only_in };
  std::string stage;
  Kind kind = Kind::identical;
  std::string sources_a, sources_b;  // source_locations: the source files each side's IR names
  std::string diff;                  // differs: diff -u of the two files without their source locations
  std::string only_in;               // only_in: the label of the side that has the file
};

// One kernel launch, by its order, side A against side B.
struct IrLaunchDiff {
  long long order = 0;
  std::string name;
  std::string only_in;  // the label of the one side that launched it; empty when both did
  std::vector<std::string> option_changes;  // launch_option_changes
  std::vector<IrStageDiff> stages;          // the stages either side recorded, in the order asked for
  bool real = false;  // launched by one side alone, or a stage that differs beyond source locations
};

// One instance's Triton IR, side A against side B: what `orchestrate ir-diff` prints
// (orchestrator/printers/).
struct IrDiffReport {
  struct Side {
    std::string label, folder;
  };
  struct Count {
    int compared = 0, real = 0, locations = 0;
  };
  std::string instance;
  Side a, b;
  std::vector<std::string> stages;
  std::vector<IrLaunchDiff> launches;  // with a real difference first, each group in launch order
  std::map<std::string, Count> counts;  // per stage that either side recorded
  std::map<std::string, std::vector<std::string>> only_in;  // side label -> "<order> <name>" of its own launches
};

// The two sides compared stage by stage (`diff` run where a stage differs beyond its source
// locations); UsageError when diff fails.
IrDiffReport diff_ir(const IrSide& a, const IrSide& b, const std::vector<std::string>& stages);

// The request's sides read and compared; UsageError for a stage, run or instance it cannot
// compare (one line naming it).
IrDiffReport diff_ir(const IrDiffRequest& request);

}  // namespace isobench::orchestrator
