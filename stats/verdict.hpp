#pragma once

#include <string_view>

namespace isobench::stats {

enum class Verdict { slower, faster, same, uncertain };

std::string_view to_string(Verdict verdict);  // "SLOWER", "FASTER", "SAME", "UNCERTAIN"

struct VerdictInput {
  double ratio_lo = 0;  // Hodges-Lehmann ratio interval candidate/baseline
  double ratio_hi = 0;
  double p_adjusted = 1;  // two-sided, after the correction for many instances
  double alpha = 0.001;
  double threshold = 0.02;  // noise floor as a fraction: 0.02 = 2%
};

// The noise floor is symmetric on the log scale: a slowdown must exceed the ratio 1+t and a
// speed-up must beat 1/(1+t) (not 1-t), so "2% slower" and "as much faster" are the same
// distance from 1 in log time, and swapping baseline and candidate swaps SLOWER and FASTER.
//   SLOWER:    p_adjusted < alpha and lo > 1+t
//   FASTER:    p_adjusted < alpha and hi < 1/(1+t)
//   SAME:      1/(1+t) <= lo and hi <= 1+t (the whole interval inside the floor)
//   UNCERTAIN: anything else (too few samples to tell, or significant but within the floor
//              only in part).
Verdict decide(const VerdictInput& input);

// Whether the interval lies wholly beyond the noise floor, above 1+t or below 1/(1+t): only then
// can the p-value change decide's verdict (a simulation need not compute it otherwise).
bool clears_floor(double ratio_lo, double ratio_hi, double threshold);

// decide's SLOWER alone, for a simulation that asks only whether the interval's lower end lies
// above slower_floor(t) (hodges_lehmann_lower_exceeds) and then for p: decide answers SLOWER
// exactly where this does.
inline double slower_floor(double threshold) { return 1 + threshold; }
inline bool decides_slower(bool lower_above_floor, double p_adjusted, double alpha) {
  return p_adjusted < alpha && lower_above_floor;
}

}  // namespace isobench::stats
