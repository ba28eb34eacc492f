#pragma once
// `orchestrate bisect --good REV --bad REV --build CMD (--worker PATH | --plugin PATH |
// --python-path DIR) SWEEP`: the first commit between GOOD and BAD that made the sweep's
// instances slower (orchestrator/bisect/bisection.hpp; docs/ci.md, "Bisection").

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace isobench::orchestrator {

// Adds the verb; its callback stores the exit code: 0 every walked instance named (or none
// regressed), 2 bad input (nothing built or measured, no directory left), 3 could not decide
// (or a step's run failed; --resume carries on), 130 interrupted (--resume carries on).
void register_bisect_command(CLI::App& app, const std::vector<std::string>& command_line, int& exit_code);

}  // namespace isobench::orchestrator
