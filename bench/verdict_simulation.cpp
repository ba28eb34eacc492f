// The error rates of isobench's statistics on simulated data (a benchmark, not a test; its
// results are docs/results/verdict-simulation/):
//   verdict_simulation [--scale S] [--seed N] [--sections 1,2,3,4,5,6] [--json FILE]
// S multiplies every repetition count (default 1; 0.25 gives a quarter); --sections runs only
// those sections (each has its own seeds, so a section's numbers do not depend on the others).
// The JSON file is rewritten after every row, so a run cut short keeps every row it finished.
//
// 1. Size of the asymptotic Brunner-Munzel t test, the evidence for kPermutationMaxValues: for
//    untied data the statistic of a labelling depends on the ranks alone, so uniform random
//    labellings of 2n ranks are exactly the null distribution, whatever the data.
// 2. A/A (identical distributions on both sides): the verdict's false-positive rate (SLOWER or
//    FASTER) at alpha 0.001 for one comparison, and the family-wise rate of 50-instance sweeps
//    under Holm, for lognormal 1% and 5%, bimodal, heavy-tailed and heavily tied samples at
//    n = 8, 12, 20, 30.
// 3. A/A under the sequential rule (looks 8, 12, 16, 24, 32, for each spending function): false
//    verdicts of one instance and of 50-instance sweeps, the mean samples per side, and the trap
//    it replaces (the asymptotic t at alpha at every look, no spending).
// 4. Power: SLOWER verdicts at a few slowdowns, fixed n and sequential for each spending (with
//    the mean samples per side).
// 5. The separation look ab --until-verdict adds where its first cannot reject
//    (stats::early_separation_look: a look that stops SLOWER or FASTER only):
//    for sweeps of 4 and 50 instances at most 20 samples per side, the default looks with and
//    without it on the same samples: false verdicts under A/A, SLOWER verdicts at 3%, 5% and 10%
//    slowdowns, mean samples per side, the share of SAME verdicts (Pocock spending, ab's default).
// 6. The futility stop (stats::futile_at_look: an instance whose estimate lies inside the floor
//    stops UNCERTAIN before the last ordinary look where it is unlikely to settle inside or beyond
//    the floor by then): ab's default design (use_default_looks up to 20 per side, extended to 60)
//    over 4 and 30 instances, with futility levels 0 (none), 0.01, 0.02 and 0.05 on the same
//    samples: false verdicts under A/A, SLOWER and SAME verdicts at changes of 1% (inside the
//    floor), 2%, 3%, 5% and 10%, mean samples per side, and the share the rule stopped.
// Every count comes with its Wilson 95% interval; the JSON file holds the raw counts.
#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "orchestrator/sequential_plan.hpp"
#include "stats/brunner_munzel.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/multiple_testing.hpp"
#include "stats/random.hpp"
#include "stats/sequential_design.hpp"
#include "stats/studentized_permutation.hpp"
#include "stats/sweep_verdict.hpp"
#include "stats/verdict.hpp"
#include "stats/wilson_interval.hpp"

using namespace isobench::stats;

