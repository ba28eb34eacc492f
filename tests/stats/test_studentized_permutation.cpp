// The indexed sequential count of drawn permutation statistics (detail::DrawnTable::count) is
// the draw-by-draw walk's result exactly: for every alternative, at statistics that equal drawn
// values, fall between them or beyond them, with ties, infinities and zeros among the draws, in
// each of its regimes (no stop: every draw taken; the stop deep in the table, where it skips
// blocks; the stop early), and when the count is continued over a table extended in pieces. And
// the power simulations' Monte Carlo budget against a verdict's.
#include "stats/studentized_permutation.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "stats/brunner_munzel.hpp"
#include "stats/confidence_sequence.hpp"

using namespace isobench::stats;
using isobench::stats::detail::DrawnTable;
using isobench::stats::detail::SequentialCount;

namespace {

std::vector<float> drawn(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal(0.0, 2.0);
  std::vector<float> t(n);
  for (auto& v : t) v = static_cast<float>(normal(engine));
  // Ties, zeros and the infinities of separated labellings, spread through the draw order.
  for (std::size_t i = 0; i < n; i += 97) t[i] = t[(i * 7919) % n];
  for (std::size_t i = 13; i < n; i += 1009) t[i] = 0.0f;
  for (std::size_t i = 501; i < n; i += 20011) t[i] = std::numeric_limits<float>::infinity();
  for (std::size_t i = 777; i < n; i += 30011) t[i] = -std::numeric_limits<float>::infinity();
  return t;
}

// Statistics to ask about: every kind of place relative to the draws.
std::vector<float> probes(std::vector<float> t) {
  std::sort(t.begin(), t.end());
  std::vector<float> p = {0.0f, -0.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                          1e30f, -1e30f};
  for (std::size_t k : {std::size_t(0), std::size_t(1), std::size_t(50), std::size_t(99), std::size_t(100),
                        std::size_t(101), std::size_t(150), std::size_t(1000), std::size_t(3000), t.size() / 2}) {
    for (float v : {t[k], t[t.size() - 1 - k]}) {
      p.push_back(v);
      p.push_back(std::nextafter(v, std::numeric_limits<float>::infinity()));
      p.push_back(std::nextafter(v, -std::numeric_limits<float>::infinity()));
      p.push_back(v * (1 + 1e-10f));
    }
  }
  return p;
}

}  // namespace

