#pragma once
// `orchestrate ir-diff RUN [RUN_B] INSTANCE [--stage S]`: compare/ir_diff.hpp compares, the
// printers print (orchestrator/printers/).

#include <iosfwd>

#include "orchestrator/compare/ir_diff.hpp"

namespace CLI {
class App;
}

namespace isobench::orchestrator {

// Compares and prints; returns the exit code (0 printed, 2 bad input).
int run_ir_diff(const IrDiffRequest& request, std::ostream& out, std::ostream& err);

// Adds the `ir-diff` subcommand; its callback stores run_ir_diff's result in exit_code.
void register_ir_diff_command(CLI::App& app, int& exit_code);

}  // namespace isobench::orchestrator
