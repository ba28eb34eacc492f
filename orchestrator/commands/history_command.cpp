#include "orchestrator/commands/history_command.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "orchestrator/commands/option_checks.hpp"
#include "orchestrator/compare/compare_inputs.hpp"
#include "orchestrator/history/history_store.hpp"
#include "orchestrator/history/run_entry.hpp"
#include "orchestrator/run_directory.hpp"
#include "stats/descriptive.hpp"

namespace isobench::orchestrator {

namespace {

using nlohmann::json;
using history::HistoryStore;

std::string path_of(const HistoryOptions& o) { return o.history.empty() ? HistoryStore::default_path() : o.history; }

std::string format(const char* spec, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, spec, v);
  return buffer;
}

// Kernel times span nanoseconds to seconds; one unit keeps a column comparable by eye.
std::string microseconds(double seconds) { return format("%.4g us", seconds * 1e6); }

std::string percent(double fraction) { return format("%+.2f%%", fraction * 100); }

std::string ratio_text(double r) { return std::isfinite(r) ? format("%.4f", r) : "inf"; }

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// "run 17 (2026-12-01T02:00:00.000Z, label abc123)"
std::string run_text(const history::SeriesPoint& p, std::size_t index) {
  return "run " + std::to_string(index + 1) + " (" + p.started + (p.label.empty() ? "" : ", label " + p.label) + ")";
}

// "CPU X on host (inner 4, timer graph)": the machine, and what the series' runs measured alike.
std::string on(const history::InstanceSeries& s) {
  return s.machine + (s.settings.empty() ? "" : " (" + s.settings + ")");
}

json point_json(const history::SeriesPoint& p, std::size_t index) {
  return {{"run", index + 1}, {"run_id", p.run_id}, {"dir", p.dir}, {"label", p.label}, {"started", p.started},
          {"median", p.median}};
}

// A series as a CI case: failed when a change point is SLOWER, skipped when one is UNCERTAIN (and
// none SLOWER), passed otherwise; its message the change lines `history regressions` prints.
CiCase series_case(const history::InstanceSeries& s, const std::vector<history::SeriesChange>& found,
                   const std::vector<std::string>& lines) {
  using stats::Verdict;
  CiCase c;
  c.name = s.instance + (s.settings.empty() ? "" : " (" + s.settings + ")");  // a series split by settings
  c.group = "isobench.history." + s.machine;
  c.verdict = "no change";
  const history::SeriesChange* worst = nullptr;
  for (const Verdict v : {Verdict::slower, Verdict::uncertain, Verdict::faster, Verdict::same}) {
    for (const auto& f : found)
      if (f.verdict == v && !worst) worst = &f;
  }
  if (worst) c.verdict = stats::to_string(worst->verdict);
  c.status = worst && worst->verdict == Verdict::slower      ? CiCase::Status::failed
             : worst && worst->verdict == Verdict::uncertain ? CiCase::Status::skipped
                                                             : CiCase::Status::passed;
  c.notable = worst && (worst->verdict == Verdict::slower || worst->verdict == Verdict::faster);
  std::string changes;
  for (const auto& line : lines) changes += (changes.empty() ? "" : "; ") + line;
  c.message = c.verdict + ": " + std::to_string(s.points.size()) + " runs on " + on(s) +
              (lines.empty() ? ", no change point" : ": " + changes);
  c.cells = {s.instance, c.notable ? "**" + c.verdict + "**" : c.verdict, on(s), std::to_string(s.points.size()),
             changes};
  c.properties = {{"runs", std::to_string(s.points.size())}};
  if (!s.points.empty()) c.properties.emplace_back("median_last_s", format("%.6g", s.points.back().median));
  if (worst)
    for (const auto& [name, v] : {std::pair{"mean_before_s", worst->point.mean_before},
                                  std::pair{"mean_after_s", worst->point.mean_after}, std::pair{"hl_ratio", worst->ratio.ratio},
                                  std::pair{"hl_lo", worst->ratio.lo}, std::pair{"hl_hi", worst->ratio.hi},
                                  std::pair{"p", worst->point.p_value}})
      c.properties.emplace_back(name, format("%.6g", v));
  return c;
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
    const auto runs = store.runs();
    if (options.json) {
      json j = {{"history", path_of(options)}, {"runs", json::array()}};
      for (const auto& r : runs)
        j["runs"].push_back({{"id", r.id}, {"started", r.started}, {"label", r.label}, {"status", r.status},
                             {"source", r.source}, {"sides", r.sides}, {"instances", r.instances},
                             {"samples", r.samples}, {"machine", r.machine}, {"dir", r.dir}});
      out << dump_json(j, 2) << "\n";
      return 0;
    }
    out << "history " << path_of(options) << ": " << runs.size() << " runs\n";
    for (const auto& r : runs)
      out << r.id << "  " << r.started << "  " << (r.label.empty() ? "-" : r.label) << "  " << r.status << "  "
          << r.source << (r.sides == 2 ? " (A/B)" : "") << "  " << r.instances << " instances, " << r.samples
          << " samples  " << r.machine << "  " << r.dir << "\n";
    return 0;
  });
}