namespace {

constexpr double kAlpha = 0.001;
constexpr double kThreshold = 0.02;  // compare's default noise floor
constexpr std::size_t kSweep = 50;
const std::vector<std::size_t> kSizes = {8, 12, 20, 30};
const std::vector<std::size_t> kLooks = {8, 12, 16, 24, 32};

using Draw = std::function<double(std::mt19937_64&)>;

struct Distribution {
  std::string name;
  Draw draw;
};

double normal(std::mt19937_64& e) {
  // Box-Muller from the engine's bits: the same numbers with every standard library.
  const double u1 = (static_cast<double>(e() >> 11) + 0.5) * 0x1.0p-53;
  const double u2 = static_cast<double>(e() >> 11) * 0x1.0p-53;
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
}
double uniform(std::mt19937_64& e) { return (static_cast<double>(e() >> 11) + 0.5) * 0x1.0p-53; }

std::vector<Distribution> distributions() {
  return {
      {"lognormal 1%", [](std::mt19937_64& e) { return std::exp(0.01 * normal(e)); }},
      {"lognormal 5%", [](std::mt19937_64& e) { return std::exp(0.05 * normal(e)); }},
      // Two modes 8% apart (a clock or cache state flipping between samples), 30% in the upper.
      {"bimodal", [](std::mt19937_64& e) { return (uniform(e) < 0.3 ? 1.08 : 1.0) * std::exp(0.01 * normal(e)); }},
      // 1% noise plus a Pareto tail of index 1.5 (infinite variance): rare samples far slower.
      {"heavy-tailed",
       [](std::mt19937_64& e) { return std::exp(0.01 * normal(e)) * (1 + 0.02 * (std::pow(uniform(e), -1 / 1.5) - 1)); }},
      // 3% noise on a clock of 2% steps: a handful of distinct values.
      {"heavily tied", [](std::mt19937_64& e) { return std::round(50 * std::exp(0.03 * normal(e))) / 50; }},
  };
}

struct Count {
  std::size_t hits = 0, trials = 0;
  nlohmann::json json() const {
    const auto w = wilson_interval(hits, trials);
    return {{"hits", hits}, {"trials", trials}, {"rate", w.estimate}, {"ci95", {w.lower, w.upper}}};
  }
  std::string text() const {
    const auto w = wilson_interval(hits, trials);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%zu/%zu = %.3f%% [%.3f, %.3f]", hits, trials, 100 * w.estimate, 100 * w.lower,
                  100 * w.upper);
    return buf;
  }
};

std::vector<double> sample(const Draw& draw, std::mt19937_64& e, std::size_t n, double factor = 1) {
  std::vector<double> v(n);
  for (double& x : v) x = factor * draw(e);
  return v;
}

// The permutation p, resolved at `level` (the raw test's alpha, or Bonferroni's alpha / m).
double p_value(std::span<const double> a, std::span<const double> b, double level) {
  PermutationOptions o;
  o.levels = {level};
  return brunner_munzel(a, b, Alternative::two_sided, BrunnerMunzelDistribution::t, o).p_value;
}

// compare's verdicts on one sweep: stats::decide_sweep, the function compare decides with.
std::vector<Verdict> sweep_verdicts(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
  std::vector<SamplePair> pairs;
  for (std::size_t i = 0; i < a.size(); ++i) pairs.push_back({a[i], b[i]});
  SweepRule rule;
  rule.alpha = kAlpha;
  rule.threshold = kThreshold;
  std::vector<Verdict> out;
  for (const auto& v : decide_sweep(pairs, rule)) out.push_back(v.verdict);
  return out;
}

bool flagged(Verdict v) { return v == Verdict::slower || v == Verdict::faster; }

std::size_t repetitions(double scale, std::size_t base) {
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(scale * static_cast<double>(base))));
}

struct Spending {
  const char* name;
  SpendingFunction function;
  std::uint64_t seed_offset;  // Pocock keeps the seeds section 3 and 4 had before OBF was added
};
const Spending kSpendings[] = {{"Pocock", SpendingFunction::pocock, 0},
                               {"O'Brien-Fleming", SpendingFunction::obrien_fleming, 500}};

// The output so far, rewritten to the JSON file after every row.
struct Output {
  nlohmann::json json;
  std::string path;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
  void save() {
    json["seconds"] = seconds();
    if (!path.empty()) std::ofstream(path) << json.dump(1) << "\n";
  }
};

struct SequentialOutcome {
  Verdict verdict = Verdict::uncertain;
  std::size_t samples = 0;
  bool naive_flagged = false;  // asymptotic t p < alpha at any look, no spending
};

SequentialOutcome run_sequential(const SequentialDesign& design, const std::vector<double>& a,
                                 const std::vector<double>& b, bool with_naive) {
  SequentialOutcome out;
  for (std::size_t look = 0; look < design.looks.size(); ++look) {
    const auto d = decide_at_look(design, look, a, b, kThreshold);
    if (d.stop && out.samples == 0) {
      out.verdict = d.verdict;
      out.samples = design.looks[look].n;
      if (!with_naive) break;
    }
    if (with_naive) {
      const std::size_t n = design.looks[look].n;
      PermutationOptions coarse;  // only the asymptotic p is read, or the closed form's
      coarse.levels = {};
      const auto r = brunner_munzel(std::span(a).first(n), std::span(b).first(n), Alternative::two_sided,
                                    BrunnerMunzelDistribution::t, coarse);
      const double p = std::isnan(r.asymptotic_p_value) ? r.p_value : r.asymptotic_p_value;
      out.naive_flagged = out.naive_flagged || p < kAlpha;
    }
  }
  return out;
}

