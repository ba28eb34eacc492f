#include "orchestrator/commands/ir_diff_command.hpp"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include "orchestrator/errors.hpp"
#include "orchestrator/printers/printer.hpp"

namespace isobench::orchestrator {

int run_ir_diff(const IrDiffRequest& request, std::ostream& out, std::ostream& err) {
  return exit_code_of("orchestrate ir-diff", err, [&] {
    make_printer(Format::table)->ir_diff(out, diff_ir(request));
    return exit_ok;
  });
}

void register_ir_diff_command(CLI::App& app, int& exit_code) {
  auto request = std::make_shared<IrDiffRequest>();
  auto positionals = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "ir-diff",
      "The Triton IR one instance launched, baseline against candidate: RUN INSTANCE (an A/B run) or "
      "RUN_A RUN_B INSTANCE (side 0 of each). Per kernel launch: the launch options that differ and a "
      "unified diff of the stage (diff -u). Exit code 0: printed; 2: bad input (one line).");
  cmd->add_option("runs_and_instance", *positionals, "RUN INSTANCE, or RUN_A RUN_B INSTANCE")->required();
  cmd->add_option("--stage", request->stage, "ttgir (default), ttir, llir, ptx, sass, or all");
  cmd->callback([request, positionals, &exit_code] {
    if (positionals->size() < 2 || positionals->size() > 3) {
      std::cerr << "orchestrate ir-diff: give RUN INSTANCE or RUN_A RUN_B INSTANCE (got " << positionals->size()
                << " arguments)\n";
      exit_code = exit_bad_input;
      return;
    }
    request->instance = positionals->back();
    request->runs.assign(positionals->begin(), positionals->end() - 1);
    exit_code = run_ir_diff(*request, std::cout, std::cerr);
  });
}

}  // namespace isobench::orchestrator
