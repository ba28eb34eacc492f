#include "stats/sequential_design.hpp"

#include "stats/bimodality.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

using namespace isobench::stats;

namespace {
const std::vector<std::size_t> kLooks = {8, 12, 16, 24, 32};

// n values: 1, 1+step, 1+2 step, ... times `scale`, interleaved so that two sides overlap.
std::vector<double> ramp(std::size_t n, double scale, double step) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = scale * (1 + step * static_cast<double>((i * 7) % n));
  return v;
}
}  // namespace

TEST_SUITE("sequential_design") {
  TEST_CASE("Pocock spending at looks 8..32, one instance: every look gets its increment") {
    // alpha ln(1 + (e - 1) t) at t = 8/32, 12/32, 16/32, 24/32, 1 (computed by hand with a
    // Python's math.log, apart from the C++): 3.5737e-4, 4.9735e-4, 6.2011e-4, 8.2799e-4, 1e-3.
    const auto d = sequential_design(kLooks, 0.001, 1, SpendingFunction::pocock);
    REQUIRE(d.looks.size() == 5);
    const double cumulative[] = {3.5737402e-4, 4.9734863e-4, 6.2011451e-4, 8.2798894e-4, 1e-3};
    double previous = 0, sum = 0;
    for (std::size_t k = 0; k < 5; ++k) {
      CAPTURE(k);
      CHECK(d.looks[k].n == kLooks[k]);
      CHECK(d.looks[k].cumulative == doctest::Approx(cumulative[k]).epsilon(1e-6));
      CHECK(d.looks[k].alpha == doctest::Approx(cumulative[k] - previous).epsilon(1e-6));
      previous = cumulative[k];
      sum += d.looks[k].alpha;
    }
    CHECK(sum == doctest::Approx(0.001).epsilon(1e-12));
    CHECK(d.look_confidence == doctest::Approx(0.99));
  }

  TEST_CASE("a look that cannot reject passes its share on; m instances divide each level") {
    // Nine instances: at n = 8 the level would be 3.5737e-4 / 9 = 3.97e-5, below separation's
    // 2 / 12870 = 1.55e-4, so look 0 spends nothing and look 1 gets all of 4.9735e-4 / 9.
    const auto d = sequential_design(kLooks, 0.001, 9, SpendingFunction::pocock);
    CHECK(d.looks[0].alpha == 0);
    CHECK(d.looks[1].alpha == doctest::Approx(4.9734863e-4 / 9).epsilon(1e-6));
    double sum = 0;
    for (const auto& look : d.looks) sum += look.alpha * 9;
    CHECK(sum == doctest::Approx(0.001).epsilon(1e-12));
    // O'Brien-Fleming: 2 - 2 Phi(3.2905 / sqrt(t)) is 4.67e-11 at t = 1/4, 7.73e-8 at 3/8,
    // 3.26e-6 at 1/2, 1.449e-4 at 3/4 (Python's statistics.NormalDist): the first two looks cannot reject
    // one instance at n = 8 or 12 (2 / 2704156 = 7.4e-7 > 7.73e-8).
    const auto f = sequential_design(kLooks, 0.001, 1, SpendingFunction::obrien_fleming);
    CHECK(f.looks[0].alpha == 0);
    CHECK(f.looks[1].alpha == 0);
    CHECK(f.looks[2].alpha == doctest::Approx(3.2633568e-6).epsilon(1e-5));
    CHECK(f.looks[3].alpha == doctest::Approx(1.4494562e-4 - 3.2633568e-6).epsilon(1e-5));
    CHECK(f.looks[4].alpha == doctest::Approx(0.001 - 1.4494562e-4).epsilon(1e-5));
  }

  TEST_CASE("decisions: separated stops SLOWER, a tight match stops SAME, noise goes on") {
    const auto d = sequential_design(kLooks, 0.001, 1);
    // 20% slower and 1% spread: complete separation at n = 8, p = 1.55e-4 < 3.57e-4.
    const auto slow = decide_at_look(d, 0, ramp(32, 1.0, 0.001), ramp(32, 1.2, 0.001));
    CHECK(slow.stop);
    CHECK(slow.verdict == Verdict::slower);
    CHECK(slow.p_value == doctest::Approx(2.0 / 12870));
    // The same values on both sides with 0.1% spread: the interval lies inside the 2% floor.
    const auto same = decide_at_look(d, 0, ramp(32, 1.0, 0.0001), ramp(32, 1.0, 0.0001));
    CHECK(same.stop);
    CHECK(same.verdict == Verdict::same);
    // 30% spread: nothing can be told at n = 8, so sampling goes on; at the last look it stops.
    const auto wide_a = ramp(32, 1.0, 0.01), wide_b = ramp(32, 1.02, 0.01);
    const auto early = decide_at_look(d, 0, wide_a, wide_b);
    CHECK_FALSE(early.stop);
    CHECK(early.verdict == Verdict::uncertain);
    const auto last = decide_at_look(d, 4, wide_a, wide_b);
    CHECK(last.stop);
    CHECK(last.verdict == Verdict::uncertain);
    // A look that cannot reject can still say SAME, never SLOWER.
    const auto nine = sequential_design(kLooks, 0.001, 9);
    CHECK(decide_at_look(nine, 0, ramp(32, 1.0, 0.001), ramp(32, 1.2, 0.001)).verdict == Verdict::uncertain);
  }

  TEST_CASE("a simulation's look decides as compare's and runs the test only where p can matter") {
    const auto d = sequential_design(kLooks, 0.001, 4);
    std::mt19937_64 engine(5);
    std::size_t skipped = 0, run = 0;
    for (double shift : {1.0, 1.01, 1.05, 1.2}) {
      for (int rep = 0; rep < 20; ++rep) {
        std::lognormal_distribution<double> noise(0.0, 0.03);
        std::vector<double> a(32), b(32);
        for (double& v : a) v = noise(engine);
        for (double& v : b) v = shift * noise(engine);
        for (std::size_t look = 0; look < kLooks.size(); ++look) {
          const auto full = decide_at_look(d, look, a, b);
          const auto sim = decide_at_look(d, look, a, b, 0.02, {true, kSimulationBudget});
          // Every p here is decided within the simulation's quarter of the draws (they are the
          // same draws): the same verdicts. Near a level they may differ (bench/power_budget).
          CHECK(sim.verdict == full.verdict);
          CHECK(sim.stop == full.stop);
          CHECK(sim.ratio.lo == full.ratio.lo);
          if (clears_floor(full.ratio.lo, full.ratio.hi, 0.02)) {
            ++run;
            CHECK(sim.test.statistic == full.test.statistic);
            if (sim.test.resolved) CHECK(sim.p_value == full.p_value);  // else predicted
          } else {
            ++skipped;
            CHECK(sim.p_value == 1);  // not computed
            CHECK(sim.test.labellings == 0);
          }
        }
      }
    }
    CHECK(skipped > 0);
    CHECK(run > 0);
  }

  TEST_CASE("early_separation_look: where the first look cannot reject, the first count that can") {
    using Looks = std::vector<std::size_t>;
    const Looks twenty = {8, 12, 16, 20};
    // One instance: 8 per side can (complete separation 2 / C(16, 8) = 1.55e-4 against 5.2e-4).
    CHECK_FALSE(early_separation_look(twenty, 0.001, 1).has_value());
    // Four: 8 cannot (1.55e-4 against 5.2e-4 / 4 = 1.3e-4); 9 can (2 / C(18, 9) = 4.1e-5 against
    // the first look's share passed on, 5.7e-4 / 4 = 1.4e-4).
    CHECK(early_separation_look(twenty, 0.001, 4) == std::optional<std::size_t>{9});
    // The first count that can, for every m where the first look cannot.
    for (std::size_t m : {2u, 4u, 9u, 50u}) {
      CAPTURE(m);
      const auto n = early_separation_look(kLooks, 0.001, m);
      if (sequential_design(kLooks, 0.001, m).looks[0].alpha > 0) {
        CHECK_FALSE(n.has_value());
        continue;
      }
      REQUIRE(n.has_value());
      CHECK(*n > 8);
      CHECK(*n < 12);
      for (std::size_t earlier = 9; earlier <= *n; ++earlier) {
        Looks with = kLooks;
        with.insert(with.begin() + 1, earlier);
        CHECK_MESSAGE((sequential_design(with, 0.001, m, SpendingFunction::pocock, 0.95, {earlier}).looks[1].alpha > 0) ==
                          (earlier == *n),
                      "n ", earlier);
      }
    }
    // Where no count before the second look can, and for a design sequential_design refuses: none.
    CHECK_FALSE(early_separation_look(twenty, 1e-9, 4).has_value());
    CHECK_FALSE(early_separation_look(twenty, 0.001, 0).has_value());
    CHECK_FALSE(early_separation_look({20}, 0.001, 4).has_value());
  }

  TEST_CASE("a separation look stops SLOWER or FASTER, never SAME, and leaves the intervals as they were") {
    const std::vector<std::size_t> looks = {8, 9, 12, 16, 20};
    const auto plain = sequential_design({8, 12, 16, 20}, 0.001, 4);
    const auto with = sequential_design(looks, 0.001, 4, SpendingFunction::pocock, 0.95, {9});
    CHECK(with.look_confidence == plain.look_confidence);  // K counts the SAME looks: 4
    CHECK(sequential_design(looks, 0.001, 4).look_confidence > plain.look_confidence);  // 5 SAME looks: wider
    CHECK(with.looks[0].stops_same);
    CHECK_FALSE(with.looks[1].stops_same);
    CHECK(with.looks[1].alpha == doctest::Approx(5.7280e-4 / 4).epsilon(1e-3));
    // Separated sides stop SLOWER at 9; a tight match does not stop SAME there (it did at 8).
    const auto base = ramp(20, 1.0, 0.001), slow = ramp(20, 1.5, 0.001);
    const auto separated = decide_at_look(with, 1, base, slow);
    CHECK(separated.stop);
    CHECK(separated.verdict == Verdict::slower);
    const auto tight = ramp(20, 1.0, 0.0001), twin = ramp(20, 1.0, 0.0001);
    CHECK(decide_at_look(with, 0, tight, twin).verdict == Verdict::same);
    const auto at_separation = decide_at_look(with, 1, tight, twin);
    CHECK_FALSE(at_separation.stop);
    CHECK(at_separation.verdict == Verdict::uncertain);
    CHECK(decide_at_look(with, 2, tight, twin).verdict == Verdict::same);
    // Not a look, or the last: refused.
    CHECK_THROWS_AS(sequential_design(looks, 0.001, 4, SpendingFunction::pocock, 0.95, {10}), std::invalid_argument);
    CHECK_THROWS_AS(sequential_design(looks, 0.001, 4, SpendingFunction::pocock, 0.95, {20}), std::invalid_argument);
  }

  TEST_CASE("an extension spends its share after the ordinary looks and never stops SAME") {
    const std::vector<std::size_t> looks = {8, 9, 12, 16, 20, 30, 45, 60};
    const auto plain = sequential_design({8, 9, 12, 16, 20}, 0.001, 20, SpendingFunction::pocock, 0.95, {9});
    const auto d = sequential_design(looks, 0.001, 20, SpendingFunction::pocock, 0.95, {9}, {20, 0.25});
    CHECK(d.look_confidence == plain.look_confidence);  // the extension's looks are not SAME looks
    double ordinary = 0, extension = 0;
    for (std::size_t k = 0; k < looks.size(); ++k) {
      CAPTURE(k);
      if (k < 5) {
        // The ordinary looks keep their shape, three quarters of each level.
        CHECK(d.looks[k].alpha == doctest::Approx(0.75 * plain.looks[k].alpha).epsilon(1e-9));
        ordinary += d.looks[k].alpha * 20;
      } else {
        CHECK_FALSE(d.looks[k].stops_same);
        CHECK(d.looks[k].alpha > 0);
        extension += d.looks[k].alpha * 20;
      }
    }
    CHECK(ordinary <= 0.75e-3 * (1 + 1e-12));
    CHECK(extension == doctest::Approx(0.25e-3).epsilon(1e-9));
    CHECK(ordinary + extension <= 1e-3 * (1 + 1e-12));
    // Not a look before the last, or a share outside (0, 1): refused.
    CHECK_THROWS_AS(sequential_design(looks, 0.001, 20, SpendingFunction::pocock, 0.95, {}, {21, 0.25}),
                    std::invalid_argument);
    CHECK_THROWS_AS(sequential_design(looks, 0.001, 20, SpendingFunction::pocock, 0.95, {}, {60, 0.25}),
                    std::invalid_argument);
    CHECK_THROWS_AS(sequential_design(looks, 0.001, 20, SpendingFunction::pocock, 0.95, {}, {20, 1.0}),
                    std::invalid_argument);
  }

  TEST_CASE("an instance beyond the floor but short of its level at 20 goes on and resolves; others stop") {
    // 20 instances, a 35% change under 25% noise: at 20 per side the interval lies beyond the
    // floor but p is short of alpha / 20's share; at 30 or 45 it is not.
    const std::vector<std::size_t> looks = {8, 9, 12, 16, 20, 30, 45, 60};
    const auto plain = sequential_design({8, 9, 12, 16, 20}, 0.001, 20, SpendingFunction::pocock, 0.95, {9});
    const auto extended = sequential_design(looks, 0.001, 20, SpendingFunction::pocock, 0.95, {9}, {20, 0.25});
    std::mt19937_64 engine(11);
    std::lognormal_distribution<double> noise(0.0, 0.25);
    std::vector<double> a(60), b(60);
    for (double& v : a) v = noise(engine);
    for (double& v : b) v = 1.35 * noise(engine);
    const auto at20 = decide_at_look(plain, 4, a, b);
    REQUIRE(at20.verdict == Verdict::uncertain);
    REQUIRE(clears_floor(at20.ratio.lo, at20.ratio.hi, 0.02));
    CHECK(at20.stop);  // without the extension: UNCERTAIN at 20
    CHECK_FALSE(decide_at_look(extended, 4, a, b).stop);
    std::optional<std::size_t> resolved;
    for (std::size_t k = 5; k < looks.size() && !resolved; ++k) {
      const auto d = decide_at_look(extended, k, a, b);
      if (d.stop) {
        CHECK(d.verdict == Verdict::slower);
        resolved = k;
      }
    }
    CHECK(resolved.has_value());
    // Noise whose interval straddles the floor at 20 stops there UNCERTAIN, as without the extension.
    const auto wide_a = ramp(60, 1.0, 0.01), wide_b = ramp(60, 1.02, 0.01);
    CHECK(decide_at_look(extended, 4, wide_a, wide_b).stop);
    CHECK(decide_at_look(extended, 4, wide_a, wide_b).verdict == Verdict::uncertain);
  }

  TEST_CASE("A/A instances stop where and as they stopped without the extension") {
    const auto plain = sequential_design({8, 9, 12, 16, 20}, 0.001, 4, SpendingFunction::pocock, 0.95, {9});
    const auto extended =
        sequential_design({8, 9, 12, 16, 20, 30, 45, 60}, 0.001, 4, SpendingFunction::pocock, 0.95, {9}, {20, 0.25});
    std::mt19937_64 engine(3);
    std::lognormal_distribution<double> noise(0.0, 0.03);
    std::size_t went_on = 0;
    for (int rep = 0; rep < 200; ++rep) {
      std::vector<double> a(60), b(60);
      for (double& v : a) v = noise(engine);
      for (double& v : b) v = noise(engine);
      const auto first_stop = [&](const SequentialDesign& d) {
        for (std::size_t k = 0;; ++k)
          if (const auto decision = decide_at_look(d, k, a, b); decision.stop) return std::pair{k, decision.verdict};
      };
      const auto before = first_stop(plain), after = first_stop(extended);
      CAPTURE(rep);
      CHECK(after.second != Verdict::slower);
      CHECK(after.second != Verdict::faster);
      if (after.first > 4) {
        ++went_on;  // only an interval beyond the floor at 20 goes on
        const auto at20 = decide_at_look(extended, 4, a, b);
        CHECK(clears_floor(at20.ratio.lo, at20.ratio.hi, 0.02));
      } else {
        CHECK(after == before);
      }
    }
    CHECK(went_on == 0);  // at 3% noise no A/A interval lies beyond a 2% floor at 20 per side
  }

  TEST_CASE("futility: an estimate inside the floor that can settle neither way stops UNCERTAIN after the first look") {
    // ab's design over 4 instances: looks 8, 9 (separation), 12, 16, 20, extended to 60; K = 4 SAME
    // looks, each interval at 1 - 0.05 / 4 (z = 2.4977); the last ordinary look is 20.
    auto d = sequential_design({8, 9, 12, 16, 20, 30, 45, 60}, 0.001, 4, SpendingFunction::pocock, 0.95, {9},
                               {20, 0.25});
    d.futility = 0.05;
    // [0.96, 1.05] at 12 (a noisy control): centre +0.40% in log ratio, half-width 4.48%, 3.47% at 20
    // (wider than the 1.98% floor: SAME cannot be reached); beyond the floor needs the centre past
    // 5.45%, 4.45 predicted spreads (1.13%) away: about 4e-6.
    CHECK(futile_at_look(d, 2, 0.96, 1.05, 0.02));
    CHECK(futile_at_look(d, 3, 0.96, 1.05, 0.02));
    CHECK_FALSE(futile_at_look(d, 0, 0.96, 1.05, 0.02));  // the first look
    CHECK_FALSE(futile_at_look(d, 1, 0.96, 1.05, 0.02));  // a separation look
    CHECK_FALSE(futile_at_look(d, 4, 0.96, 1.05, 0.02));  // the last ordinary look
    CHECK_FALSE(futile_at_look(d, 5, 0.96, 1.05, 0.02));  // the extension's
    // [1.005, 1.025] at 12: SAME at 20 needs the centre (1.48%) below 1.22%, 1.07 spreads away:
    // a chance of 14.2%, above 5%, so it goes on (at 15% it would stop).
    CHECK_FALSE(futile_at_look(d, 2, 1.005, 1.025, 0.02));
    d.futility = 0.15;
    CHECK(futile_at_look(d, 2, 1.005, 1.025, 0.02));
    d.futility = 0.05;
    // An estimate beyond the floor (centre +2.91%) may be a change on its way: never stopped here.
    CHECK_FALSE(futile_at_look(d, 2, 1.00, 1.06, 0.02));
    CHECK_FALSE(futile_at_look(d, 2, 0.94, 1.00, 0.02));
    // No futility level, no stop; nor for an interval that says nothing.
    d.futility = 0;
    CHECK_FALSE(futile_at_look(d, 2, 0.96, 1.05, 0.02));
    d.futility = 0.05;
    CHECK_FALSE(futile_at_look(d, 2, 0, 1.05, 0.02));
    CHECK_FALSE(futile_at_look(d, 2, 0.96, INFINITY, 0.02));
    CHECK_FALSE(futile_at_look(d, 2, 1.0, 1.0, 0.02));

    // decide_at_look: 30% spread on both sides goes on at 8 and stops UNCERTAIN, futile, at 12;
    // without futility it goes on there.
    const auto wide_a = ramp(60, 1.0, 0.01), wide_b = ramp(60, 1.0, 0.01);
    const auto at8 = decide_at_look(d, 0, wide_a, wide_b);
    CHECK_FALSE(at8.stop);
    CHECK_FALSE(at8.futile);
    const auto at12 = decide_at_look(d, 2, wide_a, wide_b);
    CHECK(at12.stop);
    CHECK(at12.futile);
    CHECK(at12.verdict == Verdict::uncertain);
    d.futility = 0;
    const auto on = decide_at_look(d, 2, wide_a, wide_b);
    CHECK_FALSE(on.stop);
    CHECK_FALSE(on.futile);
    // Samples in two modes 8% apart (a clock flipping between samples): their interval narrows in
    // jumps, not as 1 / sqrt(n), so the rule leaves them be and they go on.
    d.futility = 0.05;
    std::vector<double> two_a, two_b;
    for (int i = 0; i < 60; ++i) {
      const double mode = (i % 3 == 2) ? 1.08 : 1.0;  // a third in the upper mode
      two_a.push_back(mode * (1 + 0.0005 * (i % 5)));
      two_b.push_back(((i % 3 == 0) ? 1.08 : 1.0) * (1 + 0.0005 * ((i + 2) % 5)));
    }
    REQUIRE(bimodality(std::span(two_a).first(12)).bimodal);
    const auto two = decide_at_look(d, 2, two_a, two_b);
    CHECK(futile_at_look(d, 2, two.ratio.lo, two.ratio.hi, 0.02));  // by its interval alone it would stop
    CHECK(two.verdict == Verdict::uncertain);
    CHECK_FALSE(two.futile);
    CHECK_FALSE(two.stop);
    // A decided instance is never futile: SLOWER at 12 stays SLOWER.
    const auto slow = decide_at_look(d, 2, ramp(60, 1.0, 0.001), ramp(60, 1.2, 0.001));
    CHECK(slow.verdict == Verdict::slower);
    CHECK_FALSE(slow.futile);
  }

  TEST_CASE("bad designs and looks throw") {
    CHECK_THROWS_AS(sequential_design({}, 0.001, 1), std::invalid_argument);
    CHECK_THROWS_AS(sequential_design({8, 8}, 0.001, 1), std::invalid_argument);
    CHECK_THROWS_AS(sequential_design({1, 8}, 0.001, 1), std::invalid_argument);
    CHECK_THROWS_AS(sequential_design({8, 12}, 0.001, 0), std::invalid_argument);
    const auto d = sequential_design({8, 12}, 0.001, 1);
    CHECK_THROWS_AS(decide_at_look(d, 2, ramp(12, 1, 0.01), ramp(12, 1, 0.01)), std::invalid_argument);
    CHECK_THROWS_AS(decide_at_look(d, 1, ramp(11, 1, 0.01), ramp(12, 1, 0.01)), std::invalid_argument);
  }
}
