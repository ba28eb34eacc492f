#pragma once

#include <span>
#include <string_view>

#include "stats/alternative.hpp"
#include "stats/studentized_permutation.hpp"

namespace isobench::stats {

enum class BrunnerMunzelDistribution { t, normal };

// How the p-value was obtained.
enum class BrunnerMunzelMethod {
  exact_permutation,        // every labelling counted (studentized_permutation.hpp)
  monte_carlo_permutation,  // seeded random labellings (studentized_permutation.hpp)
  separation,               // every x below every y (or above): the permutation p in closed form
  asymptotic,               // Student t (Welch-Satterthwaite df) or normal, as scipy.stats.brunnermunzel
  all_tied,                 // all values equal: no evidence of a difference, p = 1
};

std::string_view to_string(BrunnerMunzelMethod method);  // "exact permutation", ...

// Samples up to this many values in all (n_x + n_y) get the permutation p-value; larger ones
// the asymptotic one. docs/statistics.md gives the evidence: bench/bm_asymptotic_size measures
// the size of the asymptotic test, and below this boundary it exceeds its level in the tail.
inline constexpr std::size_t kPermutationMaxValues = 400;

struct BrunnerMunzelResult {
  // scipy's statistic: n_x n_y (mean rank of y - mean rank of x) / ((n_x+n_y) sqrt(...)).
  // Positive when y tends to be larger. +-infinity at separation, 0 when all tied.
  double statistic = 0;
  double df = 0;  // Welch-Satterthwaite df; NaN where the variance estimate vanishes
  double p_value = 1;
  // Estimated P(X < Y) + P(X = Y) / 2: 0.5 means no tendency, 1 means y always larger.
  double relative_effect = 0.5;
  BrunnerMunzelMethod method = BrunnerMunzelMethod::asymptotic;
  // The asymptotic p-value (the `distribution` asked for) whatever method gave p_value: what
  // scipy.stats.brunnermunzel says; NaN where the variance estimate vanishes (scipy's NaN).
  double asymptotic_p_value = 1;
  // Labellings behind a permutation p-value: all C(n_x+n_y, n_x) when exact (separation
  // included), the draws made for Monte Carlo; 0 for the asymptotic p-value and all tied.
  double labellings = 0;
  // Monte Carlo: p_value is the upper end of the interval the draws left the exact p in, p_lower
  // its lower end, `extreme` the draws at least as extreme (extreme / labellings the estimate);
  // resolved is false when the draws ran out before every level's side was known
  // (studentized_permutation.hpp). Every other method: p_lower = p_value, resolved.
  double p_lower = 1;
  double extreme = 0;
  bool resolved = true;
};

// Brunner-Munzel test of x against y. Alternatives mean what they mean for
// scipy.stats.brunnermunzel(x, y, alternative=...). The p-value is the studentized
// permutation test's (Neubert and Brunner, 2007; studentized_permutation.hpp) while the
// samples hold at most kPermutationMaxValues values in all, and the asymptotic one beyond.
// The asymptotic t is far too small in the tail at small n (at n = 8 per side p < 1e-5 happens
// 150 times as often as it should), and it is not monotone in the evidence: complete separation
// got a larger p than one inversion. The permutation p is valid at every n and orders every
// labelling by its statistic, separation being the most extreme:
//  - all values equal: statistic 0, p = 1 for every alternative (method all_tied);
//  - complete separation (max x < min y or max y < min x): the labellings that separate the
//    same way (one) and, two-sided, the other way (one if the pooled order allows it), out of
//    C(n+m, n), at any size: n = m = 3 gives 1/20 one-sided in the observed direction, 2/20
//    two-sided, 1 against it (method separation).
// `permutation` sets the levels the Monte Carlo resolves (Holm's alpha / m ... alpha) and its seed.
// O((n+m) log(n+m)) on the asymptotic path; see studentized_permutation.hpp for the rest.
// Throws std::invalid_argument when a sample has fewer than 2 values or a value is not finite.
BrunnerMunzelResult brunner_munzel(std::span<const double> x, std::span<const double> y,
                                   Alternative alternative = Alternative::two_sided,
                                   BrunnerMunzelDistribution distribution = BrunnerMunzelDistribution::t,
                                   const PermutationOptions& permutation = {});

// brunner_munzel without the asymptotic p-value where the permutation p is the answer
// (asymptotic_p_value NaN there; every other field the same), for simulations that ask only for
// p and the effect's direction: the Student t's incomplete beta showed in a calibration's
// profile, spent on a number nothing read (docs/evidence.md#behind-the-code).
BrunnerMunzelResult brunner_munzel_permutation(std::span<const double> x, std::span<const double> y,
                                               Alternative alternative, BrunnerMunzelDistribution distribution,
                                               const PermutationOptions& permutation);

}  // namespace isobench::stats