// 1. The asymptotic test's size on untied data: counts of p_t < level per n.
void asymptotic_size(Output& out, double scale, std::uint64_t seed) {
  const std::vector<double> levels = {1e-2, 1e-3, 1e-4, 1e-5};
  const std::vector<std::size_t> sizes = {8, 12, 20, 30, 50, 100, 200, 300, 500};
  out.json["asymptotic_size"] = nlohmann::json::array();
  std::printf("\n## 1. Size of the asymptotic t test (untied data, exact null by random labellings)\n\n");
  std::printf("| n per side | labellings |");
  for (double l : levels) std::printf(" p_t < %g: rate / level |", l);
  std::printf("\n| --- | --- |");
  for (std::size_t i = 0; i < levels.size(); ++i) std::printf(" --- |");
  std::printf("\n");
  for (std::size_t n : sizes) {
    const std::size_t reps = repetitions(scale, n <= 100 ? 2'000'000 : 1'000'000);
    std::mt19937_64 engine(seed + n);
    TiedLabelling l;
    l.n_x = l.n_y = n;
    l.group_size.assign(2 * n, 1);
    std::vector<std::uint32_t> labels(2 * n);
    for (std::size_t i = 0; i < 2 * n; ++i) labels[i] = i < n ? 1 : 0;
    std::vector<std::size_t> hits(levels.size(), 0);
    for (std::size_t r = 0; r < reps; ++r) {
      partial_shuffle(labels, labels.size(), engine);
      l.x_count = labels;
      const auto s = studentized_statistic(n, n, placement_sums(l));
      double p = 0;  // separation: the t p-value is 0 in the limit
      if (!s.degenerate)
        p = 2 * boost::math::cdf(boost::math::complement(boost::math::students_t_distribution<double>(s.df), std::abs(s.value)));
      for (std::size_t k = 0; k < levels.size(); ++k) hits[k] += p < levels[k];
    }
    std::printf("| %zu | %zu |", n, reps);
    for (std::size_t k = 0; k < levels.size(); ++k) {
      const auto w = wilson_interval(hits[k], reps);
      std::printf(" %.2f [%.2f, %.2f] |", w.estimate / levels[k], w.lower / levels[k], w.upper / levels[k]);
    }
    std::printf("\n");
    std::fflush(stdout);
    out.json["asymptotic_size"].push_back({{"n", n}, {"labellings", reps}, {"levels", levels}, {"hits", hits}});
    out.save();
  }
}

// 2. A/A at fixed n: the raw test, one comparison's verdict, the family-wise rate of sweeps.
void aa_fixed(Output& out, double scale, std::uint64_t seed) {
  const std::size_t single_reps = repetitions(scale, 20000), sweep_reps = repetitions(scale, 4000);
  const auto dists = distributions();
  out.json["aa_fixed"] = nlohmann::json::array();
  std::printf("\n## 2. A/A: false verdicts (SLOWER or FASTER) at alpha %g\n\n", kAlpha);
  std::printf("| distribution | n per side | raw test p < alpha | one comparison | %zu-instance sweeps under Holm |\n",
              kSweep);
  std::printf("| --- | --- | --- | --- | --- |\n");
  for (std::size_t d = 0; d < dists.size(); ++d) {
    for (std::size_t n : kSizes) {
      std::mt19937_64 engine(seed + 1000 * (d + 1) + n);
      Count raw, single, sweeps;
      for (std::size_t r = 0; r < single_reps; ++r) {
        const auto a = sample(dists[d].draw, engine, n), b = sample(dists[d].draw, engine, n);
        const auto v = sweep_verdicts({a}, {b});
        raw.trials++;
        raw.hits += p_value(a, b, kAlpha) < kAlpha;
        single.trials++;
        single.hits += flagged(v[0]);
      }
      for (std::size_t r = 0; r < sweep_reps; ++r) {
        std::vector<std::vector<double>> a, b;
        for (std::size_t i = 0; i < kSweep; ++i) {
          a.push_back(sample(dists[d].draw, engine, n));
          b.push_back(sample(dists[d].draw, engine, n));
        }
        const auto v = sweep_verdicts(a, b);
        sweeps.trials++;
        sweeps.hits += std::any_of(v.begin(), v.end(), flagged);
      }
      std::printf("| %s | %zu | %s | %s | %s |\n", dists[d].name.c_str(), n, raw.text().c_str(), single.text().c_str(),
                  sweeps.text().c_str());
      std::fflush(stdout);
      out.json["aa_fixed"].push_back({{"distribution", dists[d].name}, {"n", n}, {"raw_test", raw.json()},
                                      {"single", single.json()}, {"sweep_family_wise", sweeps.json()}});
      out.save();
    }
  }
}

