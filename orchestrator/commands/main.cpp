// orchestrate: plans sweeps, runs them in fresh worker processes and compares runs. It never
// initialises CUDA; workers own the device.

#include <CLI/CLI.hpp>
#include <iostream>

#include "orchestrator/commands/bisect_command.hpp"
#include "orchestrator/commands/calibrate_command.hpp"
#include "orchestrator/commands/compare_command.hpp"
#include "orchestrator/commands/history_command.hpp"
#include "orchestrator/commands/import_command.hpp"
#include "orchestrator/commands/ir_diff_command.hpp"
#include "orchestrator/commands/kernels_command.hpp"
#include "orchestrator/commands/report_command.hpp"
#include "orchestrator/commands/run_command.hpp"
#include "orchestrator/commands/slurm_command.hpp"
#include "orchestrator/version.hpp"

int main(int argc, char** argv) {
  using namespace isobench::orchestrator;
  CLI::App app{"orchestrate: benchmark runs that tell a regression from noise.\n"
               "  orchestrate [options] SWEEP.yaml      run a sweep (default isolation: process)\n"
               "  orchestrate --resume RUN_DIR          finish an interrupted run\n"
               "  orchestrate ab --baseline X --candidate Y SWEEP.yaml   A/B run of two worker builds\n"
               "  orchestrate ab --pytest FILE --candidate-python P   a pytest-benchmark file, two Python environments\n"
               "  orchestrate ab --script FILE --candidate-python P   a benchmark script timed through do_bench, the same\n"
               "  orchestrate compare A B               compare two runs or sample files\n"
               "  orchestrate ir-diff RUN INSTANCE      the Triton IR an instance launched, baseline against candidate\n"
               "  orchestrate bisect --good REV --bad REV --build CMD --worker PATH SWEEP.yaml   the commit that made it slower\n"
               "  orchestrate calibrate SWEEP.yaml      false-positive rate and power on this machine\n"
               "  orchestrate history add|list|show|regressions   runs across time, change points\n"
               "  orchestrate import --out DIR FILE     Google Benchmark, nvbench, pytest-benchmark JSON as a run\n"
               "  orchestrate report --out DIR [--history FILE] [RUN...]   a static HTML report\n"
               "  orchestrate kernels [--plugin LIB]    list the kernels and their axes\n"
               "  orchestrate --executor slurm --shards N SWEEP.yaml   the sweep over a Slurm job array, merged"};
  app.footer(kExitCodesHelp);
  std::vector<std::string> command_line(argv, argv + argc);
  RunCommand run;
  run.request.command_line = command_line;
  add_run_options(app, run);
  int exit_code = 0;
  register_compare_command(app, exit_code);
  register_ir_diff_command(app, exit_code);
  register_calibrate_command(app, exit_code);
  register_history_command(app, exit_code);
  register_import_command(app, exit_code);
  register_report_command(app, exit_code);
  register_kernels_command(app, exit_code);
  app.set_version_flag("--version", version_line());
  RunCommand ab;
  ab.request.command_line = command_line;
  register_ab_command(app, ab, exit_code);
  register_slurm_command(app, command_line, exit_code);
  register_bisect_command(app, command_line, exit_code);
  app.require_subcommand(0, 1);
  bool parse_only = false;
  app.add_flag("--parse-only", parse_only,
               "check the command line and run nothing: every verb and option exists, every value converts and "
               "passes its option's check; what a verb checks once it starts (the sweep file, say) is not checked. "
               "Exit 0, or 2 naming the problem. It goes before the verb: orchestrate --parse-only ab ...");
  // The main app's parse-complete callback runs after every option and value is parsed and checked, and
  // before any verb's callback: CLI::Success ends the parse there, with exit code 0.
  // tests/tools/test_doc_commands.py checks every command of the README and docs/ this way.
  app.parse_complete_callback([&parse_only] {
    if (parse_only) throw CLI::Success();
  });
  // Every verb turns what it throws into its exit code (exit_code_of); what is left here is the
  // command line's own mistakes, and anything no verb expected, which still gets an exit code.
  return exit_code_of("orchestrate", std::cerr, [&] {
    try {
      app.parse(argc, argv);
    } catch (const CLI::Success& e) {  // --help, --help-all, --version: printed; --parse-only; exit code 0
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      throw UsageError(e.what());
    }
    if (!app.get_subcommands().empty()) return exit_code;
    return run_command(run);
  });
}
