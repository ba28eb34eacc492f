#include "stats/verdict.hpp"

#include <doctest/doctest.h>

#include <random>
#include <utility>
#include <vector>

#include "stats/multiple_testing.hpp"
#include "stats/sweep_verdict.hpp"
#include "tests/stats/scipy_reference.hpp"

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

  TEST_CASE("clears_floor: exactly where the p-value can change the verdict") {
    CHECK(clears_floor(1.021, 1.3, 0.02));
    CHECK(clears_floor(0.7, 1 / 1.021, 0.02));
    CHECK_FALSE(clears_floor(1.02, 1.3, 0.02));  // on the floor: SLOWER needs lo beyond it
    CHECK_FALSE(clears_floor(0.99, 1.3, 0.02));
    CHECK_FALSE(clears_floor(0.99, 1.01, 0.02));
    // Where it does not clear, no p changes decide's answer; where it does, p decides.
    for (const auto& [lo, hi] : {std::pair{1.02, 1.3}, {0.99, 1.01}, {0.9, 1.1}, {1 / 1.02, 1.0}})
      CHECK(decide({lo, hi, 1e-9, 0.001, 0.02}) == decide({lo, hi, 1.0, 0.001, 0.02}));
    CHECK(decide({1.05, 1.3, 1e-9, 0.001, 0.02}) != decide({1.05, 1.3, 1.0, 0.001, 0.02}));
  }

  TEST_CASE("the floor is symmetric in log time: swapping sides swaps SLOWER and FASTER") {
    CHECK(verdict_of(1.0 / 1.10, 1.0 / 1.03, 1e-5) == Verdict::faster);
    CHECK(to_string(Verdict::slower) == "SLOWER");
    CHECK(to_string(Verdict::uncertain) == "UNCERTAIN");
  }

  TEST_CASE("decide_sweep is Holm over the permutation p-values, then the interval and the floor") {
    // Samples of 8 to 11 per side (exact p-values): the same numbers by hand.
    std::mt19937_64 engine(3);
    std::lognormal_distribution<double> noise(0.0, 0.02);
    std::vector<std::vector<double>> a, b;
    for (std::size_t i = 0; i < 8; ++i) {
      const std::size_t n = 8 + i % 4;
      std::vector<double> x(n), y(n);
      for (double& v : x) v = noise(engine);
      for (double& v : y) v = noise(engine) * (1 + 0.03 * static_cast<double>(i % 3));
      a.push_back(x);
      b.push_back(y);
    }
    std::vector<SamplePair> pairs;
    for (std::size_t i = 0; i < a.size(); ++i) pairs.push_back({a[i], b[i]});
    SweepRule rule;
    rule.alpha = 0.01;
    const auto verdicts = decide_sweep(pairs, rule);
    REQUIRE(verdicts.size() == pairs.size());
    std::vector<double> p;
    for (std::size_t i = 0; i < a.size(); ++i) p.push_back(brunner_munzel(a[i], b[i]).p_value);
    const auto adjusted = holm_adjust(p);
    int slower = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      CAPTURE(i);
      CHECK(verdicts[i].test.method == BrunnerMunzelMethod::exact_permutation);
      CHECK(verdicts[i].test.p_value == p[i]);
      CHECK(verdicts[i].p_adjusted == adjusted[i]);
      const auto hl = hodges_lehmann_ratio(a[i], b[i]);
      CHECK(verdicts[i].ratio.lo == hl.lo);
      CHECK(verdicts[i].verdict == decide({hl.lo, hl.hi, adjusted[i], 0.01, 0.02}));
      slower += verdicts[i].verdict == Verdict::slower;
    }
    CHECK(slower > 0);  // the rule is exercised, not only its UNCERTAIN
    CHECK(decide_sweep({}, rule).empty());
  }

  TEST_CASE("on Monte Carlo p-values decide_sweep decides as the exact p-values do") {
    // The reference's two Monte Carlo cases (exact p 0.0334 and 0.0227, from all labellings) in
    // one sweep, at alphas whose Holm levels lie at least 1.5 times away from both (nearer, the
    // draws may leave a p undecided: kDrawsPerLevel): Holm over the exact p-values and over
    // decide_sweep's must give the same verdicts.
    const auto data = isobench::stats::testing::reference_data("tests/data/permutation/reference.json");
    std::vector<std::vector<double>> a, b;
    std::vector<double> exact;
    for (const auto& c : data["cases"])
      if (c["kind"].get<std::string>().rfind("monte_carlo", 0) == 0) {
        auto x = c["x"].get<std::vector<double>>(), y = c["y"].get<std::vector<double>>();
        a.push_back(x);
        b.push_back(y);
        exact.push_back(c["p"]["two-sided"].get<double>());
      }
    REQUIRE(a.size() == 2);
    std::vector<SamplePair> pairs = {{a[0], b[0]}, {a[1], b[1]}};
    int significant = 0;
    for (double alpha : {0.005, 0.01, 0.15, 0.3}) {
      SweepRule rule;
      rule.alpha = alpha;
      rule.threshold = 0;
      const auto verdicts = decide_sweep(pairs, rule);
      const auto adjusted = holm_adjust(exact);
      for (std::size_t i = 0; i < 2; ++i) {
        CAPTURE(alpha);
        CAPTURE(i);
        CHECK(verdicts[i].test.method == BrunnerMunzelMethod::monte_carlo_permutation);
        CHECK((verdicts[i].p_adjusted < alpha) == (adjusted[i] < alpha));
        CHECK(verdicts[i].verdict == decide({verdicts[i].ratio.lo, verdicts[i].ratio.hi, adjusted[i], alpha, 0}));
        significant += adjusted[i] < alpha;
      }
    }
    CHECK(significant == 4);
  }
}

