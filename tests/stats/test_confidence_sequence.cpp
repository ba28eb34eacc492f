// The confidence sequence behind the permutation p's Monte Carlo: it holds the true proportion at
// every draw at once but with probability `risk` (checked on simulated draws), its interval
// brackets the estimate, and with no hit it excludes a level t after about ln(1/risk) / t draws.
#include "stats/confidence_sequence.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

using namespace isobench::stats;

TEST_CASE("the sequence holds the true proportion at every draw but with probability risk") {
  const ConfidenceSequence sequence(0.05);
  std::mt19937_64 engine(20261202);
  for (double p : {0.5, 0.05, 0.002}) {
    std::bernoulli_distribution draw(p);
    const int sequences = 300, draws = 1000;
    int missed = 0;
    for (int s = 0; s < sequences; ++s) {
      std::size_t hits = 0;
      for (int n = 1; n <= draws; ++n) {
        hits += draw(engine);
        if (!sequence.contains(hits, static_cast<std::size_t>(n), p)) {
          ++missed;
          break;
        }
      }
    }
    CAPTURE(p);
    // Ville's inequality: at most 5% of sequences ever lose p (3 standard errors of slack).
    CHECK(missed <= 0.05 * sequences + 3 * std::sqrt(0.05 * 0.95 * sequences));
  }
}

TEST_CASE("with no hit a level t is excluded after about ln(1/risk) / t draws") {
  const ConfidenceSequence sequence(1e-3);
  for (double t : {1e-2, 1e-3, 1e-5}) {
    std::size_t lo = 1, hi = static_cast<std::size_t>(100 / t);  // contains at lo, not at hi
    REQUIRE(sequence.contains(0, lo, t));
    REQUIRE_FALSE(sequence.contains(0, hi, t));
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      (sequence.contains(0, mid, t) ? lo : hi) = mid;
    }
    CAPTURE(t);
    CAPTURE(hi);
    // ln(1000) = 6.9 for one look; the mixture adds 0.1 ln n + ln(1/Gamma(1.1)) (about 1.6 at
    // n = 10^6), where Robbins' uniform mixture would add ln n.
    CHECK(static_cast<double>(hi) * t > 6.9);
    CHECK(static_cast<double>(hi) * t < 6.9 + 0.1 * std::log(static_cast<double>(hi)) + 0.2);
  }
}

TEST_CASE("the interval brackets the estimate and its ends are where the sequence stops holding") {
  const ConfidenceSequence sequence(1e-3);
  for (auto [hits, draws] : {std::pair<std::size_t, std::size_t>{0, 100}, {3, 100}, {50, 100}, {100, 100},
                             {7, 100000}, {3000, 100000}}) {
    CAPTURE(hits);
    CAPTURE(draws);
    const auto b = sequence.bounds(hits, draws);
    const double centre = static_cast<double>(hits) / static_cast<double>(draws);
    CHECK(b.lower <= centre);
    CHECK(b.upper >= centre);
    if (hits > 0) {
      CHECK(sequence.contains(hits, draws, b.lower));
      CHECK_FALSE(sequence.contains(hits, draws, b.lower * (1 - 1e-9)));
    } else {
      CHECK(b.lower == 0);
    }
    if (hits < draws) {
      CHECK(sequence.contains(hits, draws, b.upper));
      CHECK_FALSE(sequence.contains(hits, draws, b.upper * (1 + 1e-9)));
    } else {
      CHECK(b.upper == 1);
    }
  }
}

TEST_CASE("the levels are separated once none lies in the interval") {
  const ConfidenceSequence sequence(1e-3);
  const std::vector<double> levels = {0.01, 0.05};
  CHECK_FALSE(sequence.separates(levels, 0, 0));
  CHECK_FALSE(sequence.separates(levels, 30, 1000));  // 0.03: [0.017, 0.05] still holds 0.05
  CHECK(sequence.separates(levels, 3000, 100000));    // 0.03 to within 0.003
  CHECK(sequence.separates(levels, 16, 32));          // 0.5: far above both after 32 draws
  CHECK(sequence.separates({}, 0, 1));
  const auto b = sequence.bounds(3000, 100000);
  CHECK(b.lower > 0.01);
  CHECK(b.upper < 0.05);
}

