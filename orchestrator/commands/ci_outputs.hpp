#pragma once
// --junit FILE and --summary FILE, for ab, compare and history regressions: the verdicts as files
// a CI job shows (orchestrator/printers/ci_printers.hpp). The paths are checked before anything
// is measured (bad input, exit code 2); the files are written when the verb has its result.

#include <string>

#include "orchestrator/printers/ci_report.hpp"

namespace CLI {
class App;
}

namespace isobench::orchestrator {

struct CiOutputs {
  std::string junit;    // JUnit XML
  std::string summary;  // Markdown: the step summary and a pull-request comment
  bool any() const { return !junit.empty() || !summary.empty(); }
};

void add_ci_output_options(CLI::App& app, CiOutputs& outputs);

// Throws UsageError naming the option when a path cannot be written: its folder does not exist
// or it is a folder.
void check_ci_outputs(const CiOutputs& outputs);

// Writes the files asked for (each replaced whole); UsageError naming the file when one cannot be
// written.
void write_ci_outputs(const CiOutputs& outputs, const CiReport& report);

}  // namespace isobench::orchestrator
