// `orchestrate history`'s listings: the runs of a history, an instance's series, the change
// points found in the series; as text (Printer's own rendering) and as JSON (the JSON printer's).
#include "orchestrator/format/numbers.hpp"
#include "orchestrator/printers/printers.hpp"
#include "orchestrator/run_directory.hpp"
#include "stats/descriptive.hpp"

namespace isobench::orchestrator {

namespace {

using nlohmann::json;

// Kernel times span nanoseconds to seconds; one unit keeps a column comparable by eye.
std::string microseconds(double seconds) { return format("%.4g us", seconds * 1e6); }

std::string percent(double fraction) { return format("%+.2f%%", fraction * 100); }

// "run 17 (2026-12-01T02:00:00.000Z, label abc123)"
std::string run_text(const history::SeriesPoint& p, std::size_t index) {
  return "run " + std::to_string(index + 1) + " (" + p.started + (p.label.empty() ? "" : ", label " + p.label) + ")";
}

json point_json(const history::SeriesPoint& p, std::size_t index) {
  return {{"run", index + 1}, {"run_id", p.run_id}, {"dir", p.dir}, {"label", p.label}, {"started", p.started},
          {"median", p.median}};
}

// The change point at each run of the series, or null.
std::vector<const history::SeriesChange*> changes_at(const SeriesChanges& s) {
  std::vector<const history::SeriesChange*> at(s.series->points.size(), nullptr);
  for (const auto& c : s.changes) at[c.point.index] = &c;
  return at;
}

}  // namespace

std::size_t HistorySeries::change_points() const {
  std::size_t n = 0;
  for (const auto& s : series) n += s.changes.size();
  return n;
}

std::size_t HistorySeries::slower() const {
  std::size_t n = 0;
  for (const auto& s : series)
    for (const auto& c : s.changes) n += c.verdict == stats::Verdict::slower;
  return n;
}

std::string series_machine(const history::InstanceSeries& s) {
  return s.machine + (s.settings.empty() ? "" : " (" + s.settings + ")");
}

std::string change_line(const history::InstanceSeries& s, const history::SeriesChange& c) {
  const std::size_t at = c.point.index;
  return run_text(s.points[at], at) + " of " + std::to_string(s.points.size()) + ", after " +
         run_text(s.points[at - 1], at - 1) + ": " + percent(c.point.forward_change()) + " (HL ratio " +
         format_ratio(c.ratio.ratio) + " [" + format_ratio(c.ratio.lo) + ", " + format_ratio(c.ratio.hi) + "]), p " +
         format("%.3g", c.point.p_value) + ", " + std::string(stats::to_string(c.verdict));
}

std::string regressions_outcome(const HistorySeries& searched) {
  const auto& o = searched.options;
  return std::to_string(searched.series.size()) + " series, " + std::to_string(searched.change_points()) +
         " change points, " + std::to_string(searched.slower()) + " SLOWER (noise floor " +
         format("%.3g", o.threshold * 100) + "%, max p " + format("%.3g", o.detect.max_p) + ", window " +
         std::to_string(o.detect.window) + ")";
}

void Printer::history_runs(std::ostream& out, const std::string& history,
                           const std::vector<history::StoredRun>& runs) const {
  out << "history " << history << ": " << runs.size() << " runs\n";
  for (const auto& r : runs)
    out << r.id << "  " << r.started << "  " << (r.label.empty() ? "-" : r.label) << "  " << r.status << "  "
        << r.source << (r.sides == 2 ? " (A/B)" : "") << "  " << r.instances << " instances, " << r.samples
        << " samples  " << r.machine << "  " << r.dir << "\n";
}

void Printer::history_series(std::ostream& out, const HistorySeries& shown) const {
  for (const auto& sc : shown.series) {
    const auto& s = *sc.series;
    const auto at = changes_at(sc);
    out << shown.instance << (s.side == 1 ? " (candidate side)" : "") << " on " << series_machine(s) << ": "
        << s.points.size() << " runs\n";
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const auto& p = s.points[i];
      const auto d = stats::describe(p.samples);
      out << "  " << (i + 1) << "  " << p.started << "  " << (p.label.empty() ? "-" : p.label) << "  n " << d.n
          << "  median " << microseconds(p.median) << "  [" << microseconds(d.min) << ", " << microseconds(d.max)
          << "]"
          << (at[i] ? "  <- change " + percent(at[i]->point.forward_change()) + " " +
                          std::string(stats::to_string(at[i]->verdict))
                    : "")
          << "\n";
    }
  }
}

void Printer::history_regressions(std::ostream& out, const HistorySeries& searched) const {
  for (const auto& sc : searched.series)
    for (const auto& c : sc.changes)
      out << sc.series->instance << " on " << series_machine(*sc.series) << ": " << change_line(*sc.series, c) << "\n";
  out << regressions_outcome(searched) << "\n";
}

json history_runs_json(const std::string& history, const std::vector<history::StoredRun>& runs) {
  json j = {{"history", history}, {"runs", json::array()}};
  for (const auto& r : runs)
    j["runs"].push_back({{"id", r.id}, {"started", r.started}, {"label", r.label}, {"status", r.status},
                         {"source", r.source}, {"sides", r.sides}, {"instances", r.instances},
                         {"samples", r.samples}, {"machine", r.machine}, {"dir", r.dir}});
  return j;
}

json history_series_json(const HistorySeries& shown) {
  json j = {{"history", shown.history}, {"instance", shown.instance}, {"series", json::array()}};
  for (const auto& sc : shown.series) {
    const auto& s = *sc.series;
    const auto at = changes_at(sc);
    json rows = json::array();
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
    }
    j["series"].push_back({{"machine", s.machine}, {"settings", s.settings}, {"side", s.side}, {"runs", rows}});
  }
  return j;
}

json history_regressions_json(const HistorySeries& searched) {
  const auto& o = searched.options;
  json j = {{"history", searched.history}, {"threshold", o.threshold},
            {"max_p", o.detect.max_p},     {"window", o.detect.window},
            {"min_magnitude", o.detect.min_magnitude}, {"confidence", o.confidence},
            {"series", json::array()},     {"slower", searched.slower()}};
  for (const auto& sc : searched.series) {
    const auto& s = *sc.series;
    json list = json::array();
    for (const auto& c : sc.changes) {
      const std::size_t at = c.point.index;
      list.push_back({{"run", at + 1}, {"before", point_json(s.points[at - 1], at - 1)},
                      {"after", point_json(s.points[at], at)}, {"mean_before", c.point.mean_before},
                      {"mean_after", c.point.mean_after}, {"forward_change", c.point.forward_change()},
                      {"p", c.point.p_value}, {"hl_ratio", c.ratio.ratio}, {"hl_lo", finite_or_null(c.ratio.lo)},
                      {"hl_hi", finite_or_null(c.ratio.hi)}, {"verdict", stats::to_string(c.verdict)}});
    }
    j["series"].push_back({{"machine", s.machine}, {"settings", s.settings}, {"instance", s.instance},
                           {"runs", s.points.size()}, {"changes", list}});
  }
  return j;
}

}  // namespace isobench::orchestrator
