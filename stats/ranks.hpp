#pragma once

#include <span>
#include <vector>

namespace isobench::stats {

// Ranks 1..n where tied values share the mean of the ranks they span (scipy's 'average').
struct Midranks {
  std::vector<double> rank;  // rank[i] belongs to values[i]
  double tie_term = 0.0;     // sum over tie groups of t^3 - t (0 without ties)
  bool has_ties = false;
};

// O(n log n).
Midranks midranks(std::span<const double> values);

}  // namespace isobench::stats
