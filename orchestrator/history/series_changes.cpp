#include "orchestrator/history/series_changes.hpp"

#include <span>
#include <stdexcept>

namespace isobench::orchestrator::history {

std::vector<SeriesChange> find_changes(const InstanceSeries& series, const ChangeOptions& options) {
  if (!(options.threshold >= 0)) throw std::invalid_argument("--threshold must be >= 0");
  if (!(options.confidence > 0 && options.confidence < 1))
    throw std::invalid_argument("--confidence must lie in (0, 1)");
  std::vector<double> medians;
  for (const auto& p : series.points) medians.push_back(p.median);
  const auto points = stats::change_points(medians, options.detect);
  std::vector<SeriesChange> out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::size_t begin = i == 0 ? 0 : points[i - 1].index, at = points[i].index;
    const std::size_t end = i + 1 < points.size() ? points[i + 1].index : medians.size();
    const std::span<const double> all(medians);
    SeriesChange c;
    c.point = points[i];
    c.ratio = stats::hodges_lehmann_ratio(all.subspan(begin, at - begin), all.subspan(at, end - at), options.confidence);
    c.verdict = stats::decide({c.ratio.lo, c.ratio.hi, c.point.p_value, options.detect.max_p, options.threshold});
    out.push_back(c);
  }
  return out;
}

}  // namespace isobench::orchestrator::history
