#include "orchestrator/report/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "orchestrator/compare/comparison.hpp"
#include "orchestrator/compare/compare_inputs.hpp"
#include "orchestrator/history/history_store.hpp"
#include "orchestrator/printers/svg_chart.hpp"
#include "orchestrator/run_directory.hpp"
#include "stats/descriptive.hpp"

namespace isobench::orchestrator::report {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string format(const char* spec, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, spec, v);
  return buffer;
}

std::string us(double seconds) { return format("%.4g", seconds * 1e6); }

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// An SVG document inline in HTML: without its XML declaration.
std::string inline_svg(std::string svg) {
  if (svg.rfind("<?xml", 0) == 0) svg.erase(0, svg.find('\n') + 1);
  return svg;
}

// About five round ticks over [lo, hi].
std::vector<std::pair<double, std::string>> ticks(double lo, double hi) {
  const double raw = (hi - lo) / 5, magnitude = std::pow(10, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  std::vector<std::pair<double, std::string>> out;
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push_back({v, format("%g", v)});
  return out;
}

std::string series_chart(const history::InstanceSeries& s, const std::vector<history::SeriesChange>& changes) {
  LineChart chart;
  chart.title = s.instance;
  const double n = static_cast<double>(s.points.size());
  chart.x = {"run (oldest first)", 0.5, n + 0.5, false, {}};
  const int every = std::max(1, static_cast<int>(std::ceil(n / 15)));
  for (int i = 1; i <= static_cast<int>(n); i += every) chart.x.ticks.push_back({i, std::to_string(i)});
  LineSeries samples{"samples", {}, false, 5, true, 2.2};
  LineSeries medians{"median of each run", {}, false, 0};
  double lo = INFINITY, hi = -INFINITY;
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    for (double v : s.points[i].samples) {
      samples.points.push_back({static_cast<double>(i + 1), v * 1e6});
      lo = std::min(lo, v * 1e6);
      hi = std::max(hi, v * 1e6);
    }
    medians.points.push_back({static_cast<double>(i + 1), s.points[i].median * 1e6});
  }
  const double pad = std::max((hi - lo) * 0.08, hi * 1e-3);
  chart.y = {"time per launch (us)", std::max(0.0, lo - pad), hi + pad, false, ticks(std::max(0.0, lo - pad), hi + pad)};
  chart.series = {samples, medians};
  for (const auto& c : changes)
    chart.markers.push_back({static_cast<double>(c.point.index) + 0.5,
                             format("%+.1f%% ", c.point.forward_change() * 100) + std::string(stats::to_string(c.verdict))});
  chart.marker_legend = "change point";
  return inline_svg(render_svg(chart));
}

void history_section(const ReportInputs& in, std::ostream& html) {
  history::HistoryStore store(in.history, history::Access::read);
  const auto all = store.series("", /*with_samples=*/true);
  html << "<h2>History</h2>\n<p>" << xml_escape(in.history) << ": " << store.runs().size()
       << " runs. Change points: E-divisive means with a t test as Apache Otava (max p "
       << format("%g", in.changes.detect.max_p) << ", window " << in.changes.detect.window
       << "); a change is SLOWER when its Hodges-Lehmann interval of run medians lies above 1 + "
       << format("%g", in.changes.threshold) << ".</p>\n";
  for (const auto& s : all) {
    if (s.side != 0) continue;  // as history regressions: nightly series are side 0
    const auto changes = history::find_changes(s, in.changes);
    html << "<section class=\"series\" data-instance=\"" << xml_escape(s.instance) << "\">\n<h3>" << xml_escape(s.instance)
         << "</h3>\n<p class=\"machine\">" << xml_escape(s.machine)
         << (s.settings.empty() ? "" : " (" + xml_escape(s.settings) + ")") << ", " << s.points.size() << " runs, "
         << changes.size() << " change points</p>\n"
         << series_chart(s, changes);
    if (!changes.empty()) {
      html << "<table><tr><th>first run after</th><th>run before</th><th>change of means</th><th>HL ratio</th>"
              "<th>interval</th><th>p</th><th>verdict</th></tr>\n";
      for (const auto& c : changes) {
        const auto& after = s.points[c.point.index];
        const auto& before = s.points[c.point.index - 1];
        html << "<tr><td>" << c.point.index + 1 << " (" << xml_escape(after.started) << " " << xml_escape(after.label)
             << ")</td><td>" << c.point.index << " (" << xml_escape(before.started) << " " << xml_escape(before.label)
             << ")</td><td>" << format("%+.2f%%", c.point.forward_change() * 100) << "</td><td>"
             << format("%.4f", c.ratio.ratio) << "</td><td>[" << format("%.4f", c.ratio.lo) << ", "
             << format("%.4f", c.ratio.hi) << "]</td><td>" << format("%.3g", c.point.p_value) << "</td><td class=\"v-"
             << stats::to_string(c.verdict) << "\">" << stats::to_string(c.verdict) << "</td></tr>\n";
      }
      html << "</table>\n";
    }
    html << "</section>\n";
  }
}

