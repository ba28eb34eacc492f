#pragma once
// Small SVG charts written by hand (no plotting library in a benchmark tool's dependencies):
// line charts and panels of bars with error bars, each with a title, axis labels and a legend,
// so a chart read on its own says what it shows. Calibration's charts and the HTML report's
// draw with them.

#include <string>
#include <utility>
#include <vector>

namespace isobench::orchestrator {

struct Axis {
  std::string label;  // with its unit, e.g. "slowdown delta (%)"
  double min = 0, max = 1;
  bool log = false;   // log10 scale; min must be > 0
  std::vector<std::pair<double, std::string>> ticks;  // value, label
};

struct LineSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // x, y in axis units
  bool dashed = false;
  int colour = -1;  // palette index; -1: the series' own position
  bool points_only = false;  // a scatter: the points without the line through them
  double radius = 3.5;
};

struct ReferenceLine {
  double y = 0;
  std::string label;
};

// A dashed vertical line at x, labelled at the top (e.g. a change point).
struct Marker {
  double x = 0;
  std::string label;
};

struct LineChart {
  std::string title;
  Axis x, y;
  std::vector<LineSeries> series;
  std::vector<ReferenceLine> references;  // dashed horizontal lines
  std::vector<Marker> markers;
  std::string marker_legend;  // what a marker means, in the legend (when there are markers)
};

// One panel of a bar chart: a bar per category with an error bar, and a dashed reference line.
struct BarPanel {
  std::string title;
  std::vector<std::string> categories;
  std::vector<double> values, lower, upper;  // lower/upper: the error bar ends
  double y_max = 1;
  std::vector<std::pair<double, std::string>> y_ticks;
  ReferenceLine reference;
};

struct BarChart {
  std::string title;
  std::string x_label, y_label;
  std::string legend_bar, legend_error, legend_reference;  // what a bar, an error bar, the line mean
  std::vector<BarPanel> panels;
};

std::string render_svg(const LineChart& chart);
std::string render_svg(const BarChart& chart);

// Escapes &, <, >, " for SVG text and attributes.
std::string xml_escape(const std::string& text);

// The colour of series i (a fixed palette readable in print and by most colour-blind readers).
std::string series_colour(std::size_t i);

}  // namespace isobench::orchestrator
