#include "stats/power.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "stats/brunner_munzel.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/random.hpp"
#include "stats/verdict.hpp"

namespace isobench::stats {
namespace {

void check_pilot(std::span<const double> pilot, std::size_t n) {
  if (pilot.size() < 2) throw std::invalid_argument("slowdown_power: the pilot needs at least 2 values");
  if (n < 2) throw std::invalid_argument("slowdown_power: n must be at least 2");
  for (double v : pilot)  // the test would refuse them too; SortedResampler orders the pilot first
    if (!std::isfinite(v)) throw std::invalid_argument("slowdown_power: the pilot holds a value that is not finite");
}

// One resampled value: a pilot value, moved by a relative jitter in [0, 1e-9) (see power.hpp);
// `index`, when given, receives the pilot value's index.
double resampled(std::span<const double> pilot, Mt19937_64& engine, std::size_t* index = nullptr) {
  const std::size_t at = uniform_below(engine, pilot.size());
  if (index) *index = at;
  const double unit = static_cast<double>(engine() >> 11) * 0x1.0p-53;
  return pilot[at] * (1 + 1e-9 * unit);
}

// A fixed-n comparison's samples, drawn as resampled() draws them (the same engine calls in the
// same order, the same values) and handed over ascending: the tests see only which values each
// side holds, so their results are bit for bit those of the drawn order, and their sorts of
// each side meet sorted input and are skipped (sorting the simulated samples was about a
// seventh of a calibration's analysis). The values are put in order by their pilot value's rank
// (a counting sort), then each run of one pilot value by its jitter; a jitter that carried a
// value past the next pilot value (pilot values within a relative 1e-9) leaves the order for
// one full sort to mend.
class SortedResampler {
 public:
  explicit SortedResampler(std::span<const double> pilot) : pilot_(pilot), rank_(pilot.size()) {
    std::vector<std::size_t> order(pilot.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return pilot[a] < pilot[b]; });
    std::size_t rank = 0;
    for (std::size_t k = 0; k < order.size(); ++k) {
      if (k > 0 && pilot[order[k]] != pilot[order[k - 1]]) ++rank;
      rank_[order[k]] = rank;
    }
    start_.resize(rank + 2);
  }

  // `out.size()` values, each multiplied by `factor` where given (the candidate's 1 + delta).
  void draw(std::vector<double>& out, Mt19937_64& engine, std::optional<double> factor = std::nullopt) {
    drawn_.resize(out.size());
    std::fill(start_.begin(), start_.end(), 0);
    for (auto& [rank, value] : drawn_) {
      std::size_t index = 0;
      value = resampled(pilot_, engine, &index);
      if (factor) value *= *factor;
      rank = rank_[index];
      ++start_[rank + 1];
    }
    for (std::size_t r = 1; r < start_.size(); ++r) start_[r] += start_[r - 1];
    fill_ = start_;
    for (const auto& [rank, value] : drawn_) out[fill_[rank]++] = value;
    for (std::size_t r = 0; r + 1 < start_.size(); ++r)
      if (start_[r + 1] - start_[r] > 1)
        std::sort(out.begin() + static_cast<std::ptrdiff_t>(start_[r]),
                  out.begin() + static_cast<std::ptrdiff_t>(start_[r + 1]));
    if (!std::is_sorted(out.begin(), out.end())) std::sort(out.begin(), out.end());
  }

 private:
  std::span<const double> pilot_;
  std::vector<std::size_t> rank_;          // per pilot index, the rank of its value among the distinct ones
  std::vector<std::size_t> start_, fill_;  // per rank, where its values begin in `out`
  std::vector<std::pair<std::size_t, double>> drawn_;
};

// Whether one simulated comparison rejects: its p-value within the options' Monte Carlo budget,
// and under a verdict rule decide's SLOWER, the p taken only where the interval's lower end lies
// above the floor (elsewhere no p can make it SLOWER).
bool detected(std::span<const double> baseline, std::span<const double> candidate, const PowerOptions& options) {
  PermutationOptions permutation;
  permutation.budget = options.budget;
  if (!options.verdict) {
    permutation.levels = {options.alpha};
    const auto r = brunner_munzel_permutation(baseline, candidate, Alternative::two_sided, BrunnerMunzelDistribution::t, permutation);
    return r.p_value < options.alpha && r.relative_effect > 0.5;
  }
  const VerdictRule& rule = *options.verdict;
  if (!hodges_lehmann_lower_exceeds(baseline, candidate, rule.confidence, slower_floor(rule.threshold))) return false;
  const double m = static_cast<double>(rule.instances);
  permutation.levels = {options.alpha / m};
  const double p = brunner_munzel_permutation(baseline, candidate, Alternative::two_sided, BrunnerMunzelDistribution::t, permutation).p_value;
  return decides_slower(true, std::min(1.0, m * p), options.alpha);
}

}  // namespace

