#include "orchestrator/printers/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace isobench::orchestrator {

namespace {

constexpr double kLeft = 80, kRight = 190, kTop = 56, kBottom = 64;
const char* kFont = "font-family=\"DejaVu Sans, Arial, sans-serif\"";

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

struct Frame {
  double x0, y0, width, height;  // plot area, y0 at the top
};

double scale(const Axis& axis, double v, double from, double length) {
  double t;
  if (axis.log)
    t = (std::log10(std::max(v, axis.min)) - std::log10(axis.min)) / (std::log10(axis.max) - std::log10(axis.min));
  else
    t = (v - axis.min) / (axis.max - axis.min);
  return from + std::clamp(t, 0.0, 1.0) * length;
}

void text(std::ostringstream& s, double x, double y, const std::string& t, const std::string& anchor = "middle",
          int size = 12, const std::string& extra = "") {
  s << "<text x=\"" << num(x) << "\" y=\"" << num(y) << "\" " << kFont << " font-size=\"" << size
    << "\" text-anchor=\"" << anchor << "\"" << extra << ">" << xml_escape(t) << "</text>\n";
}

void line(std::ostringstream& s, double x1, double y1, double x2, double y2, const std::string& colour,
          double width = 1, bool dashed = false) {
  s << "<line x1=\"" << num(x1) << "\" y1=\"" << num(y1) << "\" x2=\"" << num(x2) << "\" y2=\"" << num(y2)
    << "\" stroke=\"" << colour << "\" stroke-width=\"" << num(width) << "\""
    << (dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>\n";
}

void open_svg(std::ostringstream& s, double width, double height, const std::string& title) {
  s << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width) << "\" height=\"" << num(height)
    << "\" viewBox=\"0 0 " << num(width) << " " << num(height) << "\">\n"
    << "<title>" << xml_escape(title) << "</title>\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  text(s, width / 2, 28, title, "middle", 16, " font-weight=\"bold\"");
}

// Axes box, y ticks with grid lines, and the y label rotated along the left edge.
void y_axis(std::ostringstream& s, const Frame& f, const Axis& y) {
  for (const auto& [v, label] : y.ticks) {
    const double py = scale(y, v, f.y0 + f.height, -f.height);
    line(s, f.x0, py, f.x0 + f.width, py, "#e0e0e0");
    line(s, f.x0 - 4, py, f.x0, py, "black");
    text(s, f.x0 - 7, py + 4, label, "end", 11);
  }
  line(s, f.x0, f.y0, f.x0, f.y0 + f.height, "black");
  line(s, f.x0, f.y0 + f.height, f.x0 + f.width, f.y0 + f.height, "black");
}

void y_label(std::ostringstream& s, double x, double y_center, const std::string& label) {
  text(s, x, y_center, label, "middle", 12,
       " transform=\"rotate(-90 " + num(x) + " " + num(y_center) + ")\"");
}

void legend_line(std::ostringstream& s, double x, double y, const std::string& colour, bool dashed,
                 const std::string& label, bool marker) {
  line(s, x, y, x + 26, y, colour, 2, dashed);
  if (marker)
    s << "<circle cx=\"" << num(x + 13) << "\" cy=\"" << num(y) << "\" r=\"3.5\" fill=\"" << colour << "\"/>\n";
  text(s, x + 32, y + 4, label, "start", 12);
}

}  // namespace

std::string xml_escape(const std::string& t) {
  std::string out;
  for (char c : t) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string series_colour(std::size_t i) {
  // Okabe-Ito.
  static const char* palette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"};
  return palette[i % (sizeof palette / sizeof *palette)];
}

std::string render_svg(const LineChart& c) {
  // The legend column fits the longest series name (about 7 px a character at 12 px); names such
  // as "process-sample (scaled)" fit the default.
  double right = kRight + 60;
  for (const auto& series : c.series) right = std::max(right, 60 + 7.0 * static_cast<double>(series.name.size()));
  const double width = 590 + right, height = 470;
  const Frame f{kLeft, kTop, width - kLeft - right, height - kTop - kBottom};
  std::ostringstream s;
  open_svg(s, width, height, c.title);
  y_axis(s, f, c.y);
  for (const auto& [v, label] : c.x.ticks) {
    const double px = scale(c.x, v, f.x0, f.width);
    line(s, px, f.y0 + f.height, px, f.y0 + f.height + 4, "black");
    text(s, px, f.y0 + f.height + 18, label, "middle", 11);
  }
  text(s, f.x0 + f.width / 2, height - 18, c.x.label, "middle", 12);
  y_label(s, 22, f.y0 + f.height / 2, c.y.label);
  for (const auto& ref : c.references) {
    const double py = scale(c.y, ref.y, f.y0 + f.height, -f.height);
    line(s, f.x0, py, f.x0 + f.width, py, "#555555", 1.2, true);
  }
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const auto& series = c.series[i];
    const auto colour = series_colour(series.colour >= 0 ? static_cast<std::size_t>(series.colour) : i);
    std::ostringstream path;
    for (const auto& [x, y] : series.points)
      path << num(scale(c.x, x, f.x0, f.width)) << "," << num(scale(c.y, y, f.y0 + f.height, -f.height)) << " ";
    if (!series.points_only)
      s << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\""
        << (series.dashed ? " stroke-dasharray=\"6 4\"" : "") << " points=\"" << path.str() << "\"/>\n";
    for (const auto& [x, y] : series.points)
      s << "<circle cx=\"" << num(scale(c.x, x, f.x0, f.width)) << "\" cy=\""
        << num(scale(c.y, y, f.y0 + f.height, -f.height)) << "\" r=\"" << num(series.radius) << "\" fill=\""
        << colour << "\"" << (series.points_only ? " fill-opacity=\"0.45\"" : "") << "/>\n";
  }
  for (const auto& m : c.markers) {
    const double px = scale(c.x, m.x, f.x0, f.width);
    line(s, px, f.y0, px, f.y0 + f.height, "#C00000", 1.5, true);
    text(s, px + 4, f.y0 + 12, m.label, "start", 11, " fill=\"#C00000\"");
  }
  // Legend to the right of the plot.
  double ly = f.y0 + 8;
  const double lx = f.x0 + f.width + 18;
  text(s, lx, ly, "legend", "start", 12, " font-weight=\"bold\"");
  ly += 20;
  for (std::size_t i = 0; i < c.series.size(); ++i, ly += 20)
    legend_line(s, lx, ly, series_colour(c.series[i].colour >= 0 ? static_cast<std::size_t>(c.series[i].colour) : i),
                c.series[i].dashed, c.series[i].name, true);
  for (const auto& ref : c.references) {
    legend_line(s, lx, ly, "#555555", true, ref.label, false);
    ly += 20;
  }
  if (!c.markers.empty()) legend_line(s, lx, ly, "#C00000", true, c.marker_legend, false);
  s << "</svg>\n";
  return s.str();
}