// An A/B run: the comparison model's own verdicts, so the page shows what `compare` decides.
void ab_table(const std::string& dir, std::ostream& html) {
  CompareRequest request;
  request.runs = {dir};
  std::ostringstream warnings;
  ComparisonReport report;
  try {
    report = compare(request, warnings);
  } catch (const UsageError& e) {
    html << "<p class=\"error\">compare: " << xml_escape(e.what()) << "</p>\n";
    return;
  }
  html << "<p>A/B verdicts (baseline against candidate, alpha " << format("%g", report.rule.alpha)
       << " after Holm, noise floor " << format("%g%%", report.rule.threshold * 100) << ")</p>\n"
       << "<table><tr><th>instance</th><th>n A</th><th>n B</th><th>median A (us)</th><th>median B (us)</th>"
          "<th>HL ratio B/A</th><th>interval</th><th>p Holm</th><th>verdict</th></tr>\n";
  const auto bound = [](double v) { return std::isfinite(v) ? format("%.4f", v) : std::string("inf"); };
  for (const auto& c : report.compared) {
    const std::string verdict(stats::to_string(c.verdict));
    html << "<tr><td>" << xml_escape(c.id) << "</td><td>" << c.n_a << "</td><td>" << c.n_b << "</td><td>"
         << us(c.median_a) << "</td><td>" << us(c.median_b) << "</td><td>" << format("%.4f", c.hl.ratio)
         << "</td><td>[" << bound(c.hl.lo) << ", " << bound(c.hl.hi) << "]</td><td>" << format("%.3g", c.p_adjusted)
         << "</td><td class=\"v-" << verdict << "\">" << verdict << "</td></tr>\n";
  }
  html << "</table>\n";
}

void run_table(const Run& run, std::ostream& html) {
  html << "<table><tr><th>instance</th><th>n</th><th>median (us)</th><th>min (us)</th><th>max (us)</th></tr>\n";
  for (const auto& id : run.order) {
    const auto it = run.samples.find(id);
    if (it == run.samples.end()) continue;
    const auto d = stats::describe(it->second);
    html << "<tr><td>" << xml_escape(id) << "</td><td>" << d.n << "</td><td>" << us(d.median) << "</td><td>"
         << us(d.min) << "</td><td>" << us(d.max) << "</td></tr>\n";
  }
  html << "</table>\n";
}