// 3. A/A under the sequential rule, for each spending function. The trap (the asymptotic t at
// alpha at every look) does not depend on the spending: it is counted once, beside Pocock.
void aa_sequential(Output& out, double scale, std::uint64_t seed) {
  const std::size_t single_reps = repetitions(scale, 20000), sweep_reps = repetitions(scale, 1000);
  const auto dists = distributions();
  out.json["aa_sequential"] = nlohmann::json::array();
  std::printf("\n## 3. A/A: the sequential rule (looks 8, 12, 16, 24, 32)\n\n");
  std::printf("| spending | distribution | one instance: false verdicts | mean samples | asymptotic t at alpha at every "
              "look (the trap) | %zu-instance sweeps: family-wise | mean samples |\n"
              "| --- | --- | --- | --- | --- | --- | --- |\n",
              kSweep);
  for (const Spending& spending : kSpendings) {
    const auto single_design = sequential_design(kLooks, kAlpha, 1, spending.function);
    const auto sweep_design = sequential_design(kLooks, kAlpha, kSweep, spending.function);
    const bool with_naive = spending.function == SpendingFunction::pocock;
    for (std::size_t d = 0; d < dists.size(); ++d) {
      std::mt19937_64 engine(seed + 5000 + spending.seed_offset + d);
      Count single, naive, sweeps;
      double samples = 0, sweep_samples = 0;
      for (std::size_t r = 0; r < single_reps; ++r) {
        const auto a = sample(dists[d].draw, engine, kLooks.back()), b = sample(dists[d].draw, engine, kLooks.back());
        const auto o = run_sequential(single_design, a, b, with_naive);
        single.trials++;
        single.hits += flagged(o.verdict);
        naive.trials++;
        naive.hits += o.naive_flagged;
        samples += static_cast<double>(o.samples);
      }
      for (std::size_t r = 0; r < sweep_reps; ++r) {
        bool any = false;
        for (std::size_t i = 0; i < kSweep; ++i) {
          const auto a = sample(dists[d].draw, engine, kLooks.back()), b = sample(dists[d].draw, engine, kLooks.back());
          const auto o = run_sequential(sweep_design, a, b, false);
          any = flagged(o.verdict) || any;
          sweep_samples += static_cast<double>(o.samples);
        }
        sweeps.trials++;
        sweeps.hits += any;
      }
      const double mean = samples / static_cast<double>(single_reps);
      const double sweep_mean = sweep_samples / static_cast<double>(sweep_reps * kSweep);
      std::printf("| %s | %s | %s | %.1f | %s | %s | %.1f |\n", spending.name, dists[d].name.c_str(), single.text().c_str(),
                  mean, with_naive ? naive.text().c_str() : "-", sweeps.text().c_str(), sweep_mean);
      std::fflush(stdout);
      nlohmann::json row = {{"spending", spending.name}, {"distribution", dists[d].name}, {"single", single.json()},
                            {"mean_samples", mean}, {"sweep_family_wise", sweeps.json()},
                            {"sweep_mean_samples", sweep_mean}};
      if (with_naive) row["asymptotic_every_look"] = naive.json();
      out.json["aa_sequential"].push_back(row);
      out.save();
    }
  }
}

