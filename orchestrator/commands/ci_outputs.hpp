#pragma once
// --junit FILE and --summary FILE, for ab, compare and history regressions: the verdicts as files
// a CI job shows (orchestrator/printers/ci_printers.hpp). The paths are checked before anything
// is measured (bad input, exit code 2); the files are written when the verb has its result.

#include <string>
#include <vector>

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

// What the verb reads or writes besides its outputs, which no output may replace: a file read
// (the sweep, a sample file, a history) or a run directory read or written (an output inside one
// would replace or add to the run's own files).
struct GuardedPath {
  std::string what;  // "the sweep", "run directory", "the run directory this run writes"
  std::string path;
  bool directory = false;
};

// Throws UsageError (one line naming the option, its path and what is wrong) when an output
// cannot be written or would overwrite what the verb reads or writes: its folder does not exist,
// cannot be written (found by making a file there now, not after the run) or it is a folder; it
// is one of `guarded`'s files or lies inside one of its directories; one path is given for
// two outputs. Called before anything is measured.
void check_ci_outputs(const CiOutputs& outputs, const std::vector<GuardedPath>& guarded = {});

// The same for one more output file (`flag` names it).
void check_output_path(const std::string& flag, const std::string& path, const std::vector<GuardedPath>& guarded);

// A directory a verb will make (run --out): UsageError when it is one of `guarded` or lies inside
// one of its directories.
void check_output_dir(const std::string& flag, const std::string& dir, const std::vector<GuardedPath>& guarded);

// Writes the files asked for, each whole: into a temporary file beside it, renamed over it once
// complete, so that a failed write leaves what was there. A path that is a symbolic link is
// written through: its target is replaced, in the target's folder, and the link kept. UsageError
// naming the file when one cannot be written.
void write_ci_outputs(const CiOutputs& outputs, const CiReport& report);

}  // namespace isobench::orchestrator
