#include "orchestrator/calibration/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "stats/brunner_munzel.hpp"

namespace isobench::orchestrator::calibration {

namespace {

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

std::vector<double> scaled(const std::vector<double>& v, double factor) {
  std::vector<double> out(v);
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

}  // namespace

std::vector<Comparison> aa_comparisons(const ModeRuns& mode, std::size_t n_instances, std::size_t* skipped) {
  std::vector<Comparison> out;
  std::size_t dropped = 0;
  auto add = [&](std::size_t instance, const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() < 2 || y.size() < 2)
      ++dropped;
    else
      out.push_back({instance, &x, &y});
  };
  for (const auto& run : mode.baseline) check_shape(run, n_instances, mode.mode);
  for (std::size_t inst = 0; inst < n_instances; ++inst) {
    if (mode.within_run) {
      for (const auto& run : mode.baseline) add(inst, run.values[inst][0], run.values[inst][1]);
    } else {
      for (std::size_t i = 0; i < mode.baseline.size(); ++i)
        for (std::size_t j = i + 1; j < mode.baseline.size(); ++j)
          add(inst, mode.baseline[i].values[inst][0], mode.baseline[j].values[inst][0]);
    }
  }
  if (skipped) *skipped = dropped;
  return out;
}

bool slowdown_detected(const std::vector<double>& x, const std::vector<double>& y, double alpha) {
  const auto r = stats::brunner_munzel(x, y);
  return r.p_value < alpha && r.relative_effect > 0.5;
}

std::vector<std::size_t> power_curve_grid(std::size_t max_n) {
  std::vector<std::size_t> grid;
  // 2, 3, 4, 6, 8, 12, 16, ...: the grid stats::sample_size_for_power searches.
  for (std::size_t n = 2; n <= max_n; n = std::max<std::size_t>((n & (n - 1)) == 0 ? n + n / 2 : n / 3 * 4, n + 1))
    grid.push_back(n);
  return grid;
}

CalibrationResult analyse(const CalibrationInput& input, const AnalysisOptions& options) {
  const std::size_t n_instances = input.instances.size();
  CalibrationResult result;
  result.options = options;
  result.instances = n_instances;
  std::vector<std::string> families;
  for (const auto& inst : input.instances)
    if (std::find(families.begin(), families.end(), inst.family) == families.end()) families.push_back(inst.family);

  stats::PowerOptions power_options;
  power_options.alpha = options.target_alpha;
  power_options.repetitions = options.power_repetitions;
  power_options.seed = options.seed;

  for (const auto& mode : input.modes) {
    ModeResult m;
    m.mode = mode.mode;
    m.variant = mode.variant;
    m.within_run = mode.within_run;
    m.runs = mode.baseline.size();
    const auto comparisons = aa_comparisons(mode, n_instances, &m.skipped_comparisons);

    // False positives: two-sided, either direction counts.
    RateCounter all(options.alphas);
    std::map<std::string, RateCounter> by_family;
    for (const auto& f : families) by_family.emplace(f, RateCounter(options.alphas));
    for (const auto& c : comparisons) {
      const std::size_t smaller = std::min(c.x->size(), c.y->size());
      m.samples_per_side = m.samples_per_side == 0 ? smaller : std::min(m.samples_per_side, smaller);
      const double p = stats::brunner_munzel(*c.x, *c.y).p_value;
      all.add(p);
      by_family.at(input.instances[c.instance].family).add(p);
    }
    m.fpr = all.cells(true);
    for (const auto& f : families) m.fpr_by_family.push_back({f, by_family.at(f).cells(true)});

    // Power by scaling: each A/A comparison in both orientations (either side made slower), so
    // a drift between two runs helps as often as it hurts.
    for (double delta : options.deltas) {
      RateCounter counter(options.alphas);
      for (const auto& c : comparisons) {
        for (const auto& [x, y] : {std::pair{c.x, c.y}, std::pair{c.y, c.x}}) {
          const auto r = stats::brunner_munzel(*x, scaled(*y, 1 + delta));
          counter.add(r.p_value, r.relative_effect > 0.5);
        }
      }
      m.scaled_power.push_back({delta, counter.cells(false)});
    }

    // Power against real slowdowns: every slowed run against every baseline run, per instance.
    for (const auto& slow : mode.slowdowns) {
      RateCounter counter(options.alphas);
      for (const auto& run : slow.runs) check_shape(run, n_instances, mode.mode);
      for (std::size_t inst = 0; inst < n_instances; ++inst)
        for (const auto& s : slow.runs)
          for (const auto& b : mode.baseline) {
            const auto& x = b.values[inst][0];
            const auto& y = s.values[inst][0];
            if (x.size() < 2 || y.size() < 2) continue;
            const auto r = stats::brunner_munzel(x, y);
            counter.add(r.p_value, r.relative_effect > 0.5);
          }
      m.real_power.push_back({slow.pct / 100.0, counter.cells(false)});
    }

    // Sample size from pooled pilots, and the mean power curve over instances.
    const auto grid = power_curve_grid(options.max_n);
    std::vector<double> curve_sum(grid.size(), 0);
    std::size_t curve_instances = 0;
    bool all_reached = true;
    for (std::size_t inst = 0; inst < n_instances; ++inst) {
      const auto pilot = pooled_pilot(mode, inst);
      InstanceSampleSize row{input.instances[inst].id, pilot.size(), 0};
      if (pilot.size() >= 2) {
        row.n = stats::sample_size_for_power(pilot, options.target_delta, options.target_power, options.max_n,
                                             power_options)
                    .n;
        for (std::size_t g = 0; g < grid.size(); ++g)
          curve_sum[g] += stats::slowdown_power(pilot, options.target_delta, grid[g], power_options);
        ++curve_instances;
      }
      all_reached = all_reached && row.n != 0;
      m.recommended_n = std::max(m.recommended_n, row.n);
      m.sample_sizes.push_back(row);
    }
    if (!all_reached || curve_instances == 0) m.recommended_n = 0;
    if (curve_instances > 0)
      for (std::size_t g = 0; g < grid.size(); ++g)
        m.power_curve.push_back({grid[g], curve_sum[g] / static_cast<double>(curve_instances)});

    m.cost = cost_of(mode.baseline);
    result.modes.push_back(std::move(m));
  }
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
                        {"seed", o.seed}}}};
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
    auto sizes = nlohmann::json::array();
    for (const auto& s : m.sample_sizes)
      sizes.push_back({{"instance", s.id}, {"pilot_size", s.pilot_size}, {"n", s.n == 0 ? nlohmann::json(nullptr) : nlohmann::json(s.n)}});
    auto curve = nlohmann::json::array();
    for (const auto& p : m.power_curve) curve.push_back({{"n", p.n}, {"power", p.power}});
    mj["sample_size"] = {{"recommended_n", m.recommended_n == 0 ? nlohmann::json(nullptr) : nlohmann::json(m.recommended_n)},
                         {"instances", sizes},
                         {"power_curve", curve}};
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
