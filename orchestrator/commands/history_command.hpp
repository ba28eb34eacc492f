#pragma once

// `orchestrate history`: runs kept across time in one SQLite file (docs/history.md).
//
//   orchestrate history add [--label L] RUN...   add runs (again: nothing changes)
//   orchestrate history list                     the runs, oldest first
//   orchestrate history show INSTANCE            one instance's series, change points marked
//   orchestrate history regressions              every change point with its size and verdict
//
// --history FILE chooses the file (default $XDG_DATA_HOME/isobench/history.sqlite).
// Exit codes: 0 done (regressions: no SLOWER change), 1 regressions found a SLOWER change,
// 2 bad input (one line naming the file and the problem; add then stores nothing).

#include <iosfwd>
#include <string>
#include <vector>

#include "orchestrator/commands/ci_outputs.hpp"
#include "orchestrator/history/series_changes.hpp"

namespace CLI {
class App;
}

namespace isobench::orchestrator {

struct HistoryOptions {
  std::string history;  // the file; empty: HistoryStore::default_path()
  std::string label;    // add: given to every run added
  std::vector<std::string> runs;
  std::string instance;  // show: the instance; regressions: only this one (empty: all)
  bool json = false;
  history::ChangeOptions changes;
  CiOutputs ci;  // regressions: --junit, --summary
};

int run_history_add(const HistoryOptions& options, std::ostream& out, std::ostream& err);
int run_history_list(const HistoryOptions& options, std::ostream& out, std::ostream& err);
int run_history_show(const HistoryOptions& options, std::ostream& out, std::ostream& err);
int run_history_regressions(const HistoryOptions& options, std::ostream& out, std::ostream& err);

// The change-point options shared by `history regressions` and `report`.
void add_change_options(CLI::App& cmd, history::ChangeOptions& options);

// Adds the `history` subcommand and its four; the callbacks store their exit code in exit_code.
void register_history_command(CLI::App& app, int& exit_code);

}  // namespace isobench::orchestrator