double slowdown_power(std::span<const double> pilot, double delta, std::size_t n, const PowerOptions& options) {
  check_pilot(pilot, n);
  if (options.repetitions == 0) throw std::invalid_argument("slowdown_power: zero repetitions");
  Mt19937_64 engine(options.seed);
  std::vector<double> baseline(n), candidate(n);
  SortedResampler draws(pilot);
  std::size_t detections = 0;
  for (std::size_t rep = 0; rep < options.repetitions; ++rep) {
    if (options.checkpoint && rep % 64 == 0) options.checkpoint();
    draws.draw(baseline, engine);
    draws.draw(candidate, engine, 1 + delta);
    if (detected(baseline, candidate, options)) ++detections;
  }
  return static_cast<double>(detections) / static_cast<double>(options.repetitions);
}

SampleSizeResult sample_size_for_power(std::span<const double> pilot, double delta, double target,
                                       std::size_t max_n, const PowerOptions& options) {
  SampleSizeResult result;
  auto evaluate = [&](std::size_t n) {
    const double power = slowdown_power(pilot, delta, n, options);
    result.curve.push_back({n, power});
    return power;
  };
  std::size_t below = 0;  // largest evaluated n known to miss the target
  std::size_t reached = 0;
  for (std::size_t n = 2; n <= max_n;) {
    if (evaluate(n) >= target) {
      reached = n;
      break;
    }
    below = n;
    // 2, 3, 4, 6, 8, 12, 16, ...: alternately x1.5 and x4/3.
    const std::size_t next = (n & (n - 1)) == 0 ? n + n / 2 : n / 3 * 4;
    n = std::max(next, n + 1);
  }
  if (reached != 0) {
    std::size_t lo = below, hi = reached;  // power(lo) < target <= power(hi)
    while (lo != 0 && hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (evaluate(mid) >= target)
        hi = mid;
      else
        lo = mid;
    }
    result.n = hi;
  }
  std::sort(result.curve.begin(), result.curve.end(),
            [](const PowerPoint& a, const PowerPoint& b) { return a.n < b.n; });
  return result;
}

SequentialPower sequential_slowdown_power(std::span<const double> pilot, double delta,
                                          const SequentialDesign& design, double threshold,
                                          std::size_t repetitions, std::uint64_t seed,
                                          const MonteCarloBudget& budget) {
  check_pilot(pilot, design.looks.front().n);
  if (repetitions == 0) throw std::invalid_argument("sequential_slowdown_power: zero repetitions");
  Mt19937_64 engine(seed);
  const std::size_t most = design.looks.back().n;
  std::vector<double> baseline(most), candidate(most);
  SequentialPower r;
  for (std::size_t rep = 0; rep < repetitions; ++rep) {
    for (double& v : baseline) v = resampled(pilot, engine);
    for (double& v : candidate) v = resampled(pilot, engine) * (1 + delta);
    for (std::size_t look = 0; look < design.looks.size(); ++look) {
      const LookDecision d = decide_at_look(design, look, baseline, candidate, threshold, {true, budget});
      if (!d.stop) continue;
      r.slower += d.verdict == Verdict::slower;
      r.faster += d.verdict == Verdict::faster;
      r.same += d.verdict == Verdict::same;
      r.mean_samples += static_cast<double>(design.looks[look].n);
      break;
    }
  }
  const double reps = static_cast<double>(repetitions);
  r.slower /= reps;
  r.faster /= reps;
  r.same /= reps;
  r.mean_samples /= reps;
  return r;
}

}  // namespace isobench::stats
