#pragma once
// `orchestrate compare`: is the candidate (B) slower than the baseline (A)?
//
//   orchestrate compare --samples A.txt B.txt   two sample files
//   orchestrate compare RUN_A RUN_B             two run directories, joined by instance id
//   orchestrate compare AB_RUN                  the two sides of one A/B run
//
// The verb maps its command line onto a CompareRequest, prints the finished report
// (orchestrator/compare/comparison.hpp); when it left instances out, it ends with the outcome line
// that says how many and why. Exit codes as
// every verb's (orchestrator/errors.hpp): 0 no verdict named by --fail-on, 1 one is, 2 bad input
// or nothing compared (one line on stderr per problem, e.g. per instance whose samples came from
// GPUs --gpu-match does not allow).

#include <iosfwd>
#include <optional>

#include "orchestrator/commands/ci_outputs.hpp"
#include "orchestrator/compare/comparison.hpp"
#include "orchestrator/printers/printer.hpp"

namespace CLI {
class App;
}

namespace isobench::orchestrator {

// The options compare and ab share: --alpha, --threshold, --confidence, --fail-on.
void add_verdict_options(CLI::App& app, VerdictRule& rule);

// The verb's command line as data: what to compare, the verdict rule, and how to print it.
struct CompareOptions : CompareRequest {
  Format format = Format::table;
  CiOutputs ci;  // --junit, --summary
};

// Prints the outcome line, "outcome: 12 compared: 2 SLOWER, 1 FASTER, 9 SAME -> exit 1", where `format`
// puts it: the last line of a table or of Markdown; stderr beside CSV or no output (machine
// formats stay parseable). JSON carries it as "outcome" (without the exit code).
void print_outcome_line(const ComparisonReport& report, int exit_code, std::optional<Format> format,
                        std::ostream& out, std::ostream& err);

// Compares, prints in the options' format and returns the exit code (errors as one line each on
// `err`).
int run_compare(const CompareOptions& options, std::ostream& out, std::ostream& err);

// Adds the `compare` subcommand; its callback stores its exit code in exit_code.
void register_compare_command(CLI::App& app, int& exit_code);

}  // namespace isobench::orchestrator
