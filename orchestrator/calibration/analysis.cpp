// Over 500 lines on purpose: one analysis of one calibration (A/A rates, power, sample sizes,
// the verdict rule, the sequential rule, realised slowdowns), each section a function that reads
// the same CalibrationInput; splitting it would scatter one data flow over files.
#include "orchestrator/calibration/analysis.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "orchestrator/sequential_plan.hpp"
#include "stats/brunner_munzel.hpp"
#include "stats/descriptive.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/sweep_verdict.hpp"
#include "stats/verdict_feasibility.hpp"

namespace isobench::orchestrator::calibration {

namespace {

std::size_t cores() { return std::max(1u, std::thread::hardware_concurrency()); }

// body(i) for every i in [0, count), on up to `threads` threads: the power simulations of
// instances are independent, each writes its own slot, and the permutation tables they share
// hold the same draws whichever thread grows them, so the results are one thread's. The first
// exception (the checkpoint's interruption) stops the others at their next index and is
// rethrown here.
template <class Body>
void for_each_index(std::size_t count, std::size_t threads, Body&& body) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr failure;
  std::mutex mutex;
  const auto work = [&] {
    for (std::size_t i; !failed && (i = next++) < count;) {
      try {
        body(i);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < std::min(count, threads); ++t) helpers.emplace_back(work);
  work();
  for (auto& h : helpers) h.join();
  if (failure) std::rethrow_exception(failure);
}

// Counts hits per alpha of one kind of trial.
class RateCounter {
 public:
  explicit RateCounter(const std::vector<double>& alphas) : alphas_(alphas), hits_(alphas.size(), 0) {}
  void add(double p_value, bool counts = true) {
    ++trials_;
    if (!counts) return;
    for (std::size_t a = 0; a < alphas_.size(); ++a)
      if (p_value < alphas_[a]) ++hits_[a];
  }
  std::vector<RateCell> cells(bool with_expected) const {
    std::vector<RateCell> out;
    for (std::size_t a = 0; a < alphas_.size(); ++a) {
      RateCell c;
      c.alpha = alphas_[a];
      c.hits = hits_[a];
      c.trials = trials_;
      c.interval = stats::wilson_interval(c.hits, c.trials);
      c.expected = with_expected ? alphas_[a] * static_cast<double>(trials_) : 0;
      out.push_back(c);
    }
    return out;
  }

 private:
  std::vector<double> alphas_;
  std::vector<std::size_t> hits_;
  std::size_t trials_ = 0;
};

std::vector<double> scaled(std::span<const double> v, double factor) {
  std::vector<double> out(v.begin(), v.end());
  for (double& x : out) x *= factor;
  return out;
}

void check_shape(const RunData& run, std::size_t n_instances, const std::string& mode) {
  if (run.values.size() != n_instances)
    throw std::invalid_argument("calibration: a run of mode " + mode + " holds " + std::to_string(run.values.size()) +
                                " instances, expected " + std::to_string(n_instances));
}

ModeCost cost_of(const std::vector<RunData>& runs) {
  ModeCost c;
  c.runs = runs.size();
  for (const auto& r : runs) {
    c.wall_seconds += r.wall_seconds;
    c.samples += r.samples_recorded;
    c.workers += r.workers_started;
  }
  c.seconds_per_sample = c.samples ? c.wall_seconds / static_cast<double>(c.samples) : 0;
  return c;
}

// Every value of an instance in the mode's baseline runs, both sides: the pilot of the power
// simulation. Pooling across runs puts the run-to-run spread into the pilot.
std::vector<double> pooled_pilot(const ModeRuns& mode, std::size_t instance) {
  std::vector<double> pilot;
  for (const auto& run : mode.baseline)
    for (const auto& side : run.values[instance]) pilot.insert(pilot.end(), side.begin(), side.end());
  return pilot;
}

// Side 0 of one instance over several runs, pooled.
std::vector<double> pooled_side(const std::vector<RunData>& runs, std::size_t instance) {
  std::vector<double> out;
  for (const auto& run : runs) out.insert(out.end(), run.values[instance][0].begin(), run.values[instance][0].end());
  return out;
}

// The raw test as the power simulation runs it: two-sided, its permutation p resolved at the
// alphas it is read at (only p and the effect are read: no asymptotic p).
stats::BrunnerMunzelResult raw_test(std::span<const double> x, std::span<const double> y,
                                    const std::vector<double>& alphas) {
  stats::PermutationOptions permutation;
  permutation.levels = alphas;
  return stats::brunner_munzel_permutation(x, y, stats::Alternative::two_sided,
                                           stats::BrunnerMunzelDistribution::t, permutation);
}

RateCell rate_cell(double alpha, std::size_t hits, std::size_t trials, bool with_expected) {
  RateCell c;
  c.alpha = alpha;
  c.hits = hits;
  c.trials = trials;
  c.interval = stats::wilson_interval(hits, trials);
  c.expected = with_expected ? alpha * static_cast<double>(trials) : 0;
  return c;
}

using SidePair = std::pair<std::span<const double>, std::span<const double>>;

// The verdicts `compare` gives one sweep, per alpha (then per instance): stats::decide_sweep,
// the function compare decides with, once per alpha.
std::vector<std::vector<stats::Verdict>> sweep_verdicts(const std::vector<SidePair>& sweep, const AnalysisOptions& o) {
  std::vector<stats::SamplePair> pairs;
  for (const auto& [x, y] : sweep) pairs.push_back({x, y});
  std::vector<std::vector<stats::Verdict>> out(o.alphas.size());
  for (std::size_t a = 0; a < o.alphas.size(); ++a)
    for (const auto& v : stats::decide_sweep(pairs, {o.alphas[a], o.threshold, o.confidence})) out[a].push_back(v.verdict);
  return out;
}

// Counts verdicts over sweeps, per alpha.
class VerdictCounter {
 public:
  explicit VerdictCounter(std::size_t alphas) : comparisons_hits_(alphas, 0), sweep_hits_(alphas, 0) {}
  // `counts`: the verdicts that are hits (false verdicts for A/A, SLOWER for power).
  template <class Counts>
  void add(const std::vector<std::vector<stats::Verdict>>& verdicts, Counts&& counts) {
    if (verdicts.empty() || verdicts.front().empty()) return;
    comparisons_ += verdicts.front().size();
    ++sweeps_;
    for (std::size_t a = 0; a < verdicts.size(); ++a) {
      const auto hits = static_cast<std::size_t>(std::count_if(verdicts[a].begin(), verdicts[a].end(), counts));
      comparisons_hits_[a] += hits;
      if (hits > 0) ++sweep_hits_[a];
    }
  }
  std::vector<RateCell> per_comparison(const std::vector<double>& alphas, bool with_expected) const {
    std::vector<RateCell> out;
    for (std::size_t a = 0; a < alphas.size(); ++a)
      out.push_back(rate_cell(alphas[a], comparisons_hits_[a], comparisons_, with_expected));
    return out;
  }
  std::vector<RateCell> per_sweep(const std::vector<double>& alphas) const {
    std::vector<RateCell> out;
    for (std::size_t a = 0; a < alphas.size(); ++a) out.push_back(rate_cell(alphas[a], sweep_hits_[a], sweeps_, true));
    return out;
  }

 private:
  std::vector<std::size_t> comparisons_hits_, sweep_hits_;
  std::size_t comparisons_ = 0, sweeps_ = 0;
};

bool is_false_verdict(stats::Verdict v) { return v == stats::Verdict::slower || v == stats::Verdict::faster; }
bool is_slower(stats::Verdict v) { return v == stats::Verdict::slower; }

VerdictRates verdict_rates(const CalibrationInput& input, const ModeRuns& mode, std::size_t threads,
                           const std::vector<std::vector<Comparison>>& sweeps, const AnalysisOptions& o) {
  const std::size_t n_instances = input.instances.size();
  VerdictRates v;
  VerdictCounter aa(o.alphas.size());
  for (const auto& sweep : sweeps) {
    std::vector<SidePair> sides;
    for (const auto& c : sweep) sides.emplace_back(*c.x, *c.y);
    aa.add(sweep_verdicts(sides, o), is_false_verdict);
  }
  v.false_per_comparison = aa.per_comparison(o.alphas, true);
  v.false_per_sweep = aa.per_sweep(o.alphas);

  for (double delta : o.deltas) {
    VerdictCounter power(o.alphas.size());
    for (const auto& sweep : sweeps)
      for (bool flip : {false, true}) {
        std::vector<std::vector<double>> slowed;
        for (const auto& c : sweep) slowed.push_back(scaled(flip ? *c.x : *c.y, 1 + delta));
        std::vector<SidePair> sides;
        for (std::size_t i = 0; i < sweep.size(); ++i) sides.emplace_back(flip ? *sweep[i].y : *sweep[i].x, slowed[i]);
        power.add(sweep_verdicts(sides, o), is_slower);
      }
    v.scaled_power.push_back({delta, power.per_comparison(o.alphas, false)});
  }

  const auto target = std::find(o.alphas.begin(), o.alphas.end(), o.target_alpha);
  for (const auto& slow : mode.slowdowns) {
    VerdictCounter power(o.alphas.size());
    std::vector<std::size_t> slower(n_instances, 0), trials(n_instances, 0);
    for (const auto& s : slow.runs)
      for (const auto& b : mode.baseline) {
        std::vector<SidePair> sides;
        std::vector<std::size_t> instance_of;
        for (std::size_t inst = 0; inst < n_instances; ++inst)
          if (b.values[inst][0].size() >= 2 && s.values[inst][0].size() >= 2) {
            sides.emplace_back(b.values[inst][0], s.values[inst][0]);
            instance_of.push_back(inst);
          }
        const auto verdicts = sweep_verdicts(sides, o);
        power.add(verdicts, is_slower);
        if (target == o.alphas.end()) continue;
        for (std::size_t i = 0; i < instance_of.size(); ++i) {
          ++trials[instance_of[i]];
          slower[instance_of[i]] += is_slower(verdicts[static_cast<std::size_t>(target - o.alphas.begin())][i]);
        }
      }
    v.real_power.push_back({slow.pct / 100.0, power.per_comparison(o.alphas, false)});
    for (std::size_t inst = 0; inst < n_instances; ++inst)
      v.real_slower_per_instance.push_back(rate_cell(o.target_alpha, slower[inst], trials[inst], false));
  }

  stats::PowerOptions power_options;
  power_options.alpha = o.target_alpha;
  power_options.repetitions = o.power_repetitions;
  power_options.seed = o.seed;
  power_options.checkpoint = o.checkpoint;
  power_options.verdict = stats::VerdictRule{o.threshold, o.confidence, std::max<std::size_t>(n_instances, 1)};
  bool all_reached = n_instances > 0;
  v.sample_sizes.resize(n_instances);
  for_each_index(n_instances, threads, [&](std::size_t inst) {
    const auto pilot = pooled_pilot(mode, inst);
    InstanceSampleSize row{input.instances[inst].id, pilot.size(), 0};
    if (pilot.size() >= 2)
      row.n = stats::sample_size_for_power(pilot, o.target_delta, o.target_power, o.max_n, power_options).n;
    v.sample_sizes[inst] = row;
  });
  for (const auto& row : v.sample_sizes) {
    all_reached = all_reached && row.n != 0;
    v.recommended_n = std::max(v.recommended_n, row.n);
  }
  if (!all_reached) v.recommended_n = 0;
  return v;
}

// The first looks of `design`'s plan that `available` samples per side reach.
std::vector<std::size_t> looks_within(const std::vector<std::size_t>& looks, std::size_t available) {
  std::vector<std::size_t> fit;
  for (std::size_t n : looks)
    if (n <= available) fit.push_back(n);
  return fit;
}

// The sequential design judged on comparisons of `available` samples per side: ab
// --until-verdict's default up to them or to the options' most (its looks and separation look,
// and the extension up to the options' cap or to `available`, whichever is less), or the options'
// looks that fit. nullopt: no look fits.
std::optional<SequentialPlan> sequential_plan_for(const AnalysisOptions& o, std::size_t m, std::size_t available) {
  SequentialPlan plan;
  plan.alpha = o.target_alpha;
  plan.threshold = o.threshold;
  plan.confidence = o.confidence;
  plan.instances = m;
  plan.spending = stats::SpendingFunction::pocock;
  plan.futility = kDefaultFutility;  // ab's
  if (!o.sequential_looks.empty()) {
    plan.looks = looks_within(o.sequential_looks, available);
    if (plan.looks.empty()) return std::nullopt;
  } else {
    if (available < 2) return std::nullopt;
    const std::size_t most = o.sequential_most >= 2 ? std::min(o.sequential_most, available) : available;
    use_default_looks(plan, most, std::min(o.sequential_extend_to, available));
  }
  return plan;
}

SequentialEvaluation sequential_evaluation(const CalibrationInput& input, const ModeRuns& mode, std::size_t threads,
                                           const std::vector<Comparison>& comparisons, const AnalysisOptions& o) {
  const std::size_t m = std::max<std::size_t>(input.instances.size(), 1);
  SequentialEvaluation e;
  if (!o.sequential) return e;
  std::size_t hits = 0, trials = 0, most = 0;
  std::map<std::size_t, std::optional<stats::SequentialDesign>> designs;  // by the samples per side
  for (const auto& c : comparisons) {
    const std::size_t available = std::min(c.x->size(), c.y->size());
    auto it = designs.find(available);
    if (it == designs.end()) {
      const auto plan = sequential_plan_for(o, m, available);
      it = designs.emplace(available, plan ? std::optional(plan->design()) : std::nullopt).first;
    }
    if (!it->second) continue;
    const auto& design = *it->second;
    most = std::max(most, available);
    e.measured_looks = std::max(e.measured_looks, design.looks.size());
    for (std::size_t look = 0; look < design.looks.size(); ++look) {
      const auto d = stats::decide_at_look(design, look, *c.x, *c.y, o.threshold);
      if (!d.stop) continue;
      hits += is_false_verdict(d.verdict);
      break;
    }
    ++trials;
  }
  e.measured_false = rate_cell(o.target_alpha, hits, trials, true);
  // Simulated with the ordinary looks up to the options' most or else the most samples measured
  // (the runs' n), and the extension's past them to its cap; with looks given, to their last.
  if (o.sequential_looks.empty() && most < 2) return e;
  auto drawn = o;
  if (drawn.sequential_most < 2) drawn.sequential_most = most;
  const auto plan = sequential_plan_for(
      drawn, m, o.sequential_looks.empty() ? std::max(most, o.sequential_extend_to) : o.sequential_looks.back());
  if (!plan) return e;
  e.looks = plan->looks;
  e.separation = plan->separation;
  e.extension_from = plan->extension.from;
  const auto design = plan->design();
  struct Simulated {
    bool pilot = false;
    stats::SequentialPower aa, slow;
  };
  std::vector<Simulated> simulated(input.instances.size());
  for_each_index(input.instances.size(), threads, [&](std::size_t inst) {
    if (o.checkpoint) o.checkpoint();
    const auto pilot = pooled_pilot(mode, inst);
    if (pilot.size() < 2) return;
    simulated[inst] = {true, stats::sequential_slowdown_power(pilot, 0.0, design, o.threshold, o.power_repetitions, o.seed),
                       stats::sequential_slowdown_power(pilot, o.target_delta, design, o.threshold,
                                                        o.power_repetitions, o.seed)};
  });
  for (const auto& [has_pilot, aa, slow] : simulated) {
    if (!has_pilot) continue;
    e.simulated_false += aa.slower + aa.faster;
    e.mean_samples_aa += aa.mean_samples;
    e.power += slow.slower;
    e.mean_samples += slow.mean_samples;
    ++e.simulated_instances;
  }
  if (e.simulated_instances > 0) {
    const double k = static_cast<double>(e.simulated_instances);
    e.simulated_false /= k;
    e.mean_samples_aa /= k;
    e.power /= k;
    e.mean_samples /= k;
  }
  return e;
}

}  // namespace

std::vector<std::vector<Comparison>> aa_sweeps(const ModeRuns& mode, std::size_t n_instances, std::size_t* skipped) {
  std::vector<std::vector<Comparison>> sweeps;
  std::size_t dropped = 0;
  auto add = [&](const RunData& a, int side_a, const RunData& b, int side_b) {
    std::vector<Comparison> sweep;
    for (std::size_t inst = 0; inst < n_instances; ++inst) {
      const auto& x = a.values[inst][side_a];
      const auto& y = b.values[inst][side_b];
      if (x.size() < 2 || y.size() < 2)
        ++dropped;
      else
        sweep.push_back({inst, &x, &y});
    }
    sweeps.push_back(std::move(sweep));
  };
  for (const auto& run : mode.baseline) check_shape(run, n_instances, mode.mode);
  if (mode.within_run) {
    for (const auto& run : mode.baseline) add(run, 0, run, 1);
  } else {
    for (std::size_t i = 0; i < mode.baseline.size(); ++i)
      for (std::size_t j = i + 1; j < mode.baseline.size(); ++j) add(mode.baseline[i], 0, mode.baseline[j], 0);
  }
  if (skipped) *skipped = dropped;
  return sweeps;
}

std::vector<Comparison> aa_comparisons(const ModeRuns& mode, std::size_t n_instances, std::size_t* skipped) {
  std::vector<Comparison> out;
  for (auto& sweep : aa_sweeps(mode, n_instances, skipped)) out.insert(out.end(), sweep.begin(), sweep.end());
  return out;
}

bool slowdown_detected(const std::vector<double>& x, const std::vector<double>& y, double alpha) {
  const auto r = raw_test(x, y, {alpha});
  return r.p_value < alpha && r.relative_effect > 0.5;
}

std::vector<std::size_t> power_curve_grid(std::size_t max_n) {
  std::vector<std::size_t> grid;
  // 2, 3, 4, 6, 8, 12, 16, ...: the grid stats::sample_size_for_power searches.
  for (std::size_t n = 2; n <= max_n; n = std::max<std::size_t>((n & (n - 1)) == 0 ? n + n / 2 : n / 3 * 4, n + 1))
    grid.push_back(n);
  return grid;
}

double smallest_p_value(std::size_t n) {
  return n < 2 ? 1 : stats::verdict_feasibility(n, n, 0.5, 1).smallest_p;
}

CalibrationResult analyse(const CalibrationInput& input, const AnalysisOptions& given) {
  // The target alpha is read among the alphas (the real slowdowns' verdicts per instance), however
  // the options were made: from calibrate's flags or from an experiment.json (--resume).
  AnalysisOptions options = given;
  if (std::find(options.alphas.begin(), options.alphas.end(), options.target_alpha) == options.alphas.end()) {
    options.alphas.push_back(options.target_alpha);
    std::sort(options.alphas.begin(), options.alphas.end());
  }
  const auto step = [&options] {
    if (options.checkpoint) options.checkpoint();
  };
  const std::size_t n_instances = input.instances.size();
  CalibrationResult result;
  result.options = options;
  result.options.checkpoint = nullptr;
  result.instances = n_instances;
  std::vector<std::string> families;
  for (const auto& inst : input.instances)
    if (std::find(families.begin(), families.end(), inst.family) == families.end()) families.push_back(inst.family);

  stats::PowerOptions power_options;
  power_options.alpha = options.target_alpha;
  power_options.repetitions = options.power_repetitions;
  power_options.seed = options.seed;
  power_options.checkpoint = options.checkpoint;

  // The modes one per thread too, each spreading its instances over twice its share of the
  // cores (at most twice as many threads as cores in all, so that a mode that finishes early
  // leaves no core idle): their results are independent, and what one leaves serial (the
  // sweeps' verdicts) overlaps the others'.
  result.modes.resize(input.modes.size());
  const std::size_t mode_threads = std::max<std::size_t>(1, std::min(input.modes.size(), cores()));
  const std::size_t instance_threads = std::max<std::size_t>(1, 2 * cores() / mode_threads);
  for_each_index(input.modes.size(), mode_threads, [&](std::size_t mode_index) {
    const ModeRuns& mode = input.modes[mode_index];
    step();
    ModeResult& m = result.modes[mode_index];
    m.mode = mode.mode;
    m.variant = mode.variant;
    m.within_run = mode.within_run;
    m.runs = mode.baseline.size();
    const auto sweeps = aa_sweeps(mode, n_instances, &m.skipped_comparisons);
    std::vector<Comparison> comparisons;
    for (const auto& sweep : sweeps) comparisons.insert(comparisons.end(), sweep.begin(), sweep.end());

    // False positives: two-sided, either direction counts.
    RateCounter all(options.alphas);
    std::map<std::string, RateCounter> by_family;
    for (const auto& f : families) by_family.emplace(f, RateCounter(options.alphas));
    for (const auto& c : comparisons) {
      const std::size_t smaller = std::min(c.x->size(), c.y->size());
      m.samples_per_side = m.samples_per_side == 0 ? smaller : std::min(m.samples_per_side, smaller);
      const double p = raw_test(*c.x, *c.y, options.alphas).p_value;
      all.add(p);
      by_family.at(input.instances[c.instance].family).add(p);
    }
    m.fpr = all.cells(true);
    for (const auto& f : families) m.fpr_by_family.push_back({f, by_family.at(f).cells(true)});

    // Power by scaling: each A/A comparison in both orientations (either side made slower), so
    // a drift between two runs helps as often as it hurts.
    for (double delta : options.deltas) {
      step();
      RateCounter counter(options.alphas);
      for (const auto& c : comparisons) {
        for (const auto& [x, y] : {std::pair{c.x, c.y}, std::pair{c.y, c.x}}) {
          const auto r = raw_test(*x, scaled(*y, 1 + delta), options.alphas);
          counter.add(r.p_value, r.relative_effect > 0.5);
        }
      }
      m.scaled_power.push_back({delta, counter.cells(false)});
    }

    // Power against real slowdowns: every slowed run against every baseline run, per instance,
    // beside the slowdown each instance actually realised.
    for (const auto& slow : mode.slowdowns) {
      RateCounter counter(options.alphas);
      for (const auto& run : slow.runs) check_shape(run, n_instances, mode.mode);
      for (std::size_t inst = 0; inst < n_instances; ++inst) {
        RealisedSlowdown row;
        row.id = input.instances[inst].id;
        row.target = slow.pct / 100.0;
        std::size_t detected = 0, trials = 0;
        for (const auto& s : slow.runs)
          for (const auto& b : mode.baseline) {
            const auto& x = b.values[inst][0];
            const auto& y = s.values[inst][0];
            if (x.size() < 2 || y.size() < 2) continue;
            const auto r = raw_test(x, y, options.alphas);
            counter.add(r.p_value, r.relative_effect > 0.5);
            ++trials;
            detected += r.p_value < options.target_alpha && r.relative_effect > 0.5;
          }
        row.detected = rate_cell(options.target_alpha, detected, trials, false);
        const auto baseline = pooled_side(mode.baseline, inst), slowed = pooled_side(slow.runs, inst);
        if (baseline.size() >= 2 && slowed.size() >= 2) {
          row.median_ratio = stats::median(slowed) / stats::median(baseline);
          row.hl = stats::hodges_lehmann_ratio(baseline, slowed, options.confidence);
          row.missed = std::fabs(row.median_ratio - 1 - row.target) > kRealisedTolerance;
        }
        m.realised.push_back(row);
      }
      m.real_power.push_back({slow.pct / 100.0, counter.cells(false)});
    }

    // Sample size from pooled pilots, and the mean power curve over instances.
    const auto grid = power_curve_grid(options.max_n);
    std::vector<double> curve_sum(grid.size(), 0);
    std::size_t curve_instances = 0;
    bool all_reached = true;
    std::vector<std::vector<double>> curves(n_instances);  // per instance, on the grid; empty without a pilot
    m.sample_sizes.resize(n_instances);
    for_each_index(n_instances, instance_threads, [&](std::size_t inst) {
      step();
      const auto pilot = pooled_pilot(mode, inst);
      InstanceSampleSize row{input.instances[inst].id, pilot.size(), 0};
      if (pilot.size() >= 2) {
        const auto search = stats::sample_size_for_power(pilot, options.target_delta, options.target_power,
                                                         options.max_n, power_options);
        row.n = search.n;
        // The grid's first points are the search's (the same seed gives the same power).
        for (std::size_t n : grid) {
          const auto known = std::find_if(search.curve.begin(), search.curve.end(),
                                          [&](const stats::PowerPoint& p) { return p.n == n; });
          curves[inst].push_back(known != search.curve.end()
                                     ? known->power
                                     : stats::slowdown_power(pilot, options.target_delta, n, power_options));
        }
      }
      m.sample_sizes[inst] = row;
    });
    for (std::size_t inst = 0; inst < n_instances; ++inst) {
      const InstanceSampleSize& row = m.sample_sizes[inst];
      if (!curves[inst].empty()) {
        for (std::size_t g = 0; g < grid.size(); ++g) curve_sum[g] += curves[inst][g];
        ++curve_instances;
      }
      all_reached = all_reached && row.n != 0;
      m.recommended_n = std::max(m.recommended_n, row.n);
    }
    if (!all_reached || curve_instances == 0) m.recommended_n = 0;
    if (curve_instances > 0)
      for (std::size_t g = 0; g < grid.size(); ++g)
        m.power_curve.push_back({grid[g], curve_sum[g] / static_cast<double>(curve_instances)});

    step();
    m.verdict = verdict_rates(input, mode, instance_threads, sweeps, options);
    for (std::size_t r = 0; r < m.realised.size(); ++r) m.realised[r].verdict_slower = m.verdict.real_slower_per_instance[r];
    step();
    m.sequential = sequential_evaluation(input, mode, instance_threads, comparisons, options);
    m.cost = cost_of(mode.baseline);
  });
  return result;
}

namespace {

nlohmann::json cell_json(const RateCell& c, bool with_expected) {
  nlohmann::json j = {{"alpha", c.alpha},
                      {"hits", c.hits},
                      {"trials", c.trials},
                      {"rate", c.interval.estimate},
                      {"ci95", {c.interval.lower, c.interval.upper}}};
  if (with_expected) j["expected_hits"] = c.expected;
  return j;
}

nlohmann::json cells_json(const std::vector<RateCell>& cells, bool with_expected) {
  auto j = nlohmann::json::array();
  for (const auto& c : cells) j.push_back(cell_json(c, with_expected));
  return j;
}

nlohmann::json power_json(const std::vector<DeltaPower>& rows) {
  auto j = nlohmann::json::array();
  for (const auto& r : rows) j.push_back({{"delta", r.delta}, {"by_alpha", cells_json(r.by_alpha, false)}});
  return j;
}

nlohmann::json sample_sizes_json(const std::vector<InstanceSampleSize>& rows) {
  auto sizes = nlohmann::json::array();
  for (const auto& s : rows)
    sizes.push_back({{"instance", s.id}, {"pilot_size", s.pilot_size}, {"n", s.n == 0 ? nlohmann::json(nullptr) : nlohmann::json(s.n)}});
  return sizes;
}

nlohmann::json verdict_json(const ModeResult& m, const AnalysisOptions& o) {
  const auto& v = m.verdict;
  return {{"rule", "compare's verdict: Holm over the sweep's instances, Hodges-Lehmann interval, noise floor"},
          {"threshold", o.threshold},
          {"confidence", o.confidence},
          {"false_per_comparison", cells_json(v.false_per_comparison, true)},
          {"false_per_sweep", cells_json(v.false_per_sweep, true)},
          {"scaled_power", power_json(v.scaled_power)},
          {"real_power", m.within_run ? nlohmann::json(nullptr) : power_json(v.real_power)},
          {"sample_size",
           {{"recommended_n", v.recommended_n == 0 ? nlohmann::json(nullptr) : nlohmann::json(v.recommended_n)},
            {"instances", sample_sizes_json(v.sample_sizes)}}}};
}

nlohmann::json realised_json(const std::vector<RealisedSlowdown>& rows) {
  auto j = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json row = {{"instance", r.id},
                          {"target", r.target},
                          {"detected", cell_json(r.detected, false)},
                          {"verdict_slower", cell_json(r.verdict_slower, false)},
                          {"missed_target", r.missed}};
    if (r.median_ratio > 0) {
      row["median_ratio"] = r.median_ratio;
      row["hodges_lehmann"] = {{"ratio", r.hl.ratio}, {"ci", {r.hl.lo, r.hl.hi}}, {"confidence", r.hl.confidence}};
    } else {
      row["median_ratio"] = nullptr;  // fewer than 2 values on a side
    }
    j.push_back(row);
  }
  return j;
}

nlohmann::json sequential_json(const SequentialEvaluation& e) {
  return {{"looks", e.looks},
          {"separation_looks", e.separation},
          {"spending", "pocock"},
          {"measured", {{"looks_reached", e.measured_looks}, {"false", cell_json(e.measured_false, true)}}},
          {"simulated",
           {{"instances", e.simulated_instances},
            {"false_rate", e.simulated_false},
            {"mean_samples_aa", e.mean_samples_aa},
            {"power", e.power},
            {"mean_samples", e.mean_samples}}}};
}

}  // namespace

nlohmann::json to_json(const CalibrationResult& result) {
  const auto& o = result.options;
  nlohmann::json j = {{"schema_version", kCalibrationSchemaVersion},
                      {"instances", result.instances},
                      {"settings",
                       {{"alphas", o.alphas},
                        {"deltas", o.deltas},
                        {"target_power", o.target_power},
                        {"target_delta", o.target_delta},
                        {"target_alpha", o.target_alpha},
                        {"max_n", o.max_n},
                        {"power_repetitions", o.power_repetitions},
                        {"seed", o.seed},
                        {"threshold", o.threshold},
                        {"confidence", o.confidence},
                        {"sequential", o.sequential},
                        {"sequential_looks", o.sequential_looks},
                        {"sequential_most", o.sequential_most},
                        {"sequential_extend_to", o.sequential_extend_to}}}};
  auto modes = nlohmann::json::array();
  for (const auto& m : result.modes) {
    nlohmann::json mj = {{"mode", m.mode},
                         {"variant", m.variant},
                         {"comparison", m.within_run ? "side 0 against side 1 within each run"
                                                     : "every pair of runs, per instance"},
                         {"runs", m.runs},
                         {"skipped_comparisons", m.skipped_comparisons},
                         {"samples_per_side", m.samples_per_side},
                         {"fpr", cells_json(m.fpr, true)}};
    auto fam = nlohmann::json::array();
    for (const auto& f : m.fpr_by_family) fam.push_back({{"family", f.family}, {"by_alpha", cells_json(f.by_alpha, true)}});
    mj["fpr_by_family"] = fam;
    mj["scaled_power"] = power_json(m.scaled_power);
    if (m.within_run)
      mj["real_power"] = nullptr;  // one build on both sides: no side can be made slower alone
    else
      mj["real_power"] = power_json(m.real_power);
    mj["realised_slowdowns"] = {{"tolerance", kRealisedTolerance}, {"instances", realised_json(m.realised)}};
    const auto sizes = sample_sizes_json(m.sample_sizes);
    auto curve = nlohmann::json::array();
    for (const auto& p : m.power_curve) curve.push_back({{"n", p.n}, {"power", p.power}});
    mj["sample_size"] = {{"recommended_n", m.recommended_n == 0 ? nlohmann::json(nullptr) : nlohmann::json(m.recommended_n)},
                         {"instances", sizes},
                         {"power_curve", curve}};
    mj["verdict"] = verdict_json(m, o);
    mj["sequential"] = sequential_json(m.sequential);
    mj["cost"] = {{"runs", m.cost.runs},
                  {"wall_seconds", m.cost.wall_seconds},
                  {"samples", m.cost.samples},
                  {"workers_started", m.cost.workers},
                  {"seconds_per_sample", m.cost.seconds_per_sample}};
    modes.push_back(mj);
  }
  j["modes"] = modes;
  return j;
}

}  // namespace isobench::orchestrator::calibration