// 4. Power: SLOWER verdicts at fixed n (m = 1, and n = 12 with Bonferroni's m = 50: Holm's factor
// for the smallest p) and under the sequential rule for each spending (m = 1 and m = 50).
void power(Output& out, double scale, std::uint64_t seed) {
  const std::size_t reps = repetitions(scale, 1000);
  const auto dists = distributions();
  out.json["power"] = nlohmann::json::array();
  std::printf("\n## 4. Power: SLOWER verdicts at alpha %g, one instance (m = 1) and one of 50 (Bonferroni's m)\n\n",
              kAlpha);
  std::printf("| distribution | slowdown | n = 8 | n = 12 | n = 20 | n = 30 | n = 12, m = 50 |");
  for (const Spending& s : kSpendings) std::printf(" %s m = 1 (mean n) | %s m = 50 (mean n) |", s.name, s.name);
  std::printf("\n|");
  for (int column = 0; column < 11; ++column) std::printf(" --- |");
  std::printf("\n");
  for (std::size_t d : {0u, 1u}) {
    for (double slowdown : {0.03, 0.05, 0.10}) {
      std::mt19937_64 engine(seed + 9000 + 100 * d + static_cast<std::uint64_t>(std::lround(slowdown * 100)));
      nlohmann::json row = {{"distribution", dists[d].name}, {"slowdown", slowdown}};
      std::printf("| %s | %g%% |", dists[d].name.c_str(), slowdown * 100);
      for (std::size_t n : kSizes) {
        Count c;
        for (std::size_t r = 0; r < reps; ++r) {
          const auto a = sample(dists[d].draw, engine, n), b = sample(dists[d].draw, engine, n, 1 + slowdown);
          c.trials++;
          c.hits += sweep_verdicts({a}, {b})[0] == Verdict::slower;
        }
        row["fixed_n" + std::to_string(n)] = c.json();
        std::printf(" %s |", c.text().c_str());
      }
      Count f;
      for (std::size_t r = 0; r < reps; ++r) {
        const auto a = sample(dists[d].draw, engine, 12), b = sample(dists[d].draw, engine, 12, 1 + slowdown);
        const double p = p_value(a, b, kAlpha / kSweep);
        const auto hl = hodges_lehmann_ratio(a, b);
        f.trials++;
        f.hits += decide({hl.lo, hl.hi, std::min(1.0, p * kSweep), kAlpha, kThreshold}) == Verdict::slower;
      }
      row["fixed_n12_m50"] = f.json();
      std::printf(" %s |", f.text().c_str());
      for (const Spending& spending : kSpendings) {
        for (std::size_t m : {std::size_t{1}, kSweep}) {
          const auto design = sequential_design(kLooks, kAlpha, m, spending.function);
          Count c;
          double samples = 0;
          for (std::size_t r = 0; r < reps; ++r) {
            const auto a = sample(dists[d].draw, engine, kLooks.back());
            const auto b = sample(dists[d].draw, engine, kLooks.back(), 1 + slowdown);
            const auto o = run_sequential(design, a, b, false);
            c.trials++;
            c.hits += o.verdict == Verdict::slower;
            samples += static_cast<double>(o.samples);
          }
          const double mean = samples / static_cast<double>(reps);
          row["sequential"].push_back({{"spending", spending.name}, {"instances", m}, {"slower", c.json()},
                                       {"mean_samples", mean}});
          std::printf(" %s (%.1f) |", c.text().c_str(), mean);
        }
      }
      std::printf("\n");
      std::fflush(stdout);
      out.json["power"].push_back(row);
      out.save();
    }
  }
}

