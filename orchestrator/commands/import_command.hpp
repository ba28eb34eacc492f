#pragma once

// `orchestrate import --out DIR FILE`: another tool's JSON results (Google Benchmark, nvbench,
// pytest-benchmark) as a run directory that compare, history and report read like any run
// (docs/history.md, "Importing other tools' results").
//
// Exit codes: 0 imported, 2 bad input (one line naming the file and the field; nothing written).

#include <iosfwd>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace isobench::orchestrator {

struct ImportOptions {
  std::string file;
  std::string out;
  std::string format = "auto";  // auto, google-benchmark, nvbench, pytest-benchmark
  std::vector<std::string> command_line;
};

int run_import(const ImportOptions& options, std::ostream& out, std::ostream& err);

// Adds the `import` subcommand; its callback stores run_import's result in exit_code.
void register_import_command(CLI::App& app, int& exit_code);

}  // namespace isobench::orchestrator
