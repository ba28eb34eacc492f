#pragma once
// `orchestrate calibrate`: how often does each isolation mode call identical code different
// (false-positive rate of A/A runs), how large a slowdown does it catch (power), how many samples
// does a target power need, and what does each mode cost. See docs/calibration.md.
//
//   orchestrate calibrate --runs K --modes sequential,interleave,process,ab [--real-slowdown 5] SWEEP
//   orchestrate calibrate --resume DIR
//
// Exit codes: 0 every run complete and analysed; 2 bad input (one line on stderr); 3 analysed,
// but some run is not complete; 130 interrupted (finish with --resume DIR).

#include <CLI/CLI.hpp>

namespace isobench::orchestrator {

void register_calibrate_command(CLI::App& app, int& exit_code);

}  // namespace isobench::orchestrator
