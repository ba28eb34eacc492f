#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "stats/brunner_munzel.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/verdict.hpp"

namespace isobench::stats {

// Sequential sampling: look at the samples at planned counts per side (8, 12, 16, 24, 32, ...)
// and stop an instance at the first look whose verdict is SLOWER, FASTER or SAME.
//
// Looking repeatedly inflates the false-positive rate (a Brunner-Munzel t-test at alpha 0.001 at
// every look flagged 0.38% of A/A instances). Here the overall level is spent across looks
// (Lan and DeMets): a spending function alpha(t) says how much of alpha may be used by the
// information fraction t = n_k / n_K, and look k gets what alpha(t_k) adds to the looks before
// it, divided by the number of instances m. Every look's test is the permutation test of
// brunner_munzel(), valid at its own n, so by the union bound over instances and looks
//   P(any false SLOWER or FASTER anywhere) <= sum over looks and instances of their levels = alpha,
// whatever the correlation between looks (which makes this conservative: the looks share
// samples). A look at which even complete separation cannot get below its level (small n,
// tiny level) spends nothing: its share passes on to the next look.
// SAME stops too, and a false SAME (the interval inside the floor while the true change lies
// beyond it) is guarded the same way: every look's Hodges-Lehmann interval has confidence
// 1 - (1 - c) / K for K looks, so P(a false SAME at any look) <= (1 - c) / 2, as at one look.
//
// An extension (SequentialExtension) carries the instances that end the ordinary looks with their
// interval wholly beyond the floor, short only of the level, on to further looks up to a cap: a
// large change over many instances, whose p at 20 per side cannot get below alpha / m, resolves
// there instead of stopping UNCERTAIN. The extension's looks take a fixed share of alpha, planned
// before any sample (the ordinary looks spend the rest by the spending function over their own
// information fraction, the extension's looks spend its share by the same function over theirs),
// so the union bound above holds over all looks whichever instances go on: an instance's going on
// depends on its data, but each look's test is valid at its level whether or not it is taken.
// The extension's looks stop SLOWER or FASTER only, never SAME (as a separation look), so the
// intervals of the ordinary looks and the bound on a false SAME stay as they were; an instance
// whose interval no longer lies beyond the floor at one of them stops UNCERTAIN there.
//
// A futility stop (SequentialDesign::futility) ends an instance UNCERTAIN at a SAME look after the
// first and before the last ordinary one when its estimate lies inside the floor and its interval
// is unlikely to settle by that last look: the predicted probability that the interval there lies
// inside the floor (SAME) and the probability that it lies wholly beyond it (SLOWER or FASTER, or
// the extension) are both below `futility`. The prediction, in log ratio: the interval's
// half-width narrows as 1 / sqrt(n); its centre moves as a normal variable around today's with
// the predictive spread (the centre's standard error now, half-width / z, times sqrt((N - n) / N),
// N the last ordinary look's count). An interval of samples in two modes narrows in jumps, not as
// 1 / sqrt(n), so no instance with either side's samples so far bimodal (stats::bimodality) is
// stopped. It stops an instance UNCERTAIN earlier, never with a verdict, so the bounds above hold
// as they are; what it costs is verdicts an instance might have reached later:
// bench/verdict_simulation section 6 measures it.
enum class SpendingFunction {
  obrien_fleming,  // 2 - 2 Phi(z_{1-alpha/2} / sqrt(t)): almost nothing early, most at the end
  pocock,          // alpha ln(1 + (e - 1) t): spread evenly, for early stops
};

struct SequentialLook {
  std::size_t n = 0;         // samples per side at this look
  double alpha = 0;          // nominal two-sided level per instance (0: this look cannot reject)
  double cumulative = 0;     // alpha(t_k): spending allowed up to this look, over all instances
  bool stops_same = true;    // false: a separation or extension look, which stops SLOWER or FASTER only
};

// Looks after the ordinary ones, taken only by an instance whose interval lies beyond the floor.
struct SequentialExtension {
  std::size_t from = 0;  // samples per side at the last ordinary look (0: no extension)
  double share = 0;      // of alpha, spent by the looks after `from`: the planner's choice
};

struct SequentialDesign {
  std::vector<SequentialLook> looks;
  double alpha = 0.001;
  std::size_t instances = 1;
  double confidence = 0.95;           // the verdict's, over all looks
  double look_confidence = 0.95;      // each look's interval: 1 - (1 - confidence) / K, K the looks that stop SAME
  SpendingFunction spending = SpendingFunction::pocock;
  // From the look at extension.from on (0: none), an undecided instance goes on only with its
  // interval wholly beyond the floor.
  SequentialExtension extension;
  // The futility level (0: no futility stop): see above. Set by the planner (SequentialPlan).
  double futility = 0;
};

// looks: ascending sample counts per side, each >= 2. separation: those of the looks that stop
// SLOWER or FASTER but never SAME (early_separation_look); they do not count in K, so the other
// looks' intervals and the bound on a false SAME are what they are without them. Throws
// std::invalid_argument for no looks, a count below 2, counts not strictly ascending, a
// separation count that is not a look or is the last, m = 0, or alpha or confidence outside
// (0, 1). extension: where extension.from is set, the looks after it are the extension's (they
// stop SLOWER or FASTER only and spend extension.share of alpha); throws for a `from` that is not
// a look before the last, or a share outside (0, 1).
SequentialDesign sequential_design(std::vector<std::size_t> looks, double alpha, std::size_t instances,
                                   SpendingFunction spending = SpendingFunction::pocock, double confidence = 0.95,
                                   const std::vector<std::size_t>& separation = {},
                                   const SequentialExtension& extension = {});

// Where the first of `looks` cannot reach SLOWER or FASTER at its level (even complete
// separation, p = 2 / C(2n, n) at n per side, is above it: 8 per side over 4 instances at alpha
// 0.001 and 20 at most), the smallest count between the first and the second look that can, as
// a separation look (9 there): a clear change then stops there instead of at the second look,
// while SAME still stops at the first. The look spends the level the first passed on; being no
// SAME look, it leaves every interval as it was (bench/verdict_simulation section 5: the same A/A
// verdicts, fewer samples for clear changes, the same power at 1% noise and slightly less at 5%,
// where the next look's smaller level matters). None where the first look can, where no count
// before the second can, and for a design sequential_design refuses.
std::optional<std::size_t> early_separation_look(const std::vector<std::size_t>& looks, double alpha,
                                                 std::size_t instances,
                                                 SpendingFunction spending = SpendingFunction::pocock,
                                                 double confidence = 0.95, const SequentialExtension& extension = {});

struct LookDecision {
  // SLOWER, FASTER or SAME; the last look; or, from the last ordinary look of an extended design
  // on, an interval not wholly beyond the floor
  bool stop = false;
  Verdict verdict = Verdict::uncertain;
  // Stopped UNCERTAIN by the futility rule (SequentialDesign::futility) before the last ordinary look.
  bool futile = false;
  double p_value = 1;  // two-sided permutation p of this look's samples (test.p_value)
  BrunnerMunzelResult test;  // the test it came from: its method and Monte Carlo interval
  HodgesLehmannRatio ratio;
};

// How a look computes its p-value. compare's looks compute it at every look (it is printed)
// and resolve it as a verdict's; a power simulation (power.hpp) asks for it only where it can
// change the verdict (clears_floor: elsewhere the test is not run, and p_value stays 1), without
// the asymptotic p (brunner_munzel_permutation) or the ratio's estimate (hodges_lehmann_interval:
// `ratio.ratio` NaN) and within its Monte Carlo budget.
struct LookOptions {
  bool p_only_where_it_decides = false;
  MonteCarloBudget budget;
};

// The samples per side at the design's last ordinary look: the extension's start, or the last look.
std::size_t last_ordinary_look_n(const SequentialDesign& design);

// Whether the futility rule stops an undecided instance at look `look` with this interval (ratio
// lo..hi): futility > 0, a SAME look after the first and before the last ordinary one, the
// interval's centre inside the floor, and both predicted chances (SAME, beyond the floor) at the
// last ordinary look below `futility`. decide_at_look also asks that neither side's samples so far
// be bimodal.
bool futile_at_look(const SequentialDesign& design, std::size_t look, double ratio_lo, double ratio_hi,
                    double threshold);

// The decision at look `look` (an index into design.looks) from the samples so far: the first
// design.looks[look].n of each side are used (more may have arrived; fewer throws
// std::invalid_argument). threshold is the verdict's noise floor (0.02 = 2%).
LookDecision decide_at_look(const SequentialDesign& design, std::size_t look, std::span<const double> baseline,
                            std::span<const double> candidate, double threshold = 0.02,
                            const LookOptions& options = {});

}  // namespace isobench::stats
