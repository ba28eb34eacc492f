#pragma once
// The change points of an instance's series of runs, each with a verdict: the series is the
// runs' medians (the run is the unit of replication across time: its samples are not
// independent of one another), the change points Otava's (stats/change_point.hpp), and each
// change's size the Hodges-Lehmann ratio of the medians after it over those before it (the
// segments between its neighbouring change points), decided as compare decides an instance:
// SLOWER only when the whole interval lies above 1 + threshold.

#include <vector>

#include "orchestrator/history/history_store.hpp"
#include "stats/change_point.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/verdict.hpp"

namespace isobench::orchestrator::history {

struct ChangeOptions {
  stats::ChangePointOptions detect;
  double threshold = 0.02;   // noise floor, as compare's --threshold
  double confidence = 0.95;  // of the Hodges-Lehmann interval
};

struct SeriesChange {
  stats::ChangePoint point;        // point.index: the first run after the change, in the series
  stats::HodgesLehmannRatio ratio; // medians after / before
  stats::Verdict verdict = stats::Verdict::uncertain;
};

// Throws std::invalid_argument for options outside their ranges.
std::vector<SeriesChange> find_changes(const InstanceSeries& series, const ChangeOptions& options);

}  // namespace isobench::orchestrator::history
