#pragma once

#include <cstddef>

namespace isobench::stats {

// Whether a plan can reach a verdict of SLOWER (or FASTER) at all, before anything is measured.
// The verdict (verdict.hpp) needs Holm's adjusted two-sided p below alpha and a Hodges-Lehmann
// interval wholly beyond the noise floor. With n_x and n_y values per side the smallest
// two-sided permutation p is that of complete separation, 2 / C(n_x + n_y, n_x), and Holm
// multiplies the smallest p of m instances by m; the interval has finite bounds only when
// hodges_lehmann_interval_rank(n_x, n_y, confidence) >= 1. When both hold, samples separated
// by more than the floor give SLOWER; when either fails, no data can.
struct VerdictFeasibility {
  bool reachable = false;
  double smallest_p = 1;           // 2 / C(n_x + n_y, n_x)
  double smallest_adjusted_p = 1;  // min(1, m x smallest_p): Holm's factor for the smallest p
  bool interval_bounded = false;   // the Hodges-Lehmann interval can exclude the floor
};

// Throws std::invalid_argument for n_x or n_y below 2, m = 0, alpha or confidence outside (0, 1).
VerdictFeasibility verdict_feasibility(std::size_t n_x, std::size_t n_y, double alpha, std::size_t instances,
                                       double confidence = 0.95);

// The smallest n per side (equal sides) whose plan can reach a verdict, searched up to max_n;
// 0 when none can.
std::size_t smallest_feasible_n(double alpha, std::size_t instances, double confidence = 0.95,
                                std::size_t max_n = 10000);

}  // namespace isobench::stats
