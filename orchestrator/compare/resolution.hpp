#pragma once
// What UNCERTAIN verdicts leave a gate that reads the exit code: an UNCERTAIN instance is one
// whose interval is too wide for the noise floor, so a change of the floor's size there could be
// neither confirmed nor ruled out. An interval's width falls about as 1/sqrt(n), which gives the
// samples per side that would narrow the widest one to the floor.

#include <string>

#include "orchestrator/compare/comparison.hpp"

namespace isobench::orchestrator {

// "where UNCERTAIN, this run cannot resolve a change of 2.00% (the noise floor, --threshold):
// intervals as wide as [0.9200, 1.2200] (gemm[m=64]), 28.0% of the ratio at 30 samples per side;
// about 1,200 samples per side would narrow it to the floor (--samples N, or ab --until-verdict)".
// Empty when no instance is UNCERTAIN.
std::string unresolved_note(const ComparisonReport& report);

}  // namespace isobench::orchestrator
