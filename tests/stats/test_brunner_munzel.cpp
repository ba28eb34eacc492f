#include "stats/brunner_munzel.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "tests/stats/scipy_reference.hpp"

using namespace isobench::stats;
using isobench::stats::testing::agrees;
using isobench::stats::testing::doubles;

namespace {

Alternative alternative_named(const std::string& name) {
  if (name == "less") return Alternative::less;
  if (name == "greater") return Alternative::greater;
  return Alternative::two_sided;
}

constexpr Alternative kAlternatives[] = {Alternative::two_sided, Alternative::less, Alternative::greater};

bool separated_or_tied(const std::vector<double>& x, const std::vector<double>& y) {
  const auto [xmin, xmax] = std::minmax_element(x.begin(), x.end());
  const auto [ymin, ymax] = std::minmax_element(y.begin(), y.end());
  return *xmax < *ymin || *ymax < *xmin || (*xmin == *xmax && *ymin == *ymax && *xmin == *ymin);
}

// tests/data/permutation/reference.json, written by tools/permutation_reference.py.
const nlohmann::json& permutation_reference() {
  static const nlohmann::json data = isobench::stats::testing::reference_data("tests/data/permutation/reference.json");
  return data;
}

// Number of labellings of the pooled values whose relative effect is at least as extreme as
// the observed one, by brute force over all C(n+m, n) subsets (small n+m only). At
// separation the relative effect and the studentized statistic order the labellings alike.
double brute_force_permutation_p(const std::vector<double>& x, const std::vector<double>& y, Alternative alt) {
  std::vector<double> pooled(x);
  pooled.insert(pooled.end(), y.begin(), y.end());
  const std::size_t n = x.size(), total = pooled.size();
  auto effect = [&](unsigned mask) {
    double s = 0;  // sum over (x_i, y_j) of [x < y] + [x == y] / 2
    for (std::size_t i = 0; i < total; ++i)
      for (std::size_t j = 0; j < total; ++j)
        if ((mask >> i & 1u) && !(mask >> j & 1u))
          s += pooled[i] < pooled[j] ? 1.0 : pooled[i] == pooled[j] ? 0.5 : 0.0;
    return s / static_cast<double>(n * (total - n));
  };
  const double observed = effect((1u << n) - 1);
  double count = 0, all = 0;
  for (unsigned mask = 0; mask < (1u << total); ++mask) {
    if (static_cast<std::size_t>(__builtin_popcount(mask)) != n) continue;
    all += 1;
    const double e = effect(mask);
    const bool extreme = alt == Alternative::less      ? e >= observed - 1e-12
                         : alt == Alternative::greater ? e <= observed + 1e-12
                                                       : std::abs(e - 0.5) >= std::abs(observed - 0.5) - 1e-12;
    if (extreme) count += 1;
  }
  return count / all;
}

// 1..n for x and n+1..2n for y, with x's largest and y's smallest swapped `inversions` times
// inward: 0 is complete separation, 1 one inverted pair.
std::pair<std::vector<double>, std::vector<double>> nearly_separated(std::size_t n, std::size_t m, std::size_t inversions) {
  std::vector<double> x(n), y(m);
  std::iota(x.begin(), x.end(), 1.0);
  std::iota(y.begin(), y.end(), static_cast<double>(n) + 1);
  for (std::size_t k = 0; k < inversions; ++k) std::swap(x[n - 1 - k], y[k]);
  return {x, y};
}

}  // namespace

