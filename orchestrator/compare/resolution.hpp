#pragma once
// What UNCERTAIN verdicts leave a gate that reads the exit code. An instance is UNCERTAIN for one
// of two reasons, and the advice differs: its interval is too wide for the noise floor (a change
// of the floor's size could be neither confirmed nor ruled out), or its interval already lies
// beyond the floor and only its p-value, corrected for the instances compared, is not below alpha.
// An interval's width falls about as 1/sqrt(n), and so does the test's z, which gives the samples
// per side that would settle the worst instance of each kind.

#include <string>

#include "orchestrator/compare/comparison.hpp"

namespace isobench::orchestrator {

// Interval too wide: "where UNCERTAIN, this run cannot resolve a change of 2.00% (the noise floor,
// --threshold): intervals as wide as [0.9200, 1.2200] (gemm[m=64]), 28.0% of the ratio at 30
// samples per side; about 1,200 samples per side would narrow it to the floor (--samples N, or ab
// --until-verdict)".
// p short: "where UNCERTAIN with the interval beyond the floor (3 instances), p after Holm across
// 12 instances is not below alpha 0.001: 0.0040 for gemm[m=64] at 20 samples per side; about 34
// samples per side would bring it below (--samples 34, or ab --until-verdict)".
// Both parts, joined by "; ", when both kinds occur. A run sampled until a verdict (the report's
// `sequential`) is told --max-samples, never the mode it already uses. Empty when no instance is
// UNCERTAIN.
std::string unresolved_note(const ComparisonReport& report);

}  // namespace isobench::orchestrator
