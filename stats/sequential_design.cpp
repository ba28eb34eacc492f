#include "stats/sequential_design.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <stdexcept>
#include <string>

#include "stats/bimodality.hpp"
#include "stats/brunner_munzel.hpp"
#include "stats/verdict_feasibility.hpp"

namespace isobench::stats {
namespace {

double spent(SpendingFunction spending, double alpha, double t) {
  if (t <= 0) return 0;
  if (spending == SpendingFunction::pocock) return alpha * std::log(1 + (std::exp(1.0) - 1) * std::min(t, 1.0));
  const boost::math::normal_distribution<double> normal;
  const double z = boost::math::quantile(boost::math::complement(normal, alpha / 2));
  return std::min(alpha, 2 * boost::math::cdf(boost::math::complement(normal, z / std::sqrt(std::min(t, 1.0)))));
}

}  // namespace

SequentialDesign sequential_design(std::vector<std::size_t> looks, double alpha, std::size_t instances,
                                   SpendingFunction spending, double confidence,
                                   const std::vector<std::size_t>& separation, const SequentialExtension& extension) {
  if (looks.empty()) throw std::invalid_argument("sequential_design: no looks");
  for (std::size_t k = 0; k < looks.size(); ++k) {
    if (looks[k] < 2) throw std::invalid_argument("sequential_design: a look at fewer than 2 samples per side");
    if (k > 0 && looks[k] <= looks[k - 1])
      throw std::invalid_argument("sequential_design: looks must be strictly ascending (" +
                                  std::to_string(looks[k - 1]) + " then " + std::to_string(looks[k]) + ")");
  }
  for (std::size_t n : separation)
    if (std::find(looks.begin(), looks.end() - 1, n) == looks.end() - 1)
      throw std::invalid_argument("sequential_design: the separation look " + std::to_string(n) +
                                  " is not a look before the last");
  const bool extended = extension.from > 0;
  if (extended && std::find(looks.begin(), looks.end() - 1, extension.from) == looks.end() - 1)
    throw std::invalid_argument("sequential_design: the extension's start " + std::to_string(extension.from) +
                                " is not a look before the last");
  if (extended && !(extension.share > 0 && extension.share < 1))
    throw std::invalid_argument("sequential_design: the extension's share of alpha must lie in (0, 1)");
  if (instances == 0) throw std::invalid_argument("sequential_design: no instances");
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument("sequential_design: alpha must lie in (0, 1)");
  if (!(confidence > 0 && confidence < 1)) throw std::invalid_argument("sequential_design: confidence must lie in (0, 1)");
  SequentialDesign d;
  d.alpha = alpha;
  d.instances = instances;
  d.confidence = confidence;
  d.extension = extended ? extension : SequentialExtension{};
  const auto separating = [&](std::size_t n) {
    return (extended && n > extension.from) || std::find(separation.begin(), separation.end(), n) != separation.end();
  };
  const auto same_looks = static_cast<double>(looks.size()) -
                          static_cast<double>(std::count_if(looks.begin(), looks.end(), separating));
  d.look_confidence = 1 - (1 - confidence) / same_looks;
  d.spending = spending;
  // The ordinary looks spend alpha (less the extension's share) over n / (their last n), the
  // extension's looks the share over (n - from) / (cap - from).
  const double last = static_cast<double>(extended ? extension.from : looks.back());
  const double ordinary_alpha = extended ? alpha * (1 - extension.share) : alpha;
  const auto cumulative = [&](std::size_t n) {
    if (!extended || n <= extension.from) return spent(spending, ordinary_alpha, static_cast<double>(n) / last);
    const double from = static_cast<double>(extension.from);
    return ordinary_alpha + spent(spending, alpha * extension.share,
                                  (static_cast<double>(n) - from) / (static_cast<double>(looks.back()) - from));
  };
  const double m = static_cast<double>(instances);
  double used = 0;  // over all instances, by the looks so far
  for (std::size_t n : looks) {
    SequentialLook look;
    look.n = n;
    look.stops_same = !separating(n);
    look.cumulative = cumulative(n);
    const double level = (look.cumulative - used) / m;
    // A look that cannot reject whatever the data spends nothing; what it had goes on to the next.
    if (level > 0 && verdict_feasibility(n, n, level, 1, d.look_confidence).reachable) {
      look.alpha = level;
      used += level * m;
    }
    d.looks.push_back(look);
  }
  return d;
}

std::optional<std::size_t> early_separation_look(const std::vector<std::size_t>& looks, double alpha,
                                                 std::size_t instances, SpendingFunction spending, double confidence,
                                                 const SequentialExtension& extension) {
  try {
    if (looks.size() < 2 ||
        sequential_design(looks, alpha, instances, spending, confidence, {}, extension).looks[0].alpha > 0)
      return std::nullopt;
    for (std::size_t n = looks[0] + 1; n < looks[1]; ++n) {
      auto with = looks;
      with.insert(with.begin() + 1, n);
      if (sequential_design(with, alpha, instances, spending, confidence, {n}, extension).looks[1].alpha > 0) return n;
    }
  } catch (const std::invalid_argument&) {
    // Not a design sequential_design accepts: whoever plans it is told why.
  }
  return std::nullopt;
}

std::size_t last_ordinary_look_n(const SequentialDesign& design) {
  return design.extension.from > 0 ? design.extension.from : design.looks.back().n;
}

bool futile_at_look(const SequentialDesign& design, std::size_t look, double ratio_lo, double ratio_hi,
                    double threshold) {
  // Not at the first look: an interval of so few samples says too little of how it will narrow.
  if (!(design.futility > 0) || look == 0 || look >= design.looks.size() || !design.looks[look].stops_same)
    return false;
  const double n = static_cast<double>(design.looks[look].n);
  const double big_n = static_cast<double>(last_ordinary_look_n(design));
  if (n >= big_n || !(ratio_lo > 0) || !(ratio_hi >= ratio_lo) || !std::isfinite(ratio_hi)) return false;
  const double lo = std::log(ratio_lo), hi = std::log(ratio_hi);
  const double centre = (lo + hi) / 2, half = (hi - lo) / 2;
  const double floor = std::log(slower_floor(threshold));
  // Only an instance whose estimate lies inside the floor: one beyond it may be a change on its way.
  if (!(std::abs(centre) < floor)) return false;
  const boost::math::normal_distribution<double> normal;
  const double z = boost::math::quantile(boost::math::complement(normal, (1 - design.look_confidence) / 2));
  const double half_then = half * std::sqrt(n / big_n);  // the interval's half-width at the last look
  // The centre at the last look, predicted: its standard error now (half / z) with the true change
  // as uncertain as the interval says, over the samples still to come.
  const double spread = half / z * std::sqrt((big_n - n) / big_n);
  if (!(spread > 0)) return false;  // a degenerate interval: no prediction
  const auto below = [&](double x) { return boost::math::cdf(normal, (x - centre) / spread); };
  const double same = floor > half_then ? below(floor - half_then) - below(half_then - floor) : 0;
  const double beyond = 1 - below(floor + half_then) + below(-floor - half_then);
  return same < design.futility && beyond < design.futility;
}

LookDecision decide_at_look(const SequentialDesign& design, std::size_t look, std::span<const double> baseline,
                            std::span<const double> candidate, double threshold, const LookOptions& options) {
  if (look >= design.looks.size()) throw std::invalid_argument("decide_at_look: no such look");
  const SequentialLook& at = design.looks[look];
  if (baseline.size() < at.n || candidate.size() < at.n)
    throw std::invalid_argument("decide_at_look: look " + std::to_string(look) + " needs " + std::to_string(at.n) +
                                " samples per side, has " + std::to_string(std::min(baseline.size(), candidate.size())));
  const auto a = baseline.first(at.n), b = candidate.first(at.n);
  LookDecision d;
  // A simulation reads only the verdict: the interval without the estimate (two order statistics).
  d.ratio = options.p_only_where_it_decides ? hodges_lehmann_interval(a, b, design.look_confidence)
                                            : hodges_lehmann_ratio(a, b, design.look_confidence);
  if (!options.p_only_where_it_decides || clears_floor(d.ratio.lo, d.ratio.hi, threshold)) {
    PermutationOptions permutation;
    // A look that cannot reject needs no level resolved: its p only describes.
    permutation.levels = at.alpha > 0 ? std::vector<double>{at.alpha} : std::vector<double>{};
    permutation.budget = options.budget;
    d.test = options.p_only_where_it_decides
                 ? brunner_munzel_permutation(a, b, Alternative::two_sided, BrunnerMunzelDistribution::t, permutation)
                 : brunner_munzel(a, b, Alternative::two_sided, BrunnerMunzelDistribution::t, permutation);
    d.p_value = d.test.p_value;
  }
  // A look that cannot reject has level 0: p < 0 never holds, so it can only say SAME.
  d.verdict = decide({d.ratio.lo, d.ratio.hi, d.p_value, at.alpha, threshold});
  // A separation look is no SAME look: there a SAME is no verdict yet, and the instance goes on.
  if (!at.stops_same && d.verdict == Verdict::same) d.verdict = Verdict::uncertain;
  // From the last ordinary look of an extended design on, only an interval wholly beyond the
  // floor (its p short of the level) goes on: everything else stops where it stopped before.
  bool goes_on = look + 1 < design.looks.size();
  if (goes_on && design.extension.from > 0 && at.n >= design.extension.from)
    goes_on = clears_floor(d.ratio.lo, d.ratio.hi, threshold);
  if (goes_on && d.verdict == Verdict::uncertain && futile_at_look(design, look, d.ratio.lo, d.ratio.hi, threshold) &&
      !bimodality(a).bimodal && !bimodality(b).bimodal) {
    d.futile = true;
    goes_on = false;
  }
  d.stop = d.verdict != Verdict::uncertain || !goes_on;
  return d;
}

}  // namespace isobench::stats
