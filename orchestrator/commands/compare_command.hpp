#pragma once

// `orchestrate compare`: is the candidate (B) slower than the baseline (A)?
//
//   orchestrate compare --samples A.txt B.txt   two sample files
//   orchestrate compare RUN_A RUN_B             two run directories, joined by instance id
//
// Exit codes: 0 no failing verdict, 1 a verdict named by --fail-on (default: any SLOWER),
// 2 bad input (one line on stderr naming file, line and problem; or, for run directories whose
// samples of an instance came from GPUs --gpu-match does not allow, one line per such instance).

#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace isobench::orchestrator {

enum class CompareFormat { terminal, markdown, csv, json };
enum class FailOn { slower, faster, any_change, never };
// Which GPUs the two sides of an instance may have been measured on, where both sides' samples
// name theirs: one and the same GPU (uuid), one GPU model (model), or any.
enum class GpuMatch { uuid, model, any };

struct CompareOptions {
  std::vector<std::string> samples;  // --samples A B: two sample files
  std::vector<std::string> runs;     // RUN_A RUN_B: two run directories
  double alpha = 0.001;              // significance after Holm's correction
  double threshold = 0.02;           // noise floor: SLOWER needs the interval above 1+threshold
  double confidence = 0.95;          // of the Hodges-Lehmann interval
  CompareFormat format = CompareFormat::terminal;
  FailOn fail_on = FailOn::slower;
  GpuMatch gpu_match = GpuMatch::uuid;
};

// Does the comparison and prints it; returns the process exit code (0, 1 or 2).
int run_compare(const CompareOptions& options, std::ostream& out, std::ostream& err);

// Adds the `compare` subcommand; its callback stores run_compare's result in exit_code.
void register_compare_command(CLI::App& app, int& exit_code);

}  // namespace isobench::orchestrator