void environment_table(const fs::path& dir, std::ostream& html) {
  if (!fs::exists(dir / "environment.json")) return;
  const json env = json::parse(read_text(dir / "environment.json"), nullptr, false);
  if (env.is_discarded()) throw UsageError((dir / "environment.json").string() + ": not valid JSON");
  const auto field = [&](std::initializer_list<const char*> path) {
    const json* at = &env;
    for (const char* key : path) {
      if (!at->is_object() || !at->contains(key)) return std::string("-");
      at = &(*at)[key];
    }
    return at->is_string() ? at->get<std::string>() : at->dump();
  };
  std::string gpus;
  if (env.contains("gpu") && env["gpu"].is_object() && env["gpu"].contains("gpus") && env["gpu"]["gpus"].is_array())
    for (const auto& g : env["gpu"]["gpus"])
      gpus += (gpus.empty() ? "" : "; ") + g.value("name", std::string("?")) + " " + g.value("uuid", std::string());
  html << "<table class=\"env\"><tr><th>host</th><td>" << xml_escape(field({"host", "hostname"})) << "</td></tr>"
       << "<tr><th>OS</th><td>" << xml_escape(field({"host", "os"})) << "</td></tr>"
       << "<tr><th>CPU</th><td>" << xml_escape(field({"cpu", "model"})) << "</td></tr>"
       << "<tr><th>GPUs</th><td>" << xml_escape(gpus.empty() ? "-" : gpus) << "</td></tr>"
       << "<tr><th>driver, CUDA</th><td>" << xml_escape(field({"gpu", "driver_version"})) << ", "
       << xml_escape(field({"gpu", "cuda_driver_version"})) << "</td></tr></table>\n"
       << "<details><summary>environment.json</summary><pre>" << xml_escape(env.dump(2)) << "</pre></details>\n";
}

void calibration_section(const fs::path& dir, std::ostream& html) {
  html << "<h2>Calibration: " << xml_escape(dir.string()) << "</h2>\n";
  for (const char* chart : {"fpr.svg", "power_delta.svg", "power_n.svg"})
    if (fs::exists(dir / chart)) html << "<div class=\"chart\">" << inline_svg(read_text(dir / chart)) << "</div>\n";
}

constexpr const char* kStyle = R"css(
body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 24px; color: #111; }
h1 { font-size: 22px; } h2 { font-size: 18px; border-bottom: 1px solid #ccc; } h3 { font-size: 15px; margin-bottom: 2px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
.machine { color: #555; margin-top: 0; font-size: 13px; }
.v-SLOWER { background: #f6d5d5; } .v-FASTER { background: #d5ecd5; }
.error { color: #C00000; } pre { font-size: 11px; } svg { max-width: 100%; height: auto; }
)css";

// Filters the series by instance; the page reads the same without it.
constexpr const char* kScript = R"js(
(function () {
  var filter = document.getElementById("filter");
  var sections = document.querySelectorAll("section.series");
  filter.addEventListener("input", function () {
    var q = filter.value.toLowerCase();
    sections.forEach(function (s) { s.hidden = q !== "" && s.dataset.instance.toLowerCase().indexOf(q) < 0; });
  });
  document.body.dataset.series = String(sections.length);
})();
)js";

}  // namespace

void write_report(const ReportInputs& in, const std::string& out_dir, std::ostream& err) {
  if (in.history.empty() && in.dirs.empty()) throw UsageError("needs --history FILE and/or run directories");
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>isobench report</title><style>"
       << kStyle << "</style></head>\n<body>\n<h1>isobench report</h1>\n<p>Written " << utc_timestamp()
       << ". <label>Filter instances: <input id=\"filter\" type=\"search\"></label></p>\n";
  if (!in.history.empty()) history_section(in, html);
  for (const auto& dir : in.dirs) {
    const fs::path path(dir);
    // A run directory has a calibration.json too (its inner counts): run.json tells them apart.
    if (!fs::exists(path / "run.json") && (fs::exists(path / "calibration.json") || fs::exists(path / "experiment.json"))) {
      calibration_section(path, html);
      continue;
    }
    const Run run = read_run(dir, err);  // bad input throws here, before anything is written
    html << "<h2>Run " << xml_escape(dir) << (run.ab ? " (A/B)" : "") << "</h2>\n";
    if (run.ab)
      ab_table(dir, html);
    else
      run_table(run, html);
    environment_table(path, html);
  }
  html << "<script>" << kScript << "</script>\n</body></html>\n";
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw UsageError(out_dir + ": cannot create: " + ec.message());
  std::ofstream out(fs::path(out_dir) / "index.html", std::ios::binary);
  out << html.str();
  if (!out) throw UsageError(out_dir + "/index.html: cannot write");
}

}  // namespace isobench::orchestrator::report