// 5. The separation look: the looks of a sweep of m instances at most kMost per side (8, 12, 16, 20:
// those of ab --until-verdict before it) against ab's default design now (use_default_looks, with
// stats::early_separation_look's look), run on the same samples.
void added_look(Output& out, double scale, std::uint64_t seed) {
  constexpr std::size_t kMost = 20;
  const std::vector<std::size_t> before = isobench::orchestrator::default_looks(kMost);
  const std::size_t aa_reps = repetitions(scale, 4000), power_reps = repetitions(scale, 1000);
  const auto dists = distributions();
  out.json["added_look"] = nlohmann::json::array();
  std::printf("\n## 5. The separation look: ab --until-verdict's default looks with and without it (at most %zu per side)\n\n",
              kMost);
  std::printf("| instances | looks | distribution | change | SLOWER or FASTER | SLOWER | SAME | mean samples |\n"
              "| --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (std::size_t m : {std::size_t{4}, kSweep}) {
    isobench::orchestrator::SequentialPlan plan;  // ab --until-verdict's, as plan_run makes it
    plan.alpha = kAlpha;
    plan.instances = m;
    isobench::orchestrator::use_default_looks(plan, kMost);
    const auto& after = plan.looks;
    const SequentialDesign designs[] = {sequential_design(before, kAlpha, m), plan.design()};
    for (std::size_t d : {0u, 1u}) {
      for (double change : {0.0, 0.03, 0.05, 0.10}) {
        const std::size_t reps = change == 0 ? aa_reps : power_reps;
        std::mt19937_64 engine(seed + 20000 + 1000 * m + 100 * d + static_cast<std::uint64_t>(std::lround(change * 100)));
        Count flags[2], slower[2], same[2];
        double samples[2] = {0, 0};
        for (std::size_t r = 0; r < reps; ++r) {
          const auto a = sample(dists[d].draw, engine, kMost), b = sample(dists[d].draw, engine, kMost, 1 + change);
          for (std::size_t k = 0; k < 2; ++k) {
            const auto o = run_sequential(designs[k], a, b, false);
            flags[k].trials++;
            flags[k].hits += flagged(o.verdict);
            slower[k].trials++;
            slower[k].hits += o.verdict == Verdict::slower;
            same[k].trials++;
            same[k].hits += o.verdict == Verdict::same;
            samples[k] += static_cast<double>(o.samples);
          }
        }
        nlohmann::json row = {{"instances", m}, {"distribution", dists[d].name}, {"change", change}};
        for (std::size_t k = 0; k < 2; ++k) {
          const auto& looks = k == 0 ? before : after;
          std::string text;
          for (std::size_t n : looks) text += (text.empty() ? "" : ", ") + std::to_string(n);
          const double mean = samples[k] / static_cast<double>(reps);
          std::printf("| %zu | %s | %s | %g%% | %s | %s | %s | %.2f |\n", m, text.c_str(), dists[d].name.c_str(),
                      change * 100, flags[k].text().c_str(), slower[k].text().c_str(), same[k].text().c_str(), mean);
          row[k == 0 ? "before" : "after"] = nlohmann::json{{"looks", looks}, {"flagged", flags[k].json()},
                                                            {"slower", slower[k].json()}, {"same", same[k].json()},
                                                            {"mean_samples", mean}};
        }
        std::fflush(stdout);
        out.json["added_look"].push_back(row);
        out.save();
      }
    }
  }
}