TEST_CASE("membership of many levels asked in turn agrees with the interval (levels' logarithms are kept per thread)") {
  const ConfidenceSequence sequence(1e-3);
  // 40 levels, more than the kept slots, asked in an order that revisits each after others.
  std::vector<double> levels;
  for (int k = 0; k < 40; ++k) levels.push_back(1e-4 * std::pow(1.3, k));
  const std::pair<std::size_t, std::size_t> counts[] = {{0, 5000}, {3, 20000}, {120, 40000}, {900, 100000}, {2, 64}};
  int compared = 0;
  for (int pass = 0; pass < 3; ++pass)
    for (std::size_t i = 0; i < levels.size(); ++i) {
      const double level = levels[(i * 7 + static_cast<std::size_t>(pass) * 3) % levels.size()];
      for (const auto& [hits, draws] : counts) {
        const auto b = sequence.bounds(hits, draws);
        // Away from the ends (bisected to a relative 1e-12), inside the set means inside [lower, upper].
        if (std::abs(level - b.lower) <= 1e-9 * level || std::abs(level - b.upper) <= 1e-9 * level) continue;
        CHECK(sequence.contains(hits, draws, level) == (level > b.lower && level < b.upper));
        ++compared;
      }
    }
  CHECK(compared > 500);
}

TEST_CASE("bounds asked again, in another order and between two risks, are the same (the last counts' are kept per thread)") {
  const ConfidenceSequence loose(1e-3), tight(1e-6);
  std::vector<std::pair<std::size_t, std::size_t>> counts;
  for (std::size_t draws : {32, 64, 100, 1000, 4096, 65536, 500000})
    for (std::size_t hits : {std::size_t{0}, std::size_t{1}, std::size_t{3}, draws / 10, draws / 2, draws})
      counts.emplace_back(hits, draws);
  std::vector<ProportionBounds> first_loose, first_tight;
  for (const auto& [hits, draws] : counts) {
    first_loose.push_back(loose.bounds(hits, draws));
    first_tight.push_back(tight.bounds(hits, draws));
  }
  for (std::size_t pass = 0; pass < 2; ++pass)
    for (std::size_t i = counts.size(); i-- > 0;) {
      const auto& [hits, draws] = counts[i];
      const auto a = pass == 0 ? loose.bounds(hits, draws) : tight.bounds(hits, draws);
      const auto& expected = pass == 0 ? first_loose[i] : first_tight[i];
      CHECK(a.lower == expected.lower);
      CHECK(a.upper == expected.upper);
      // A smaller risk gives a wider interval wherever an end is not pinned at 0 or 1.
      if (hits > 0) CHECK(first_tight[i].lower < first_loose[i].lower);
      if (hits < draws) CHECK(first_tight[i].upper > first_loose[i].upper);
      // Each end is where the set stops holding (the bisection's result, not a kept neighbour's).
      if (hits < draws) CHECK((pass == 0 ? loose : tight).contains(hits, draws, a.upper));
    }
}

TEST_CASE("the interval's ends are where the mixture ratio, computed here from std::lgamma, reaches 1 / risk") {
  // Counts past the sequence's table of log-gammas (16,384), equal hits and misses among them
  // (the same argument to both of its log-gamma terms), each asked twice.
  const double risk = 1e-3, a = kMixtureShape;
  const ConfidenceSequence sequence(risk);
  const auto log_ratio = [&](double hits, double draws, double p) {
    const double misses = draws - hits;
    const double mixture = std::log(a) + std::lgamma(hits + a) + std::lgamma(misses + 1) - std::lgamma(draws + 1 + a);
    return mixture - ((hits > 0 ? hits * std::log(p) : 0.0) + (misses > 0 ? misses * std::log1p(-p) : 0.0));
  };
  const std::pair<double, double> counts[] = {{50000, 100000}, {20000, 40000}, {0, 200000}, {17000, 17000 + 17000}, {3, 70000}};
  for (int again = 0; again < 2; ++again)
    for (const auto& [hits, draws] : counts) {
      CAPTURE(hits);
      CAPTURE(draws);
      const auto b = sequence.bounds(static_cast<std::size_t>(hits), static_cast<std::size_t>(draws));
      CHECK(log_ratio(hits, draws, b.upper) < -std::log(risk));
      CHECK(log_ratio(hits, draws, b.upper * (1 + 1e-9)) >= -std::log(risk));
      if (hits > 0) {
        CHECK(log_ratio(hits, draws, b.lower) < -std::log(risk));
        CHECK(log_ratio(hits, draws, b.lower * (1 - 1e-9)) >= -std::log(risk));
      }
    }
}