int run_history_show(const HistoryOptions& options, std::ostream& out, std::ostream& err) {
  return exit_code_of("history show", err, [&] {
    if (options.instance.empty()) throw UsageError("needs an instance id");
    HistoryStore store(path_of(options), history::Access::read);
    const auto all = store.series(options.instance, /*with_samples=*/true);
    if (all.empty())
      throw UsageError(path_of(options) + ": no runs of instance \"" + options.instance +
                       "\" (orchestrate history list shows the runs)");
    json j = {{"history", path_of(options)}, {"instance", options.instance}, {"series", json::array()}};
    for (const auto& s : all) {
      const auto changes = history::find_changes(s, options.changes);
      std::vector<const history::SeriesChange*> at(s.points.size(), nullptr);
      for (const auto& c : changes) at[c.point.index] = &c;
      json rows = json::array();
      if (!options.json)
        out << options.instance << (s.side == 1 ? " (candidate side)" : "") << " on " << on(s) << ": "
            << s.points.size() << " runs\n";
      for (std::size_t i = 0; i < s.points.size(); ++i) {
        const auto& p = s.points[i];
        const auto d = stats::describe(p.samples);
        json row = point_json(p, i);
        row["n"] = d.n;
        row["min"] = d.min;
        row["max"] = d.max;
        row["samples"] = p.samples;
        if (at[i]) row["change"] = {{"forward_change", at[i]->point.forward_change()},
                                    {"verdict", stats::to_string(at[i]->verdict)}};
        rows.push_back(row);
        if (!options.json)
          out << "  " << (i + 1) << "  " << p.started << "  " << (p.label.empty() ? "-" : p.label) << "  n " << d.n
              << "  median " << microseconds(p.median) << "  [" << microseconds(d.min) << ", " << microseconds(d.max)
              << "]"
              << (at[i] ? "  <- change " + percent(at[i]->point.forward_change()) + " " +
                              std::string(stats::to_string(at[i]->verdict))
                        : "")
              << "\n";
      }
      j["series"].push_back({{"machine", s.machine}, {"settings", s.settings}, {"side", s.side}, {"runs", rows}});
    }
    if (options.json) out << dump_json(j, 2) << "\n";
    return 0;
  });
}

int run_history_regressions(const HistoryOptions& options, std::ostream& out, std::ostream& err) {
  return exit_code_of("history regressions", err, [&] {
    check_ci_outputs(options.ci);
    HistoryStore store(path_of(options), history::Access::read);
    // Side 0 only: a nightly run has one side, and an A/B run's baseline is the build that was
    // there; its candidate is judged by the A/B run itself.
    std::vector<history::InstanceSeries> all;
    for (auto& s : store.series(options.instance, /*with_samples=*/false))
      if (s.side == 0) all.push_back(std::move(s));
    if (!options.instance.empty() && all.empty())
      throw UsageError(path_of(options) + ": no runs of instance \"" + options.instance + "\"");
    CiReport ci;
    ci.title = "orchestrate history regressions";
    ci.properties = {{"history", path_of(options)}, {"threshold", format("%g", options.changes.threshold)},
                     {"max_p", format("%g", options.changes.detect.max_p)},
                     {"window", std::to_string(options.changes.detect.window)}};
    ci.columns = {"instance", "verdict", "machine", "runs", "change points"};
    std::size_t changes = 0, slower = 0;
    json j = {{"history", path_of(options)}, {"threshold", options.changes.threshold},
              {"max_p", options.changes.detect.max_p}, {"window", options.changes.detect.window},
              {"min_magnitude", options.changes.detect.min_magnitude}, {"confidence", options.changes.confidence},
              {"series", json::array()}};
    std::ostringstream text;
    for (const auto& s : all) {
      const auto found = history::find_changes(s, options.changes);
      json list = json::array();
      std::vector<std::string> lines;
      for (const auto& c : found) {
        const std::size_t at = c.point.index;
        ++changes;
        if (c.verdict == stats::Verdict::slower) ++slower;
        list.push_back({{"run", at + 1}, {"before", point_json(s.points[at - 1], at - 1)},
                        {"after", point_json(s.points[at], at)}, {"mean_before", c.point.mean_before},
                        {"mean_after", c.point.mean_after}, {"forward_change", c.point.forward_change()},
                        {"p", c.point.p_value}, {"hl_ratio", c.ratio.ratio}, {"hl_lo", number(c.ratio.lo)},
                        {"hl_hi", number(c.ratio.hi)}, {"verdict", stats::to_string(c.verdict)}});
        lines.push_back(run_text(s.points[at], at) + " of " + std::to_string(s.points.size()) + ", after " +
                        run_text(s.points[at - 1], at - 1) + ": " + percent(c.point.forward_change()) + " (HL ratio " +
                        ratio_text(c.ratio.ratio) + " [" + ratio_text(c.ratio.lo) + ", " + ratio_text(c.ratio.hi) +
                        "]), p " + format("%.3g", c.point.p_value) + ", " + std::string(stats::to_string(c.verdict)));
        text << s.instance << " on " << on(s) << ": " << lines.back() << "\n";
      }
      ci.cases.push_back(series_case(s, found, lines));
      j["series"].push_back({{"machine", s.machine}, {"settings", s.settings}, {"instance", s.instance}, {"runs", s.points.size()},
                             {"changes", list}});
    }
    const std::string outcome = std::to_string(all.size()) + " series, " + std::to_string(changes) +
                                " change points, " + std::to_string(slower) + " SLOWER (noise floor " +
                                format("%.3g", options.changes.threshold * 100) + "%, max p " +
                                format("%.3g", options.changes.detect.max_p) + ", window " +
                                std::to_string(options.changes.detect.window) + ")";
    if (options.json) {
      j["slower"] = slower;
      out << dump_json(j, 2) << "\n";
    } else {
      out << text.str() << outcome << "\n";
    }
    ci.exit_code = slower ? 1 : 0;
    ci.outcome = outcome + " -> exit " + std::to_string(ci.exit_code);
    write_ci_outputs(options.ci, ci);
    return ci.exit_code;
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