// 6. The futility stop: ab's default design (at most 20 per side at the ordinary looks, extended to
// 60) with futility levels 0, 0.01, 0.02 and 0.05, run on the same samples.
void futility(Output& out, double scale, std::uint64_t seed) {
  constexpr std::size_t kMost = 20, kExtendTo = 60;
  const double levels[] = {0.0, 0.01, 0.02, 0.05};
  constexpr std::size_t kLevels = std::size(levels);
  const std::size_t aa_reps = repetitions(scale, 2000), power_reps = repetitions(scale, 500);
  const auto dists = distributions();
  out.json["futility"] = nlohmann::json::array();
  std::printf("\n## 6. The futility stop: ab's default design (at most %zu per side, extended to %zu) by futility level\n\n",
              kMost, kExtendTo);
  std::printf("| instances | distribution | change | futility level | SLOWER or FASTER | SLOWER | SAME | stopped by futility | mean samples |\n"
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (std::size_t m : {std::size_t{4}, std::size_t{30}}) {
    std::vector<SequentialDesign> designs;
    for (double g : levels) {
      isobench::orchestrator::SequentialPlan plan;  // ab's default, as plan_run makes it
      plan.alpha = kAlpha;
      plan.instances = m;
      plan.futility = g;
      isobench::orchestrator::use_default_looks(plan, kMost, kExtendTo);
      designs.push_back(plan.design());
    }
    for (std::size_t d : {0u, 1u, 2u}) {
      for (double change : {0.0, 0.01, 0.02, 0.03, 0.05, 0.10}) {
        const std::size_t reps = change == 0 ? aa_reps : power_reps;
        std::mt19937_64 engine(seed + 30000 + 1000 * m + 100 * d + static_cast<std::uint64_t>(std::lround(change * 100)));
        Count flags[kLevels], slower[kLevels], same[kLevels], futile[kLevels];
        double samples[kLevels] = {};
        for (std::size_t r = 0; r < reps; ++r) {
          const auto a = sample(dists[d].draw, engine, kExtendTo), b = sample(dists[d].draw, engine, kExtendTo, 1 + change);
          for (std::size_t k = 0; k < kLevels; ++k) {
            Verdict verdict = Verdict::uncertain;
            std::size_t n = 0;
            bool stopped_futile = false;
            for (std::size_t look = 0; look < designs[k].looks.size(); ++look) {
              const auto decision = decide_at_look(designs[k], look, a, b, kThreshold);
              if (!decision.stop) continue;
              verdict = decision.verdict;
              n = designs[k].looks[look].n;
              stopped_futile = decision.futile;
              break;
            }
            flags[k].trials++, slower[k].trials++, same[k].trials++, futile[k].trials++;
            flags[k].hits += flagged(verdict);
            slower[k].hits += verdict == Verdict::slower;
            same[k].hits += verdict == Verdict::same;
            futile[k].hits += stopped_futile;
            samples[k] += static_cast<double>(n);
          }
        }
        nlohmann::json row = {{"instances", m}, {"distribution", dists[d].name}, {"change", change}};
        for (std::size_t k = 0; k < kLevels; ++k) {
          const double mean = samples[k] / static_cast<double>(reps);
          std::printf("| %zu | %s | %g%% | %g | %s | %s | %s | %s | %.2f |\n", m, dists[d].name.c_str(), change * 100,
                      levels[k], flags[k].text().c_str(), slower[k].text().c_str(), same[k].text().c_str(),
                      futile[k].text().c_str(), mean);
          row["by_level"].push_back({{"level", levels[k]}, {"flagged", flags[k].json()}, {"slower", slower[k].json()},
                                      {"same", same[k].json()}, {"futile", futile[k].json()}, {"mean_samples", mean}});
        }
        std::fflush(stdout);
        out.json["futility"].push_back(row);
        out.save();
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  double scale = 1;
  std::uint64_t seed = 20261201;
  std::string json_path, sections = "1,2,3,4,5,6";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--scale") scale = std::strtod(argv[i + 1], nullptr);
    else if (flag == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--json") json_path = argv[i + 1];
    else if (flag == "--sections") sections = argv[i + 1];
    else {
      std::fprintf(stderr, "verdict_simulation: unknown option %s (--scale S, --seed N, --sections L, --json FILE)\n",
                   argv[i]);
      return 2;
    }
  }
  if (!(scale > 0)) {
    std::fprintf(stderr, "verdict_simulation: --scale must be a positive number\n");
    return 2;
  }
  Output out;
  out.path = json_path;
  out.json = {{"seed", seed}, {"scale", scale}, {"alpha", kAlpha}, {"threshold", kThreshold},
              {"sweep_instances", kSweep}, {"looks", kLooks}, {"sections", sections}};
  std::printf("# verdict_simulation --scale %g --seed %llu --sections %s\n", scale,
              static_cast<unsigned long long>(seed), sections.c_str());
  const auto wanted = [&](char section) { return sections.find(section) != std::string::npos; };
  const std::pair<char, void (*)(Output&, double, std::uint64_t)> steps[] = {
      {'1', asymptotic_size}, {'2', aa_fixed}, {'3', aa_sequential}, {'4', power}, {'5', added_look}, {'6', futility}};
  for (const auto& [section, run] : steps) {
    if (!wanted(section)) continue;
    run(out, scale, seed);
    std::printf("\n(%.0f s so far)\n", out.seconds());
    std::fflush(stdout);
  }
  out.save();
  std::printf("\n%.0f s\n", out.seconds());
  return 0;
}
