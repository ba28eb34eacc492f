#include "orchestrator/commands/history_command.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "orchestrator/commands/option_checks.hpp"
#include "orchestrator/errors.hpp"
#include "orchestrator/history/history_store.hpp"
#include "orchestrator/history/run_entry.hpp"
#include "orchestrator/printers/printer.hpp"

namespace isobench::orchestrator {

namespace {

using history::HistoryStore;

std::string path_of(const HistoryOptions& o) { return o.history.empty() ? HistoryStore::default_path() : o.history; }

std::unique_ptr<Printer> printer_of(const HistoryOptions& o) { return make_printer(o.json ? Format::json : Format::table); }

// The series, each with the change points found in it.
HistorySeries series_with_changes(const HistoryOptions& options, const std::vector<history::InstanceSeries>& all) {
  HistorySeries found{path_of(options), options.instance, options.changes, {}};
  for (const auto& s : all) found.series.push_back({&s, history::find_changes(s, options.changes)});
  return found;
}

}  // namespace

int run_history_add(const HistoryOptions& options, std::ostream& out, std::ostream& err) {
  return exit_code_of("history add", err, [&] {
    if (options.runs.empty()) throw UsageError("needs at least one run directory");
    // Every run is read before the file is touched: one bad run stores nothing.
    std::vector<history::RunEntry> entries;
    for (const auto& dir : options.runs) entries.push_back(history::read_run_entry(dir, options.label, err));
    HistoryStore store(path_of(options), history::Access::add);
    const auto outcomes = store.add(entries);
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto& e = entries[i];
      std::size_t samples = 0;
      for (const auto& s : e.series) samples += s.samples.size();
      const char* what = outcomes[i] == history::AddOutcome::added     ? "added"
                         : outcomes[i] == history::AddOutcome::updated ? "updated (new samples since it was added)"
                                                                       : "already in the history, unchanged";
      out << e.dir << ": " << what << ": " << e.started << ", " << samples << " samples, machine " << e.machine.key
          << "\n";
      if (e.status != "complete") err << "history add: note: " << e.dir << ": status " << e.status << "\n";
    }
    return 0;
  });
}

int run_history_list(const HistoryOptions& options, std::ostream& out, std::ostream& err) {
  return exit_code_of("history list", err, [&] {
    HistoryStore store(path_of(options), history::Access::read);
    printer_of(options)->history_runs(out, path_of(options), store.runs());
    return 0;
  });
}

int run_history_show(const HistoryOptions& options, std::ostream& out, std::ostream& err) {
  return exit_code_of("history show", err, [&] {
    if (options.instance.empty()) throw UsageError("needs an instance id");
    HistoryStore store(path_of(options), history::Access::read);
    auto all = store.series(options.instance, /*with_samples=*/true);
    if (all.empty())
      throw UsageError(path_of(options) + ": no runs of instance \"" + options.instance +
                       "\" (orchestrate history list shows the runs)");
    printer_of(options)->history_series(out, series_with_changes(options, all));
    return 0;
  });
}

int run_history_regressions(const HistoryOptions& options, std::ostream& out, std::ostream& err) {
  return exit_code_of("history regressions", err, [&] {
    check_ci_outputs(options.ci, {{"the history", path_of(options), false}});
    HistoryStore store(path_of(options), history::Access::read);
    // Side 0 only: a nightly run has one side, and an A/B run's baseline is the build that was
    // there; its candidate is judged by the A/B run itself.
    std::vector<history::InstanceSeries> all;
    for (auto& s : store.series(options.instance, /*with_samples=*/false))
      if (s.side == 0) all.push_back(std::move(s));
    if (!options.instance.empty() && all.empty())
      throw UsageError(path_of(options) + ": no runs of instance \"" + options.instance + "\"");
    const HistorySeries searched = series_with_changes(options, all);
    const int code = searched.slower() ? 1 : 0;
    printer_of(options)->history_regressions(out, searched);
    write_ci_outputs(options.ci, ci_report(searched, code));
    return code;
  });
}

void add_change_options(CLI::App& cmd, history::ChangeOptions& o) {
  cmd.add_option("--threshold", o.threshold,
                 "noise floor as a fraction: a change is SLOWER when its whole Hodges-Lehmann interval lies above "
                 "1+threshold (as compare's)")
      ->capture_default_str();
  cmd.add_option("--max-p", o.detect.max_p, "significance of a change point (Otava's max_pvalue)")->capture_default_str();
  cmd.add_option("--window", o.detect.window, "runs per E-divisive window (Otava's window_len)")
      ->check(whole_number())
      ->capture_default_str();
  cmd.add_option("--min-magnitude", o.detect.min_magnitude,
                 "keep a change point whose relative change exceeds this even when its p is larger (Otava's "
                 "min_magnitude)")
      ->capture_default_str();
  cmd.add_option("--confidence", o.confidence, "confidence of the Hodges-Lehmann interval of a change")
      ->capture_default_str();
}

void register_history_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<HistoryOptions>();
  CLI::App* cmd = app.add_subcommand(
      "history",
      "Runs kept across time in one SQLite file: add runs, list them, show an instance's series, and find the "
      "change points of every series (E-divisive means with a t test, as Apache Otava). See docs/history.md");
  cmd->require_subcommand(1);
  cmd->fallthrough();
  cmd->add_option("--history", options->history,
                  "the history file (default $XDG_DATA_HOME/isobench/history.sqlite, or "
                  "~/.local/share/isobench/history.sqlite)")
      ->type_name("FILE");
  auto* add = cmd->add_subcommand("add", "add run directories (orchestrate runs or imports); adding one again changes "
                                         "nothing, and a run resumed since gets its new samples. Exit 2 on a bad run: "
                                         "then nothing is stored");
  add->add_option("runs", options->runs, "run directories")->required()->type_name("RUN...");
  add->add_option("--label", options->label, "a label for these runs, e.g. the commit they measured");
  add->callback([options, &exit_code] { exit_code = run_history_add(*options, std::cout, std::cerr); });
  auto* list = cmd->add_subcommand("list", "the runs in the history, oldest first");
  list->add_flag("--json", options->json, "print JSON");
  list->callback([options, &exit_code] { exit_code = run_history_list(*options, std::cout, std::cerr); });
  auto* show = cmd->add_subcommand("show", "one instance's runs on each machine, with their samples and change points");
  show->add_option("instance", options->instance, "the instance id, as plan.json spells it")->required();
  show->add_flag("--json", options->json, "print JSON (every sample)");
  add_change_options(*show, options->changes);
  show->callback([options, &exit_code] { exit_code = run_history_show(*options, std::cout, std::cerr); });
  auto* regressions = cmd->add_subcommand(
      "regressions",
      "the change points of every instance's series of run medians, per machine, with their size, Hodges-Lehmann "
      "interval and the runs before and after. Exit code 1 when one is SLOWER beyond the noise floor");
  regressions->add_option("--instance", options->instance, "only this instance");
  regressions->add_flag("--json", options->json, "print JSON");
  add_change_options(*regressions, options->changes);
  add_ci_output_options(*regressions, options->ci);
  regressions->callback([options, &exit_code] { exit_code = run_history_regressions(*options, std::cout, std::cerr); });
}

}  // namespace isobench::orchestrator
