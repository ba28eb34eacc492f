#pragma once
// The verbs that run sweeps: `orchestrate [options] SWEEP` plans and runs a sweep in the chosen
// isolation mode and prints its summary; `orchestrate --resume RUN_DIR` finishes a run;
// `orchestrate ab --baseline X --candidate Y SWEEP` runs two builds interleaved and prints
// verdicts. Each maps its command line onto a RunRequest (orchestrator/run/run_request.hpp),
// calls run() and maps the result onto the exit-code contract (orchestrator/errors.hpp).

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "orchestrator/commands/ci_outputs.hpp"
#include "orchestrator/printers/printer.hpp"
#include "orchestrator/run/run_request.hpp"
#include "orchestrator/sweep/pytest_collection.hpp"

namespace isobench::orchestrator {

struct RunCommand {
  RunRequest request;
  std::optional<Format> format = Format::table;  // nullopt: --format none
  CiOutputs ci;  // ab: --junit, --summary
  bool fixed_n = false;  // ab --fixed-n: no sequential sampling by default (RunRequest::sequential_by_default)
  PytestSuite pytest;    // ab --pytest: the suite the run's sweep is made of (RunRequest::made_sweep)
  ScriptSuite script;    // ab --script: the same for a benchmark script
};

// Adds the run options to the top-level app (or to the `ab` subcommand).
void add_run_options(CLI::App& app, RunCommand& command);

// Adds one option per setting of the settings table (--samples, --warmup, --inner, --timer,
// --idle-gap-ms, ...), but those named in `except` (`calibrate` sets isolation and slowdowns
// itself); each overrides the sweep and is checked by the setting's rule when the sweep loads.
void add_setting_options(CLI::App& app, SettingsOverrides& overrides, const std::vector<std::string>& except);

// Adds `orchestrate ab --baseline X --candidate Y SWEEP`; its callback stores the exit code.
void register_ab_command(CLI::App& app, RunCommand& command, int& exit_code);

// Runs, prints, and returns the exit code: 0 every sample measured (and, A/B, no verdict named by
// --fail-on); 1 an A/B verdict named by --fail-on; 2 bad input (nothing run, no run directory
// left); 3 samples missing after retries, or the run broke off; 130 interrupted.
int run_command(const RunCommand& command);

// The exit codes, as --help shows them.
inline constexpr const char* kExitCodesHelp =
    "Exit codes: 0 ran, nothing beyond the --fail-on rule; 1 a regression by the --fail-on rule (and nothing "
    "else); 2 bad input or usage, found before anything ran (no run directory left); 3 the measurement failed "
    "(samples missing after retries; --resume finishes it); 130 interrupted (--resume finishes it).";

}  // namespace isobench::orchestrator