TEST_CASE("the indexed sequential count of drawn statistics equals the walk through them") {
  const auto draws = drawn(200'000, 7);
  const DrawnTable table(draws);
  REQUIRE(table.size() == draws.size());
  // Holm's levels over 50 instances at 0.001, and one level in the body of the distribution.
  std::vector<double> levels;
  for (int k = 50; k >= 1; --k) levels.push_back(0.001 / k);
  levels.push_back(0.3);
  bool all = false, deep = false, early = false;
  for (Alternative alternative : {Alternative::less, Alternative::greater, Alternative::two_sided}) {
    for (float statistic : probes(draws)) {
      CAPTURE(static_cast<int>(alternative));
      CAPTURE(statistic);
      SequentialCount indexed, walk;
      table.count(indexed, statistic, alternative, levels);
      table.walk(walk, statistic, alternative, levels);
      CHECK(indexed == walk);
      if (!walk.stopped) all = all || walk.made == draws.size();
      else if (walk.made > 100 * DrawnTable::kBlock) deep = true;
      else early = true;
    }
  }
  CHECK(all);    // no stop: every draw taken
  CHECK(deep);   // the stop deep in the table, past blocks with nothing extreme
  CHECK(early);  // the stop within the first blocks
}

TEST_CASE("a count continued over a table extended in pieces equals the count over the whole") {
  const auto draws = drawn(50'000, 11);
  const DrawnTable whole(draws);
  DrawnTable pieces;
  const std::vector<double> levels = {1e-4, 1e-3};
  for (float statistic : probes(draws)) {
    CAPTURE(statistic);
    SequentialCount once, continued;
    whole.count(once, statistic, Alternative::two_sided, levels);
    pieces = DrawnTable();
    // Pieces that end inside blocks too: a partial block is summarised again when completed.
    for (std::size_t from = 0, step = 1000; from < draws.size(); from += step, step += 77) {
      const std::size_t to = std::min(draws.size(), from + step);
      pieces.append(std::vector<float>(draws.begin() + static_cast<std::ptrdiff_t>(from),
                                       draws.begin() + static_cast<std::ptrdiff_t>(to)));
      pieces.count(continued, statistic, Alternative::two_sided, levels);
      if (continued.stopped) break;
    }
    CHECK(continued == once);
  }
}

TEST_CASE("a table of drawn statistics with a NaN among them is counted by the walk") {
  auto draws = drawn(5'000, 3);
  draws[2'000] = std::numeric_limits<float>::quiet_NaN();
  const DrawnTable table(draws);
  const std::vector<double> levels = {1e-3};
  for (Alternative alternative : {Alternative::less, Alternative::greater, Alternative::two_sided})
    for (float statistic : {0.5f, 4.0f, -6.0f, 9.0f}) {
      SequentialCount indexed, walk;
      table.count(indexed, statistic, alternative, levels);
      table.walk(walk, statistic, alternative, levels);
      CHECK(indexed == walk);
    }
}

TEST_CASE("the simulations' budget: the same p where it decides in time, the verdict's outcome predicted where not") {
  // 20 + 20 untied values (Monte Carlo), y shifted so that p is near 1e-3.
  std::mt19937_64 engine(8);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> x(20), y(20);
  for (double& v : x) v = normal(engine);
  for (double& v : y) v = normal(engine) + 1.2;
  std::vector<double> pooled = x;
  pooled.insert(pooled.end(), y.begin(), y.end());
  std::sort(pooled.begin(), pooled.end());
  TiedLabelling l;
  l.n_x = l.n_y = 20;
  for (double v : pooled) {
    l.group_size.push_back(1);
    l.x_count.push_back(std::find(x.begin(), x.end(), v) != x.end() ? 1 : 0);
  }
  const double t = studentized_statistic(20, 20, placement_sums(l)).value;
  const auto p_at = [&](double level, const MonteCarloBudget& budget) {
    PermutationOptions o;
    o.levels = {level};
    o.budget = budget;
    return studentized_permutation_p(l, t, Alternative::two_sided, o);
  };
  // Far from its level, decided early: the very same answer with either budget.
  const auto far = p_at(0.05, {}), far_sim = p_at(0.05, kSimulationBudget);
  REQUIRE(far.resolved);
  CHECK(far_sim.p_value == far.p_value);
  CHECK(far_sim.labellings == far.labellings);
  CHECK(far_sim.hits == far.hits);
  // At a level near the p (a long count's estimate, or near it), undecided: the verdict's budget
  // draws 200 / level and stays above the level; the simulation's draws a quarter of that and
  // predicts the side the verdict's budget would reach at the rate of hits it saw.
  const auto deep = p_at(1e-6, {});
  const double estimate = deep.hits / deep.labellings;
  double level = 0;
  PermutationPValue full;
  for (double factor : {1.0, 0.9, 1.1, 0.8, 1.25, 0.7, 1.4}) {
    full = p_at(estimate * factor, {});
    if (!full.resolved) {
      level = estimate * factor;
      break;
    }
  }
  CAPTURE(estimate);
  REQUIRE(level > 0);
  const auto sim = p_at(level, kSimulationBudget);
  REQUIRE_FALSE(sim.resolved);
  CHECK(full.p_value >= level);
  CHECK(full.labellings >= kDrawsPerLevel / level);
  CHECK(sim.labellings >= kSimulationBudget.draws_per_level / level);
  CHECK(sim.labellings < full.labellings / 3);
  const ConfidenceSequence sequence(kMonteCarloRisk);
  const auto verdict_draws = static_cast<std::size_t>(std::ceil(kDrawsPerLevel / level));
  const auto predicted_hits = static_cast<std::size_t>(std::llround(sim.hits / sim.labellings * verdict_draws));
  CHECK(sim.p_value == sequence.bounds(predicted_hits, verdict_draws).upper);
}

TEST_CASE("the draws' statistics are the same doubles as those of fdae7ae, tied or untied, up to 153 values a side") {
  // Each row: n, the grid the values are rounded to (0: none, so untied), the candidate's shift,
  // and the p-value, extreme draws and labellings that fdae7ae's statistics library gave for it
  // (its draws summed placements group by group in doubles; since then they are summed in
  // integers from the drawn positions as bits, which must give the same statistics: every
  // count, and so every p, the same). Rows with Monte Carlo draws and with exact enumeration.
  struct Row {
    int n;
    double grid, shift, p, extreme, labellings;
  };
  const std::vector<Row> rows = {
      {20, 0, 0, 0.66254904634715217, 9, 32},
      {20, 0, 0.02, 0.0036095527245862346, 58, 28032},
      {20, 0, 0.04, 0.0009997029518237395, 56, 98912},
      {20, 1, 0, 0.96918567705506575, 24, 32},
      {20, 1, 0.02, 0.56147390850367174, 6, 32},
      {20, 1, 0.04, 0.005410060120920498, 31, 11840},
      {20, 4, 0, 0.38496731398707945, 0, 960566918220},
      {20, 4, 0.02, 0.001110360658658162, 0, 960566918220},
      {20, 4, 0.04, 0.010850499563647153, 0, 960566918220},
      {40, 0, 0, 0.77323896153004057, 13, 32},
      {40, 0, 0.02, 0.00019793437302938855, 45, 426496},
      {40, 0, 0.04, 0.00019442361192689717, 0, 41248},
      {40, 1, 0, 0.74773460289554805, 12, 32},
      {40, 1, 0.02, 0.00019544469935346644, 6, 126144},
      {40, 1, 0.04, 0.00019442361192689717, 0, 41248},
      {40, 4, 0, 0.11172757923603456, 0, 8.0041081319402802e+23},
      {40, 4, 0.02, 0.098903003151640759, 0, 8.0041081319402802e+23},
      {40, 4, 0.04, 1.8455929681997889e-07, 0, 8.0041081319402802e+23},
      {81, 0, 0, 0.27190055947370695, 4, 64},
      {81, 0, 0.02, 0.00019310603417799254, 17, 226336},
      {81, 0, 0.04, 0.00019442361192689717, 0, 41248},
      {81, 1, 0, 0.20779920541999766, 5, 96},
      {81, 1, 0.02, 0.00019442361192689717, 0, 41248},
      {81, 1, 0.04, 0.00019442361192689717, 0, 41248},
      {81, 4, 0, 0.7085281107513004, 0, 2.8230320864441595e+48},
      {81, 4, 0.02, 0.0014276313569462542, 0, 2.8230320864441595e+48},
      {81, 4, 0.04, 0.00019442361192689717, 0, 41248},
      {150, 0, 0, 0.77323896153004057, 13, 32},
      {150, 0, 0.02, 0.00019287015669882242, 1, 67040},
      {150, 0, 0.04, 0.00019442361192689717, 0, 41248},
      {150, 1, 0, 0.97871656296513265, 25, 32},
      {150, 1, 0.02, 0.00019442361192689717, 0, 41248},
      {150, 1, 0.04, 0.00019442361192689717, 0, 41248},
      {150, 4, 0, 0.97871656296513265, 25, 32},
      {150, 4, 0.02, 0.00019442361192689717, 0, 41248},
      {150, 4, 0.04, 0.00019442361192689717, 0, 41248},
  };
  int k = 0;
  for (const Row& row : rows) {
    std::mt19937_64 engine(1000 + k++);
    std::lognormal_distribution<double> noise(0.0, 0.03);
    const auto value = [&](double f) {
      const double v = 100 * f * noise(engine);
      return row.grid > 0 ? row.grid * std::round(v / row.grid) : v;
    };
    std::vector<double> x(static_cast<std::size_t>(row.n)), y(static_cast<std::size_t>(row.n) + 3);
    for (double& v : x) v = value(1.0);
    for (double& v : y) v = value(1 + row.shift);
    PermutationOptions o;
    o.levels = {0.0002, 0.001};
    const auto r = brunner_munzel(x, y, Alternative::two_sided, BrunnerMunzelDistribution::t, o);
    CAPTURE(row.n);
    CAPTURE(row.grid);
    CAPTURE(row.shift);
    CHECK(r.p_value == row.p);
    CHECK(r.extreme == row.extreme);
    CHECK(r.labellings == row.labellings);
  }
}