std::string render_svg(const BarChart& c) {
  // Rotated category labels (about 6 px a character at 11 px, at 35 degrees): panels widen for
  // many bars, and long names (a mode and its variant) get more room under the plot.
  std::size_t most = 0, longest = 0;
  for (const auto& panel : c.panels) {
    most = std::max(most, panel.categories.size());
    for (const auto& name : panel.categories) longest = std::max(longest, name.size());
  }
  const double panel_width = std::max(250.0, 34.0 * static_cast<double>(most)), gap = 40;
  const double width = kLeft + c.panels.size() * panel_width + (c.panels.size() - 1) * gap + kRight;
  const double plot_height = 480 - kTop - 18 - kBottom - 30;
  const double height = 480 + std::max(0.0, 3.5 * static_cast<double>(longest) - 60);
  std::ostringstream s;
  open_svg(s, width, height, c.title);
  y_label(s, 22, kTop + (480 - kTop - kBottom - 30) / 2, c.y_label);
  for (std::size_t p = 0; p < c.panels.size(); ++p) {
    const auto& panel = c.panels[p];
    const Frame f{kLeft + p * (panel_width + gap), kTop + 18, panel_width, plot_height};
    Axis y{"", 0, panel.y_max, false, panel.y_ticks};
    y_axis(s, f, y);
    text(s, f.x0 + f.width / 2, f.y0 - 8, panel.title, "middle", 13, " font-weight=\"bold\"");
    const double slot = f.width / static_cast<double>(std::max<std::size_t>(panel.categories.size(), 1));
    for (std::size_t i = 0; i < panel.categories.size(); ++i) {
      const double cx = f.x0 + slot * (i + 0.5);
      const double bottom = f.y0 + f.height;
      const double top = scale(y, panel.values[i], bottom, -f.height);
      s << "<rect x=\"" << num(cx - slot * 0.3) << "\" y=\"" << num(top) << "\" width=\"" << num(slot * 0.6)
        << "\" height=\"" << num(bottom - top) << "\" fill=\"" << series_colour(i) << "\" fill-opacity=\"0.8\"/>\n";
      const double lo = scale(y, panel.lower[i], bottom, -f.height);
      const double hi = scale(y, panel.upper[i], bottom, -f.height);
      line(s, cx, lo, cx, hi, "black", 1.5);
      line(s, cx - 6, lo, cx + 6, lo, "black", 1.5);
      line(s, cx - 6, hi, cx + 6, hi, "black", 1.5);
      const double ty = bottom + 12;
      text(s, cx, ty, panel.categories[i], "end", 11, " transform=\"rotate(-35 " + num(cx) + " " + num(ty) + ")\"");
    }
    const double ry = scale(y, panel.reference.y, f.y0 + f.height, -f.height);
    line(s, f.x0, ry, f.x0 + f.width, ry, "#C00000", 1.5, true);
    text(s, f.x0 + f.width - 2, ry - 4, panel.reference.label, "end", 10, " fill=\"#C00000\"");
  }
  text(s, (kLeft + width - kRight) / 2, height - 12, c.x_label, "middle", 12);
  // Legend: what a bar, an error bar and the dashed line stand for.
  const double lx = width - kRight + 18;
  double ly = kTop + 26;
  text(s, lx, ly, "legend", "start", 12, " font-weight=\"bold\"");
  ly += 22;
  s << "<rect x=\"" << num(lx) << "\" y=\"" << num(ly - 8) << "\" width=\"26\" height=\"12\" fill=\""
    << series_colour(0) << "\" fill-opacity=\"0.8\"/>\n";
  text(s, lx + 32, ly + 3, c.legend_bar, "start", 11);
  ly += 22;
  line(s, lx + 13, ly - 8, lx + 13, ly + 6, "black", 1.5);
  line(s, lx + 7, ly - 8, lx + 19, ly - 8, "black", 1.5);
  line(s, lx + 7, ly + 6, lx + 19, ly + 6, "black", 1.5);
  text(s, lx + 32, ly + 3, c.legend_error, "start", 11);
  ly += 22;
  line(s, lx, ly, lx + 26, ly, "#C00000", 1.5, true);
  text(s, lx + 32, ly + 4, c.legend_reference, "start", 11);
  s << "</svg>\n";
  return s.str();
}

}  // namespace isobench::orchestrator
