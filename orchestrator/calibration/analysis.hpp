#pragma once
// What a calibration measures, computed from the samples of its runs: the false-positive rate of
// A/A comparisons per isolation mode (and per kernel family) with Wilson intervals, the power to
// detect a slowdown (samples scaled by 1+delta, and real injected slowdowns), the sample count
// that reaches a target power, and what each mode costs. Each is given for the raw test
// (Brunner-Munzel p < alpha) and for the verdict users get from `compare` (Holm over the sweep's
// instances, Hodges-Lehmann interval, noise floor), and the sequential rule is evaluated (its
// A/A rate, power and mean samples per side). Pure: no files, no processes, so every number can
// be checked on constructed samples.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "stats/hodges_lehmann.hpp"
#include "stats/power.hpp"
#include "orchestrator/sequential_plan.hpp"
#include "stats/sequential_design.hpp"
#include "stats/wilson_interval.hpp"

namespace isobench::orchestrator::calibration {

inline constexpr int kCalibrationSchemaVersion = 1;

struct InstanceInfo {
  std::string id;
  std::string family;
};

// One run: per instance (in CalibrationInput::instances order), the values of side 0 and, for
// an `ab` run, side 1; seconds per launch.
struct RunData {
  std::vector<std::array<std::vector<double>, 2>> values;
  double wall_seconds = 0;
  std::size_t samples_recorded = 0;
  std::size_t workers_started = 0;
};

struct SlowdownRuns {
  double pct = 0;  // --slowdown-pct of these runs
  std::vector<RunData> runs;
};

// The runs of one (mode, variant) pair: one row of the calibration.
struct ModeRuns {
  std::string mode;  // sequential | interleave | process | process-sample | ab
  // ab: both sides of one run are the same build, compared with each other inside the run;
  // otherwise every pair of runs is compared.
  bool within_run = false;
  std::vector<RunData> baseline;       // the K A/A runs
  std::vector<SlowdownRuns> slowdowns; // K runs per --real-slowdown (none for ab)
  std::string variant = "baseline";    // the isolation measure over the sweep (calibrate --variants)
};

struct CalibrationInput {
  std::string device;  // cpu | cuda, as the runs' plans say (context for the report)
  std::vector<InstanceInfo> instances;
  std::vector<ModeRuns> modes;
};

struct AnalysisOptions {
  std::vector<double> alphas = {0.001, 0.01, 0.05};
  std::vector<double> deltas = {0.005, 0.01, 0.02, 0.05, 0.10};
  double target_power = 0.90;
  double target_delta = 0.05;
  double target_alpha = 0.001;   // of the sample-size search and the power-vs-n curve
  std::size_t max_n = 512;
  std::size_t power_repetitions = 1000;
  std::uint64_t seed = 20261129;
  // The verdict rule, as `compare` ships it: noise floor and Hodges-Lehmann confidence.
  double threshold = 0.02;
  double confidence = 0.95;
  // The sequential rule (stats/sequential_design.hpp, Pocock spending): by default the design
  // `ab --until-verdict` runs by default up to the runs' samples per side (use_default_looks:
  // 8, 9, 12, 16, 20 at 20 per side over 4 instances), so that the A/A comparisons measured here
  // calibrate the rule ab applies; `sequential_looks` set: those looks, without a separation look.
  bool sequential = true;
  std::vector<std::size_t> sequential_looks;
  // Of the default design, as ab's options: the ordinary looks' most samples per side (ab
  // --max-samples; 0: the runs' samples) and the extension's cap (ab --extend-to; 0: none). The
  // measured comparisons are judged at the looks their samples reach, the simulated to the cap.
  std::size_t sequential_most = 0;
  std::size_t sequential_extend_to = kDefaultExtendTo;
  // Called between the analysis's steps and every few simulated comparisons when set, so that a
  // caller stops a long analysis by throwing from it: the simulations take minutes on large
  // calibrations, and Ctrl-C must not wait for them. Not an option of the result.
  std::function<void()> checkpoint;
};

// hits out of trials at one alpha; `expected` = alpha x trials, the count a test that holds its
// level gives under the null (for power cells: not meaningful, left 0).
struct RateCell {
  double alpha = 0;
  std::size_t hits = 0;
  std::size_t trials = 0;
  stats::ProportionInterval interval;  // Wilson, 95%
  double expected = 0;
};

struct FamilyFpr {
  std::string family;
  std::vector<RateCell> by_alpha;
};

struct DeltaPower {
  double delta = 0;
  std::vector<RateCell> by_alpha;
};

struct InstanceSampleSize {
  std::string id;
  std::size_t pilot_size = 0;
  std::size_t n = 0;  // 0: not reached up to max_n
};

// The verdict rule on the mode's comparisons, at every alpha: each A/A sweep (a pair of runs, or
// one ab run) is decided as `compare` decides it, Holm over its instances, so a false verdict is
// SLOWER or FASTER on identical code; `per_sweep` counts sweeps with at least one (the
// family-wise rate), `per_comparison` instance comparisons. Power counts SLOWER verdicts of the
// slowed side, the whole sweep slowed.
struct VerdictRates {
  std::vector<RateCell> false_per_comparison;
  std::vector<RateCell> false_per_sweep;
  std::vector<DeltaPower> scaled_power;
  std::vector<DeltaPower> real_power;
  // SLOWER at the target alpha per --real-slowdown pct, then per instance (ModeResult::realised).
  std::vector<RateCell> real_slower_per_instance;
  std::vector<InstanceSampleSize> sample_sizes;  // stats::VerdictRule with m = the sweep's instances
  std::size_t recommended_n = 0;                 // 0: some instance does not reach the target
};

// The sequential rule at the target alpha, Bonferroni over the sweep's instances.
struct SequentialEvaluation {
  std::vector<std::size_t> looks;       // of the simulated design (up to the most samples measured)
  std::vector<std::size_t> separation;  // those of `looks` that stop SLOWER or FASTER only
  // The last ordinary look where the design has an extension after it (SequentialPlan::extension;
  // none where the cap is not above the most samples), 0 where it has none.
  std::size_t extension_from = 0;
  // On the measured A/A comparisons, looking only where the samples reach (a design over the
  // looks that fit, so a run of 12 samples is judged at 8 and 12): false SLOWER/FASTER verdicts.
  RateCell measured_false;
  std::size_t measured_looks = 0;  // looks that fit the measured samples
  // Simulated from each instance's pilot as the sample-size search does, means over instances.
  double simulated_false = 0;  // A/A: stopped SLOWER or FASTER
  double power = 0;            // at target_delta: stopped SLOWER
  double mean_samples = 0;     // per side, at target_delta
  double mean_samples_aa = 0;  // per side, A/A
  std::size_t simulated_instances = 0;
};

// What an injected --slowdown-pct realised on one instance, beside the power against it: the
// ratio of the median of the slowed samples (pooled over the slowed runs) to the median of the
// baseline samples (pooled over the A/A runs), and the Hodges-Lehmann ratio of the same pools
// with its interval. A power at "5%" is power at whatever the injection realised: a row whose
// realised change lies more than kRealisedTolerance from its target says it missed.
inline constexpr double kRealisedTolerance = 0.01;  // one percentage point

struct RealisedSlowdown {
  std::string id;
  double target = 0;        // pct / 100
  double median_ratio = 0;  // 0: fewer than 2 values on a side
  stats::HodgesLehmannRatio hl;
  RateCell detected;        // raw test at the target alpha, slowed runs against baseline runs
  RateCell verdict_slower;  // compare's SLOWER at the target alpha (Holm over the sweep)
  bool missed = false;      // |realised - target| > kRealisedTolerance
};

struct ModeCost {
  std::size_t runs = 0;
  double wall_seconds = 0;
  std::size_t samples = 0;
  std::size_t workers = 0;
  double seconds_per_sample = 0;
};

struct ModeResult {
  std::string mode;
  std::string variant = "baseline";
  bool within_run = false;
  std::size_t runs = 0;
  std::size_t skipped_comparisons = 0;  // an instance with fewer than 2 values on a side
  std::size_t samples_per_side = 0;     // the smallest side among the A/A comparisons
  std::vector<RateCell> fpr;            // per alpha, every family
  std::vector<FamilyFpr> fpr_by_family;
  std::vector<DeltaPower> scaled_power;  // per delta
  std::vector<DeltaPower> real_power;    // per --real-slowdown pct (delta = pct / 100)
  std::vector<RealisedSlowdown> realised;  // per --real-slowdown pct, then per instance
  std::vector<InstanceSampleSize> sample_sizes;
  // The n every instance needs (the largest); 0 when some instance does not reach the target.
  std::size_t recommended_n = 0;
  std::vector<stats::PowerPoint> power_curve;  // mean power over instances at target delta/alpha
  VerdictRates verdict;
  SequentialEvaluation sequential;
  ModeCost cost;
};

struct CalibrationResult {
  AnalysisOptions options;
  std::size_t instances = 0;
  std::vector<ModeResult> modes;
};

// The A/A comparisons of a mode: for ordinary modes every pair (i < j) of baseline runs per
// instance, C(K,2) x instances; for `ab` side 0 against side 1 of every run, K x instances.
struct Comparison {
  std::size_t instance = 0;
  const std::vector<double>* x = nullptr;
  const std::vector<double>* y = nullptr;
};
std::vector<Comparison> aa_comparisons(const ModeRuns& mode, std::size_t n_instances, std::size_t* skipped = nullptr);

// The same comparisons grouped by sweep: one group per pair of runs (per run for `ab`), each
// holding that sweep's instances (those with at least 2 values a side), as `compare` would see
// them. Flattened in order, they are aa_comparisons().
std::vector<std::vector<Comparison>> aa_sweeps(const ModeRuns& mode, std::size_t n_instances, std::size_t* skipped = nullptr);

// A detected slowdown: two-sided Brunner-Munzel p < alpha and y tending larger than x (the same
// rule as stats::slowdown_power).
bool slowdown_detected(const std::vector<double>& x, const std::vector<double>& y, double alpha);

// Throws std::invalid_argument when a run's instance count differs from input.instances.
CalibrationResult analyse(const CalibrationInput& input, const AnalysisOptions& options = {});

// The n grid of power curves: 2, 3, 4, 6, 8, 12, ... up to max_n.
std::vector<std::size_t> power_curve_grid(std::size_t max_n);

// The smallest two-sided p-value Brunner-Munzel can give with n values per side (complete
// separation: 2 / C(2n, n)); an alpha below it can never be reached.
double smallest_p_value(std::size_t n);

nlohmann::json to_json(const CalibrationResult& result);

}  // namespace isobench::orchestrator::calibration
