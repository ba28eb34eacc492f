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

#include <iosfwd>
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

// Prints the comparison; returns the number of (launch, stage) files that differ, in source
// locations only or otherwise.
int print_ir_diff(const IrSide& a, const IrSide& b, const std::vector<std::string>& stages, std::ostream& out);

// Runs the request (commands/ir_diff_command.cpp's entry point); returns the exit code.
int run_ir_diff(const IrDiffRequest& request, std::ostream& out, std::ostream& err);

}  // namespace isobench::orchestrator
