#pragma once

#include <cstddef>
#include <span>

namespace isobench::stats {

// A confidence sequence for a proportion p from Bernoulli draws: after any number n of draws,
// S of them hits, the set of p with
//   M_n(p) = a B(S + a, n - S + 1) / (p^S (1 - p)^(n - S)) < 1 / risk
// holds the true p at every n at once except with probability `risk`: M_n(p) is the likelihood
// ratio of a Beta(a, 1) mixture against p, a martingale with mean 1 under p, and Ville's
// inequality bounds the chance that it ever reaches 1 / risk (Robbins 1970; a = 1 is his uniform
// mixture). So a Monte Carlo may look after every draw, stop whenever it likes (when the side of
// each level it needs is known) and still be wrong about any of those sides with probability at
// most `risk`. a = 0.1 puts the mixture's weight near 0, where the levels of Holm's correction
// lie: with no hit the sequence excludes p = t after about (ln(1/risk) + 0.1 ln n) / t draws,
// close to the ln(1/risk) / t of a single look (a = 1 would need ln(n/risk) / t, twice that at
// n = 10^6). The set is an interval (ln M_n is convex in p) and always holds S / n.
inline constexpr double kMixtureShape = 0.1;

struct ProportionBounds {
  double lower = 0, upper = 1;
};

class ConfidenceSequence {
 public:
  explicit ConfidenceSequence(double risk);
  double risk() const { return risk_; }
  // Whether p lies in the sequence's set after `hits` of `draws` (p in (0, 1)).
  bool contains(std::size_t hits, std::size_t draws, double p) const;
  // The interval, to a relative 1e-12: both ends inside it, so that a level outside the set lies
  // strictly outside [lower, upper] too.
  ProportionBounds bounds(std::size_t hits, std::size_t draws) const;
  // Whether no level (ascending, each in (0, 1)) lies in the set: the side of every level is
  // known, that of hits / draws.
  bool separates(std::span<const double> ascending_levels, std::size_t hits, std::size_t draws) const;

 private:
  ProportionBounds bisected(std::size_t hits, std::size_t draws) const;  // bounds, not kept
  double risk_, log_bound_;
};

}  // namespace isobench::stats
