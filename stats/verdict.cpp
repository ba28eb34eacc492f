#include "stats/verdict.hpp"

namespace isobench::stats {

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::slower: return "SLOWER";
    case Verdict::faster: return "FASTER";
    case Verdict::same: return "SAME";
    case Verdict::uncertain: return "UNCERTAIN";
  }
  return "?";
}

bool clears_floor(double ratio_lo, double ratio_hi, double threshold) {
  return ratio_lo > 1 + threshold || ratio_hi < 1 / (1 + threshold);
}

Verdict decide(const VerdictInput& input) {
  const double upper_floor = slower_floor(input.threshold);
  const double lower_floor = 1 / upper_floor;
  const bool significant = input.p_adjusted < input.alpha;
  if (decides_slower(input.ratio_lo > upper_floor, input.p_adjusted, input.alpha)) return Verdict::slower;
  if (significant && input.ratio_hi < lower_floor) return Verdict::faster;
  if (input.ratio_lo >= lower_floor && input.ratio_hi <= upper_floor) return Verdict::same;
  return Verdict::uncertain;
}

}  // namespace isobench::stats