TEST_SUITE("brunner_munzel") {
  TEST_CASE("the asymptotic p-value and the statistic agree with scipy.stats.brunnermunzel") {
    int compared = 0, tiny = 0, defined_by_us = 0;
    // The permutation p-value is not what is compared here: no level to resolve keeps it cheap.
    PermutationOptions coarse;
    coarse.levels = {};
    for (const auto& c : isobench::stats::testing::scipy_reference()["two_sample"]) {
      const auto x = doubles(c["x"]), y = doubles(c["y"]);
      for (const auto& [dist_name, by_alt] : c["brunnermunzel"].items()) {
        const auto dist = dist_name == "t" ? BrunnerMunzelDistribution::t : BrunnerMunzelDistribution::normal;
        for (const auto& [alt_name, expected] : by_alt.items()) {
          const auto r = brunner_munzel(x, y, alternative_named(alt_name), dist, coarse);
          CAPTURE(c["kind"].get<std::string>());
          CAPTURE(dist_name);
          CAPTURE(alt_name);
          CAPTURE(x.size());
          CAPTURE(y.size());
          if (r.method == BrunnerMunzelMethod::separation || r.method == BrunnerMunzelMethod::all_tied) {
            // scipy's NaN (t) or its 0/1 from an infinite statistic (normal): our defined
            // answers are checked below.
            CHECK(separated_or_tied(x, y));
            CHECK(std::isnan(r.asymptotic_p_value));
            ++defined_by_us;
            continue;
          }
          REQUIRE_FALSE(expected["pvalue"].is_null());
          const double p = expected["pvalue"].get<double>();
          CAPTURE(p);
          CAPTURE(r.asymptotic_p_value);
          CHECK(agrees(r.asymptotic_p_value, p));
          CHECK(agrees(r.statistic, expected["statistic"].get<double>()));
          if (r.method == BrunnerMunzelMethod::asymptotic) CHECK(r.p_value == r.asymptotic_p_value);
          ++compared;
          if (p < 1e-12) ++tiny;
        }
      }
    }
    MESSAGE("compared " << compared << " p-values with scipy (" << tiny << " below 1e-12); " << defined_by_us
                        << " defined by us");
    CHECK(compared > 1000);
    CHECK(tiny >= 30);  // the deep tail is compared digit for digit, not waved through
    CHECK(defined_by_us > 0);
  }

  TEST_CASE("permutation p-values equal an independent brute-force enumeration") {
    int exact = 0, monte_carlo = 0;
    for (const auto& c : permutation_reference()["cases"]) {
      const auto x = doubles(c["x"]), y = doubles(c["y"]);
      CAPTURE(c["kind"].get<std::string>());
      CAPTURE(x.size());
      CAPTURE(y.size());
      for (const auto& [alt_name, expected] : c["p"].items()) {
        CAPTURE(alt_name);
        const double reference = expected.get<double>();
        const auto r = brunner_munzel(x, y, alternative_named(alt_name));
        CAPTURE(to_string(r.method));
        CAPTURE(reference);
        CAPTURE(r.p_value);
        if (!c["statistic"].is_null()) CHECK(agrees(r.statistic, c["statistic"].get<double>()));
        if (r.method == BrunnerMunzelMethod::monte_carlo_permutation) {
          // Resolved at the default level 0.001, far from these p-values: an interval that holds
          // the exact p but for a 1e-3 chance, on its side of the level.
          CHECK(r.resolved);
          CHECK(r.p_lower <= reference);
          CHECK(r.p_value >= reference);
          CHECK((r.p_value < 0.001) == (reference < 0.001));
          ++monte_carlo;
        } else {
          CHECK(agrees(r.p_value, reference));
          if (r.method != BrunnerMunzelMethod::all_tied)
            CHECK(r.labellings == doctest::Approx(c["labellings"].get<double>()).epsilon(1e-12));
          ++exact;
        }
      }
    }
    MESSAGE(exact << " exact and " << monte_carlo << " Monte Carlo p-values compared");
    CHECK(exact > 150);
    CHECK(monte_carlo >= 6);
  }

  TEST_CASE("the Monte Carlo p-value is reproducible by seed and puts the exact p on its side of every level") {
    // Both Monte Carlo cases of the reference (13 + 13 untied: all 10,400,600 labellings; 12 + 13
    // tied), every alternative, with levels a factor 2 around the exact p and others at least 1.7
    // times away: every side must come out as the exact p's, the interval must hold it, and a
    // seed must give the same answer every time. A level within 3% of a small exact p is beyond
    // what the draws resolve (kDrawsPerLevel): undecided, and the p-value above it.
    int decided = 0, undecided = 0;
    for (const auto& c : permutation_reference()["cases"]) {
      if (c["kind"].get<std::string>().rfind("monte_carlo", 0) != 0) continue;
      const auto x = doubles(c["x"]), y = doubles(c["y"]);
      for (const auto& [alt_name, expected] : c["p"].items()) {
        const double exact = expected.get<double>();
        const Alternative alt = alternative_named(alt_name);
        CAPTURE(c["kind"].get<std::string>());
        CAPTURE(alt_name);
        CAPTURE(exact);
        PermutationOptions options;
        options.levels = {exact / 2, 0.001, 0.005, 0.06, 0.5};
        if (exact < 0.4) options.levels.push_back(exact * 2);
        const auto r = brunner_munzel(x, y, alt, BrunnerMunzelDistribution::t, options);
        REQUIRE(r.method == BrunnerMunzelMethod::monte_carlo_permutation);
        CAPTURE(r.p_lower);
        CAPTURE(r.p_value);
        CHECK(r.resolved);
        CHECK(r.p_lower <= exact);
        CHECK(r.p_value >= exact);
        for (double level : options.levels) CHECK((r.p_value < level) == (exact < level));
        const auto again = brunner_munzel(x, y, alt, BrunnerMunzelDistribution::t, options);
        CHECK(again.p_value == r.p_value);
        CHECK(again.labellings == r.labellings);
        ++decided;

        if (exact > 0.5) continue;  // near 1 the spread is small: 3% is resolved
        options.levels = {exact * 0.97};
        const auto near = brunner_munzel(x, y, alt, BrunnerMunzelDistribution::t, options);
        CHECK_FALSE(near.resolved);
        CHECK(near.p_value > options.levels[0]);  // the conservative side: not below the level
        CHECK(near.p_lower <= exact);
        // It gives up at the first look (every 5% more draws) from kDrawsPerLevel / level on.
        CHECK(near.labellings >= kDrawsPerLevel / options.levels[0]);
        CHECK(near.labellings <= 1.06 * kDrawsPerLevel / options.levels[0] + 64);
        ++undecided;
      }
    }
    CHECK(decided == 6);
    CHECK(undecided == 4);
  }

  TEST_CASE("over 100 seeds the Monte Carlo interval holds the exact p and stops once the levels are decided") {
    const nlohmann::json* untied = nullptr;
    for (const auto& c : permutation_reference()["cases"])
      if (c["kind"] == "monte_carlo_untied") untied = &c;
    REQUIRE(untied != nullptr);
    const auto x = doubles((*untied)["x"]), y = doubles((*untied)["y"]);
    const double exact = (*untied)["p"]["two-sided"].get<double>();  // 0.0334
    PermutationOptions options;
    options.levels = {0.001, 0.01, 0.1};
    int misses = 0, wrong_side = 0;
    double draws = 0;
    const int seeds = 100;
    for (int s = 0; s < seeds; ++s) {
      options.seed = 1000 + static_cast<std::uint64_t>(s);
      const auto r = brunner_munzel(x, y, Alternative::two_sided, BrunnerMunzelDistribution::t, options);
      misses += !(r.p_lower <= exact && exact <= r.p_value);
      wrong_side += (r.p_value < 0.1) != (exact < 0.1) || (r.p_value < 0.01) != (exact < 0.01);
      draws += r.labellings;
    }
    CAPTURE(exact);
    CHECK(misses == 0);  // each misses with probability at most 1e-3
    CHECK(wrong_side == 0);
    // 0.0334 lies between 0.01 and 0.1, a factor 3 from either: a few hundred draws decide it,
    // where an estimate to 100 extreme draws took about 3,000.
    MESSAGE("mean draws to decide p = " << exact << " against 0.01 and 0.1: " << draws / seeds);
    CHECK(draws / seeds < 3000);
  }

  TEST_CASE("complete separation is the most significant labelling, one inversion the next") {
    for (std::size_t n = 2; n <= 12; ++n)
      for (std::size_t m : {n, n + 1}) {
        CAPTURE(n);
        CAPTURE(m);
        const auto [sx, sy] = nearly_separated(n, m, 0);
        const auto [ix, iy] = nearly_separated(n, m, 1);
        for (Alternative alt : {Alternative::two_sided, Alternative::less}) {
          CAPTURE(to_string(alt));
          const auto separated = brunner_munzel(sx, sy, alt);
          const auto inverted = brunner_munzel(ix, iy, alt);
          CHECK(separated.method == BrunnerMunzelMethod::separation);
          CHECK(separated.p_value < inverted.p_value);
          CHECK(separated.p_value == doctest::Approx((alt == Alternative::two_sided ? 2 : 1) / separated.labellings));
        }
      }
    // n = 8: the asymptotic t gave one inversion p = 3.1e-12, 2e4 times below separation's
    // 2 / 12870; by permutation the two separations and the two one-inversion labellings are
    // the four most extreme of 12870 (tools/permutation_reference.py's one_inversion case).
    const auto [ix, iy] = nearly_separated(8, 8, 1);
    const auto r = brunner_munzel(ix, iy);
    CHECK(r.method == BrunnerMunzelMethod::exact_permutation);
    CHECK(r.p_value == doctest::Approx(4.0 / 12870).epsilon(1e-12));
    CHECK(r.asymptotic_p_value < 1e-10);
  }

  TEST_CASE("complete separation gets the exact permutation p-value") {
    const std::vector<double> low{1, 2, 3}, high{4, 5, 6};
    auto r = brunner_munzel(low, high);
    CHECK(r.method == BrunnerMunzelMethod::separation);
    CHECK(r.p_value == doctest::Approx(2.0 / 20).epsilon(1e-15));
    CHECK(r.relative_effect == 1.0);
    CHECK(std::isinf(r.statistic));
    CHECK(r.statistic > 0);
    CHECK(r.labellings == 20);
    CHECK(brunner_munzel(low, high, Alternative::less).p_value == doctest::Approx(1.0 / 20).epsilon(1e-15));
    CHECK(brunner_munzel(low, high, Alternative::greater).p_value == 1.0);
    CHECK(brunner_munzel(high, low, Alternative::greater).p_value == doctest::Approx(1.0 / 20).epsilon(1e-15));
    CHECK(brunner_munzel(high, low, Alternative::two_sided).p_value == doctest::Approx(2.0 / 20).epsilon(1e-15));
  }

  TEST_CASE("separation p-values equal brute-force enumeration, ties included") {
    const std::vector<std::pair<std::vector<double>, std::vector<double>>> cases{
        {{1, 2}, {3, 4}},          {{1, 1, 1}, {2, 2}},       {{5, 6, 7}, {1, 1}},
        {{1, 2, 2}, {3, 3, 3, 9}}, {{1, 1}, {2, 2}},          {{0.5, 0.7, 0.9, 1.1}, {2, 3, 4, 5, 6}},
        {{2, 2, 3}, {4, 4, 4}}};
    for (const auto& [x, y] : cases) {
      for (Alternative alt : kAlternatives) {
        CAPTURE(to_string(alt));
        const auto r = brunner_munzel(x, y, alt);
        REQUIRE(r.method == BrunnerMunzelMethod::separation);
        CHECK(r.p_value == doctest::Approx(brute_force_permutation_p(x, y, alt)).epsilon(1e-14));
      }
    }
    // {1,1} vs {2,2}: the reverse labelling also separates, two-sided p = 2/6.
    CHECK(brunner_munzel(std::vector<double>{1, 1}, std::vector<double>{2, 2}).p_value ==
          doctest::Approx(2.0 / 6));
  }

  TEST_CASE("separation of large samples is cheap and tiny") {
    std::vector<double> x(5000), y(5000);
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = 1.0 + 1e-6 * static_cast<double>(i);
      y[i] = 2.0 + 1e-6 * static_cast<double>(i);
    }
    const auto r = brunner_munzel(x, y);
    CHECK(r.method == BrunnerMunzelMethod::separation);
    CHECK(r.p_value >= 0);
    CHECK(r.p_value < 1e-300);
  }

  TEST_CASE("all values equal gives p = 1 for every alternative") {
    const std::vector<double> x(5, 3.25), y(7, 3.25);
    for (Alternative alt : kAlternatives) {
      const auto r = brunner_munzel(x, y, alt);
      CHECK(r.method == BrunnerMunzelMethod::all_tied);
      CHECK(r.p_value == 1.0);
      CHECK(r.statistic == 0.0);
      CHECK(r.relative_effect == 0.5);
    }
  }

  TEST_CASE("beyond the permutation boundary the asymptotic p-value is used") {
    std::vector<double> x(kPermutationMaxValues / 2 + 1), y(kPermutationMaxValues / 2);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0 + 0.001 * static_cast<double>(i * 37 % x.size());
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = 1.02 + 0.001 * static_cast<double>(i * 41 % y.size());
    const auto r = brunner_munzel(x, y);
    CHECK(r.method == BrunnerMunzelMethod::asymptotic);
    CHECK(r.p_value == r.asymptotic_p_value);
    CHECK(r.labellings == 0);
    x.pop_back();
    const auto inside = brunner_munzel(x, y);
    CHECK(inside.method == BrunnerMunzelMethod::monte_carlo_permutation);
    CHECK(inside.labellings > 0);
  }

  TEST_CASE("a sample with fewer than 2 values or a non-finite value throws") {
    const std::vector<double> one{1.0}, two{1.0, 2.0}, none{};
    CHECK_THROWS_AS(brunner_munzel(one, two), std::invalid_argument);
    CHECK_THROWS_AS(brunner_munzel(two, one), std::invalid_argument);
    CHECK_THROWS_AS(brunner_munzel(none, two), std::invalid_argument);
    CHECK_THROWS_WITH(brunner_munzel(one, two),
                      "brunner_munzel: sample x has 1 value(s); the test needs at least 2 per sample");
    const std::vector<double> with_nan{1.0, std::nan("")};
    CHECK_THROWS_AS(brunner_munzel(with_nan, two), std::invalid_argument);
  }

  TEST_CASE("tiny p-values keep their precision in the tail") {
    std::vector<double> x, y;
    for (int i = 0; i < 250; ++i) {
      x.push_back(1.0 + 0.001 * i);
      y.push_back(1.15 + 0.001 * i);  // overlapping a little: not separated
    }
    const auto r = brunner_munzel(x, y, Alternative::less);
    CHECK(r.method == BrunnerMunzelMethod::asymptotic);
    CHECK(r.p_value > 0);
    CHECK(r.p_value < 1e-30);
  }
  TEST_CASE("brunner_munzel_permutation is brunner_munzel without the asymptotic p where a permutation p answers") {
    const auto same_but_asymptotic = [](const BrunnerMunzelResult& full, const BrunnerMunzelResult& lean) {
      CHECK(lean.method == full.method);
      CHECK(lean.p_value == full.p_value);
      CHECK(lean.p_lower == full.p_lower);
      CHECK(lean.statistic == full.statistic);
      CHECK(lean.relative_effect == full.relative_effect);
      CHECK(lean.labellings == full.labellings);
      CHECK(lean.extreme == full.extreme);
      CHECK(lean.resolved == full.resolved);
    };
    // Exact (untied and tied), Monte Carlo (untied and tied), both distributions, every alternative.
    std::vector<std::pair<std::vector<double>, std::vector<double>>> cases;
    std::vector<double> a, b, c, d;
    for (int i = 0; i < 8; ++i) a.push_back(1.0 + 0.01 * ((i * 7) % 8)), b.push_back(1.02 + 0.013 * ((i * 5) % 8));
    cases.emplace_back(a, b);
    for (int i = 0; i < 30; ++i) c.push_back(1.0 + 0.001 * ((i * 17) % 30)), d.push_back(1.01 + 0.001 * ((i * 11) % 30));
    cases.emplace_back(c, d);
    for (auto& v : c) v = std::round(v * 200) / 200;
    for (auto& v : d) v = std::round(v * 200) / 200;
    cases.emplace_back(c, d);
    for (const auto& [x, y] : cases)
      for (auto distribution : {BrunnerMunzelDistribution::t, BrunnerMunzelDistribution::normal})
        for (auto alternative : kAlternatives) {
          PermutationOptions options;
          options.levels = {0.001, 0.01};
          const auto full = brunner_munzel(x, y, alternative, distribution, options);
          const auto lean = brunner_munzel_permutation(x, y, alternative, distribution, options);
          same_but_asymptotic(full, lean);
          CHECK(std::isfinite(full.asymptotic_p_value));
          CHECK(std::isnan(lean.asymptotic_p_value));
        }
    // Beyond kPermutationMaxValues the asymptotic p is the p-value: both compute it.
    std::vector<double> x, y;
    for (int i = 0; i < 250; ++i) x.push_back(1.0 + 0.001 * i), y.push_back(1.01 + 0.001 * i);
    const auto full = brunner_munzel(x, y, Alternative::two_sided, BrunnerMunzelDistribution::t, {});
    const auto lean = brunner_munzel_permutation(x, y, Alternative::two_sided, BrunnerMunzelDistribution::t, {});
    CHECK(lean.method == BrunnerMunzelMethod::asymptotic);
    same_but_asymptotic(full, lean);
    CHECK(lean.asymptotic_p_value == full.asymptotic_p_value);
  }
}
