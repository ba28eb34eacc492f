#include "stats/verdict.hpp"

#include <doctest/doctest.h>

using namespace isobench::stats;

namespace {
Verdict verdict_of(double lo, double hi, double p) { return decide({lo, hi, p, 0.001, 0.02}); }
}  // namespace

TEST_SUITE("verdict") {
  TEST_CASE("truth table") {
    // significant, interval clears 1.02
    CHECK(verdict_of(1.03, 1.10, 1e-5) == Verdict::slower);
    // significant but interval touches the floor: not SLOWER, and not inside it either
    CHECK(verdict_of(1.01, 1.10, 1e-5) == Verdict::uncertain);
    CHECK(verdict_of(1.02, 1.10, 1e-5) == Verdict::uncertain);
    // clears the floor but not significant after adjustment
    CHECK(verdict_of(1.03, 1.10, 0.002) == Verdict::uncertain);
    // faster: hi below 1/1.02 = 0.98039
    CHECK(verdict_of(0.90, 0.975, 1e-5) == Verdict::faster);
    CHECK(verdict_of(0.90, 0.981, 1e-5) == Verdict::uncertain);
    CHECK(verdict_of(0.90, 0.975, 0.5) == Verdict::uncertain);
    // inside the floor: SAME, significant or not
    CHECK(verdict_of(0.99, 1.01, 0.5) == Verdict::same);
    CHECK(verdict_of(1.005, 1.015, 1e-9) == Verdict::same);
    CHECK(verdict_of(1.0 / 1.02, 1.02, 0.5) == Verdict::same);
    // too wide to tell
    CHECK(verdict_of(0.9, 1.1, 0.5) == Verdict::uncertain);
    CHECK(verdict_of(0.0, 1e300, 1.0) == Verdict::uncertain);
  }

  TEST_CASE("the floor is symmetric in log time: swapping sides swaps SLOWER and FASTER") {
    CHECK(verdict_of(1.0 / 1.10, 1.0 / 1.03, 1e-5) == Verdict::faster);
    CHECK(to_string(Verdict::slower) == "SLOWER");
    CHECK(to_string(Verdict::uncertain) == "UNCERTAIN");
  }
}
