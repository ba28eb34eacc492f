#include "stats/studentized_permutation.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include "stats/confidence_sequence.hpp"

namespace isobench::stats {
namespace {

// One group of `size` equal values, `x` of them labelled x, after `x_below` x values and
// `y_below` y values: its values' placements added to `sums`. The observed and enumerated
// labellings' sums go through here; drawn ones are computed in integers (LabellingDraws), which
// give the same doubles: every term and partial sum here is an exact multiple of a quarter.
void add_group(PlacementSums& sums, double size, double x, double x_below, double y_below) {
  const double y = size - x;
  const double px = y_below + 0.5 * y;  // each x of the group: the y below, half the y tied
  const double py = x_below + 0.5 * x;
  sums.u += x * px;
  sums.squares_x += x * px * px;
  sums.squares_y += y * py * py;
}

// Which labellings count as at least as extreme as the observed statistic.
class Extremeness {
 public:
  Extremeness(double statistic, Alternative alternative) : alternative_(alternative) {
    const double slack = std::isfinite(statistic) ? 1e-9 * std::abs(statistic) : 0.0;
    switch (alternative) {
      case Alternative::less: bound_ = statistic - slack; break;
      case Alternative::greater: bound_ = statistic + slack; break;
      case Alternative::two_sided: bound_ = std::abs(statistic) - slack; break;
    }
  }
  bool operator()(double t) const {
    switch (alternative_) {
      case Alternative::less: return t >= bound_;
      case Alternative::greater: return t <= bound_;
      case Alternative::two_sided: return std::abs(t) >= bound_;
    }
    return false;
  }
  // How many of the draws [first, last) count: the test above with the switch outside the loop,
  // each float widened to double as there (a loop the compiler can vectorise).
  std::size_t count_run(const float* first, const float* last) const {
    std::size_t n = 0;
    switch (alternative_) {
      case Alternative::less:
        for (const float* t = first; t != last; ++t) n += static_cast<double>(*t) >= bound_;
        break;
      case Alternative::greater:
        for (const float* t = first; t != last; ++t) n += static_cast<double>(*t) <= bound_;
        break;
      case Alternative::two_sided:
        for (const float* t = first; t != last; ++t) n += std::abs(static_cast<double>(*t)) >= bound_;
        break;
    }
    return n;
  }
  // The number of entries of an ascending table that count.
  std::size_t count_in(const std::vector<double>& ascending) const {
    const auto at_least = [&](double b) {
      return static_cast<std::size_t>(ascending.end() - std::lower_bound(ascending.begin(), ascending.end(), b));
    };
    const auto at_most = [&](double b) {
      return static_cast<std::size_t>(std::upper_bound(ascending.begin(), ascending.end(), b) - ascending.begin());
    };
    switch (alternative_) {
      case Alternative::less: return at_least(bound_);
      case Alternative::greater: return at_most(bound_);
      case Alternative::two_sided:
        if (bound_ <= 0) return ascending.size();
        return at_least(bound_) + at_most(-bound_);
    }
    return 0;
  }

 private:
  Alternative alternative_;
  double bound_ = 0;
};

double choose(double n, double k) {
  return std::round(std::exp(std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1)));
}

// The number of per-group count vectors with n_x values labelled x, stopping once it passes
// `cap` (all that matters is whether it is affordable).
double compositions(const TiedLabelling& l, double cap) {
  std::vector<double> ways(l.n_x + 1, 0.0);  // ways[k]: count vectors of the groups so far with k x
  ways[0] = 1;
  for (std::uint32_t size : l.group_size) {
    std::vector<double> next(l.n_x + 1, 0.0);
    for (std::size_t k = 0; k <= l.n_x; ++k) {
      if (ways[k] == 0) continue;
      for (std::size_t c = 0; c <= size && k + c <= l.n_x; ++c) next[k + c] = std::min(cap * 2, next[k + c] + ways[k]);
    }
    ways = std::move(next);
  }
  return ways[l.n_x];
}

// Depth-first walk over every count vector; `leaf(statistic, weight)` for each. With `first`,
// only the count vectors whose first group holds that many x.
template <class Leaf>
void enumerate(const TiedLabelling& l, Leaf&& leaf, std::optional<std::size_t> first = std::nullopt) {
  const std::size_t groups = l.group_size.size();
  std::vector<double> suffix(groups + 1, 0.0);  // values in groups g.. (to prune paths that cannot fill y)
  for (std::size_t g = groups; g-- > 0;) suffix[g] = suffix[g + 1] + l.group_size[g];
  std::vector<std::vector<double>> binomial;  // binomial[size][c], for the sizes present
  for (std::uint32_t size : l.group_size) {
    if (binomial.size() <= size) binomial.resize(size + 1);
    if (binomial[size].empty())
      for (std::uint32_t c = 0; c <= size; ++c) binomial[size].push_back(choose(size, c));
  }
  const double nx = static_cast<double>(l.n_x);
  auto walk = [&](auto&& self, std::size_t g, double x_below, double y_below, const PlacementSums& sums,
                  double weight) -> void {
    if (g == groups) {
      leaf(studentized_value(l.n_x, l.n_y, sums), weight);
      return;
    }
    const double size = l.group_size[g];
    const double x_left = nx - x_below;
    const double rest = suffix[g + 1];  // values after this group
    double lo = std::max(0.0, x_left - rest), hi = std::min(size, x_left);
    if (g == 0 && first) lo = std::max(lo, static_cast<double>(*first)), hi = std::min(hi, static_cast<double>(*first));
    for (double c = lo; c <= hi; ++c) {
      PlacementSums next = sums;
      add_group(next, size, c, x_below, y_below);
      self(self, g + 1, x_below + c, y_below + size - c, next, weight * binomial[l.group_size[g]][static_cast<std::size_t>(c)]);
    }
  };
  walk(walk, 0, 0.0, 0.0, PlacementSums{}, 1.0);
}

// Runs `own_part` on this thread and `helper_part` on one of its own, both to the end; an
// exception from either is rethrown once both have finished.
template <class Own, class Helper>
void in_two_threads(Own&& own_part, Helper&& helper_part) {
  std::exception_ptr failed;
  std::thread helper([&] {
    try {
      helper_part();
    } catch (...) {
      failed = std::current_exception();
    }
  });
  try {
    own_part();
  } catch (...) {
    helper.join();
    throw;
  }
  helper.join();
  if (failed) std::rethrow_exception(failed);
}

// Every labelling's statistic of untied samples, ascending. From 2^18 labellings two threads
// build it, one the labellings with the smallest value labelled x and one those with it
// labelled y, each sorting its half, and the halves are merged: the same table, sooner (one
// thread's build was a noticeable wait at 12 per side: docs/evidence.md#behind-the-code).
std::vector<double> exact_table(const TiedLabelling& untied, double labellings) {
  const auto part = [&](std::optional<std::size_t> first) {
    std::vector<double> t;
    enumerate(untied, [&](double s, double) { t.push_back(s); }, first);
    std::sort(t.begin(), t.end());
    return t;
  };
  if (labellings < double(1 << 18) || std::thread::hardware_concurrency() < 2) return part(std::nullopt);
  std::vector<double> with_x, with_y;
  in_two_threads([&] { with_y = part(0); }, [&] { with_x = part(1); });
  std::vector<double> all(with_x.size() + with_y.size());
  std::merge(with_y.begin(), with_y.end(), with_x.begin(), with_x.end(), all.begin());
  return all;
}

// The draws' random numbers: xoshiro256** (Blackman and Vigna), seeded by splitmix64, written
// out here so that the draws are the same with every standard library. A draw takes n_x
// numbers, where mt19937_64's refills were a fifth of a calibration's analysis.
class DrawEngine {
 public:
  explicit DrawEngine(std::uint64_t seed) {
    for (auto& word : state_) {
      seed += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      word = z ^ (z >> 31);
    }
  }
  std::uint64_t operator()() {
    const std::uint64_t result = rotate(state_[1] * 5, 7) * 9, t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotate(state_[3], 45);
    return result;
  }
  // Uniform in [0, bound), bound > 0: Lemire's multiply-and-shift, as stats::uniform_below
  // (detail::lemire_below, written again: through the template the draws were measurably slower;
  // docs/evidence.md#behind-the-code).
  std::uint64_t below(std::uint64_t bound) {
    __extension__ using wide = unsigned __int128;
    wide product = static_cast<wide>((*this)()) * bound;
    if (static_cast<std::uint64_t>(product) < bound) {
      const std::uint64_t threshold = (0 - bound) % bound;
      while (static_cast<std::uint64_t>(product) < threshold) product = static_cast<wide>((*this)()) * bound;
    }
    return static_cast<std::uint64_t>(product >> 64);
  }

 private:
  static std::uint64_t rotate(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4];
};

// Uniform random labellings of the pooled values, one at a time, as statistics.
class LabellingDraws {
 public:
  LabellingDraws(const TiedLabelling& l, std::uint64_t seed) : labelling_(l), engine_(seed) {
    const std::size_t total = l.n_x + l.n_y;
    positions_.resize(total);
    for (std::size_t i = 0; i < total; ++i) positions_[i] = static_cast<std::uint32_t>(i);
    if (!l.untied()) {
      group_of_.resize(total);
      x_in_group_.assign(l.group_size.size(), 0);
      std::uint32_t start = 0;
      for (std::size_t g = 0; g < l.group_size.size(); ++g) {
        for (std::uint32_t k = 0; k < l.group_size[g]; ++k) group_of_[start + k] = static_cast<std::uint32_t>(g);
        start += l.group_size[g];
      }
    }
  }
  double next() {
    if (labelling_.untied()) return positions_.size() <= 64 ? small_untied_statistic() : untied_statistic();
    return tied_statistic();
  }

 private:
  // With ties a placement is a whole number or a half: the sums doubled (x's placement
  // 2 y_below + y, y's 2 x_below + x, for a group of x x and y y) in integers, from each group's
  // count of drawn x (n_x increments, no branch on the draw). These are the sums add_group
  // accumulates, exactly (halves and quarters far below 2^53: every term and partial sum is exact
  // in double, in any order), so the same statistic bit for bit, with integer arithmetic per
  // group where a pass over every pooled value and doubles per group ran.
  double tied_statistic() {
    for_each_drawn_x([&](std::uint32_t position) { ++x_in_group_[group_of_[position]]; });
    std::int64_t u2 = 0, squares_x4 = 0, squares_y4 = 0, x_below = 0, y_below = 0;
    for (std::size_t g = 0; g < x_in_group_.size(); ++g) {
      const std::int64_t x = x_in_group_[g], y = labelling_.group_size[g] - x;
      x_in_group_[g] = 0;
      const std::int64_t px = 2 * y_below + y, py = 2 * x_below + x;
      u2 += x * px;
      squares_x4 += x * px * px;
      squares_y4 += y * py * py;
      x_below += x;
      y_below += y;
    }
    const PlacementSums sums{static_cast<double>(u2) * 0.5, static_cast<double>(squares_x4) * 0.25,
                             static_cast<double>(squares_y4) * 0.25};
    return studentized_value(labelling_.n_x, labelling_.n_y, sums);
  }

  // The x sample of a draw: the first n_x positions after a partial Fisher-Yates shuffle (kept
  // from draw to draw), each handed to `take` as soon as its swap fixes it (later swaps touch
  // only later indices). One pass rather than the shuffle and then a pass over the x positions:
  // the same draws, about a third faster.
  template <class Take>
  void for_each_drawn_x(Take&& take) {
    const std::size_t total = positions_.size();
    std::uint32_t* const position = positions_.data();
    for (std::size_t i = 0; i < labelling_.n_x; ++i) {
      const std::size_t j = i + 1 < total ? i + engine_.below(total - i) : i;
      const std::uint32_t taken = position[j];
      position[j] = position[i];
      position[i] = taken;
      take(taken);
    }
  }

  // Without ties: the x positions drawn as the bits of `words_`, and the statistic from them
  // (untied_sums).
  double untied_statistic() {
    words_.assign((positions_.size() + 63) / 64, 0);
    std::uint64_t* const word = words_.data();
    for_each_drawn_x([&](std::uint32_t position) { word[position / 64] |= std::uint64_t{1} << (position % 64); });
    return studentized_value(labelling_.n_x, labelling_.n_y, untied_sums(words_, labelling_.n_x, labelling_.n_y));
  }

  // Up to 64 untied values: the x positions as the bits of one word, chosen by Floyd's algorithm
  // (a uniform n_x-subset from n_x draws, no array to shuffle or clear): draw r below j + 1 and
  // take r, or j where r is taken already. Without a branch on which (r's bit is set again where
  // taken, j's only where r was taken): the branch went each way often enough to be
  // mispredicted, which slowed the draws (docs/evidence.md#behind-the-code).
  double small_untied_statistic() {
    const std::size_t total = positions_.size();
    std::uint64_t mask = 0;
    for (std::size_t j = total - labelling_.n_x; j < total; ++j) {
      const std::uint64_t r = engine_.below(j + 1);
      mask |= (std::uint64_t{1} << r) | (((mask >> r) & 1) << j);
    }
    return studentized_value(labelling_.n_x, labelling_.n_y, untied_sums({&mask, 1}, labelling_.n_x, labelling_.n_y));
  }

  // The placement sums of untied values from the x positions as bits, visited in order (n_x steps
  // and a word per 64 values rather than a pass over every value), in integers: the i-th x (from
  // 0), at position r, has Y_i = r - i y below it, so u = sum Y_i and x's squares sum Y_i^2; the y
  // between the (i-1)-th x and the i-th have i x below them, so y's squares are
  // sum_{i<=m} i^2 (Y_i - Y_{i-1}) = m^2 n_y - sum_{i<m} (2i + 1) Y_i (by parts, m = n_x, Y_m =
  // n_y). The same sums as add_group's (exact either way), so the same statistic bit for bit.
  static PlacementSums untied_sums(std::span<const std::uint64_t> words, std::size_t n_x, std::size_t n_y) {
    std::int64_t u = 0, squares_x = 0, weighted = 0, i = 0;
    for (std::size_t w = 0; w < words.size(); ++w)
      for (std::uint64_t rest = words[w]; rest != 0; rest &= rest - 1, ++i) {
        const std::int64_t y_below = static_cast<std::int64_t>(64 * w) + __builtin_ctzll(rest) - i;
        u += y_below;
        squares_x += y_below * y_below;
        weighted += i * y_below;
      }
    const auto m = static_cast<std::int64_t>(n_x);
    const std::int64_t squares_y = m * m * static_cast<std::int64_t>(n_y) - 2 * weighted - u;
    return {static_cast<double>(u), static_cast<double>(squares_x), static_cast<double>(squares_y)};
  }

  const TiedLabelling& labelling_;
  DrawEngine engine_;
  std::vector<std::uint32_t> positions_;
  std::vector<std::uint64_t> words_;       // untied: the drawn x positions as bits
  std::vector<std::uint32_t> group_of_;    // tied: each pooled position's group
  std::vector<std::uint32_t> x_in_group_;  // tied: the drawn x per group (zero between draws)
};

// The draws untied samples of one size share, drawn as far as some p-value needed it: pieces of
// kPiece draws, piece j from its own engine seeded from (seed, j), so that the table is the same
// however far and in whatever steps it grew, and a long extension (from 16 pieces, 65,536
// draws) is drawn by two threads, one half each. Each extension doubles the table (one piece
// first), up to the draws asked for. The mutex guards the table and its extension.
class SharedDraws {
 public:
  static constexpr std::size_t kPiece = 4096;
  SharedDraws(const TiedLabelling& untied, std::uint64_t seed) : labelling_(untied), seed_(seed) {}
  SharedDraws(const SharedDraws&) = delete;
  SharedDraws& operator=(const SharedDraws&) = delete;
  void extend(std::size_t most) {
    const std::size_t done = table.size() / kPiece;
    const std::size_t wanted = std::min(std::max(kPiece, 2 * table.size()), most);
    const std::size_t pieces = std::max<std::size_t>(1, (wanted + kPiece - 1) / kPiece - done);
    std::vector<float> draws(pieces * kPiece);
    const auto fill = [&](std::size_t first, std::size_t last) {
      for (std::size_t p = first; p < last; ++p) {
        LabellingDraws source(labelling_, piece_seed(done + p));
        for (std::size_t k = 0; k < kPiece; ++k) draws[p * kPiece + k] = static_cast<float>(source.next());
      }
    };
    if (pieces >= 16 && std::thread::hardware_concurrency() >= 2)
      in_two_threads([&] { fill(0, pieces / 2); }, [&] { fill(pieces / 2, pieces); });
    else
      fill(0, pieces);
    table.append(draws);
  }
  std::mutex mutex;
  detail::DrawnTable table;

 private:
  std::uint64_t piece_seed(std::size_t piece) const {  // splitmix64 of (seed, piece)
    std::uint64_t z = seed_ + 0x9E3779B97F4A7C15ull * (piece + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  TiedLabelling labelling_;
  std::uint64_t seed_;
};

// Tables kept across calls, least recently used dropped beyond a memory budget. A table is
// built once: a call that asks for one being built waits for it (two threads of calibrate's
// analysis ask for the same sizes at about the same time, and each built the largest exact
// tables and first pieces of draws for itself).
struct TableKey {
  std::size_t n_x, n_y;
  bool exact;
  std::uint64_t seed;
  bool operator==(const TableKey& o) const {
    return std::tie(n_x, n_y, exact, seed) == std::tie(o.n_x, o.n_y, o.exact, o.seed);
  }
};

std::size_t table_bytes(const std::vector<double>& t) { return t.size() * sizeof(double); }
std::size_t table_bytes(SharedDraws& t) {
  std::lock_guard lock(t.mutex);
  return t.table.bytes();
}

template <class Table>
class TableCache {
 public:
  template <class Build>
  std::shared_ptr<Table> get(const TableKey& key, Build&& build) {
    std::shared_ptr<Slot> slot;
    {
      std::lock_guard lock(mutex_);
      const auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e.first == key; });
      if (it != entries_.end()) {
        entries_.splice(entries_.begin(), entries_, it);
        slot = it->second;
      } else {
        slot = std::make_shared<Slot>();
        entries_.emplace_front(key, slot);
      }
    }
    bool built_here = false;
    std::call_once(slot->once, [&] {  // a build that throws leaves the slot to the next caller
      slot->table = build();
      slot->ready.store(true, std::memory_order_release);
      built_here = true;
    });
    if (built_here) trim();
    return slot->table;
  }

 private:
  struct Slot {
    std::once_flag once;
    std::atomic<bool> ready{false};
    std::shared_ptr<Table> table;  // written once, before `ready`
  };
  // Drops the least recently used built tables beyond the budget (never the newest).
  void trim() {
    std::lock_guard lock(mutex_);
    std::size_t bytes = 0;
    for (auto it = entries_.begin(); it != entries_.end();) {
      const bool built = it->second->ready.load(std::memory_order_acquire);
      if (built) bytes += table_bytes(*it->second->table);
      if (built && bytes > kBudgetBytes && it != entries_.begin())
        it = entries_.erase(it);
      else
        ++it;
    }
  }

  static constexpr std::size_t kBudgetBytes = 128u << 20;
  std::mutex mutex_;
  std::list<std::pair<TableKey, std::shared_ptr<Slot>>> entries_;
};

// Exact tables hold every labelling's statistic (ties between them matter); Monte Carlo tables
// hold draws, kept as float (a relative 1e-7 is far below what separates the statistics that
// decide a p-value), with their block summaries: 10 million draws in 49 MB.
TableCache<const std::vector<double>>& exact_tables() {
  static TableCache<const std::vector<double>> cache;
  return cache;
}
TableCache<SharedDraws>& drawn_tables() {
  static TableCache<SharedDraws> cache;
  return cache;
}

const ConfidenceSequence& sequence() {
  static const ConfidenceSequence s(kMonteCarloRisk);
  return s;
}

// The most draws for one p-value (studentized_permutation.hpp).
std::size_t draws_for(const std::vector<double>& ascending_levels, const MonteCarloBudget& budget) {
  const double wanted =
      ascending_levels.empty() ? 0.0 : std::ceil(budget.draws_per_level / ascending_levels.front());
  return static_cast<std::size_t>(std::clamp(wanted, static_cast<double>(kMinDraws), static_cast<double>(kMaxDraws)));
}

// Whether the draws have gone as far as the levels still in the interval are worth: the
// smallest of them, t, is worth draws_per_level / t draws (the interval's half-width is then
// about a third of t), so a p near a level gives up there rather than at the budget of the smallest level
// of all. The levels in the interval are contiguous (it is an interval): a binary search.
bool beyond_budget(std::span<const double> levels, double draws_per_level, std::size_t hits, std::size_t made) {
  const double centre = static_cast<double>(hits) / static_cast<double>(made);
  const auto inside = [&](double level) { return sequence().contains(hits, made, level); };
  auto above = std::lower_bound(levels.begin(), levels.end(), centre);
  // The first level of [begin, above) that the interval holds (those after it all are).
  auto first = std::partition_point(levels.begin(), above, [&](double level) { return !inside(level); });
  if (first == above && (above == levels.end() || !inside(*above))) return false;  // none held
  return static_cast<double>(made) >= draws_per_level / *first;
}

// A finished count's p-value: the upper end of the confidence sequence's interval, resolved when
// no level lies in it, whether the count stopped there, gave up or ran out of draws; unresolved,
// the estimate where the budget asks for it.
PermutationPValue monte_carlo_p(const detail::SequentialCount& c, std::span<const double> levels,
                                const MonteCarloBudget& budget) {
  const ProportionBounds bounds = sequence().bounds(c.hits, c.made);
  PermutationPValue r;
  r.method = PermutationMethod::monte_carlo;
  r.p_value = bounds.upper;
  r.p_lower = bounds.lower;
  r.labellings = static_cast<double>(c.made);
  r.hits = static_cast<double>(c.hits);
  r.resolved = sequence().separates(levels, c.hits, c.made);
  if (!r.resolved && budget.predict_undecided) {
    // The smallest level still in the interval is the one it gave up at; the verdict's budget
    // there, and the hits it would hold at the rate seen.
    const auto held = std::find_if(levels.begin(), levels.end(),
                                   [&](double level) { return sequence().contains(c.hits, c.made, level); });
    if (held != levels.end()) {
      const double full = std::min(std::ceil(kDrawsPerLevel / *held), static_cast<double>(kMaxDraws));
      const double rate = static_cast<double>(c.hits) / static_cast<double>(c.made);
      const auto draws = static_cast<std::size_t>(std::max(full, static_cast<double>(c.made)));
      const auto hits = static_cast<std::size_t>(std::llround(rate * static_cast<double>(draws)));
      r.p_value = sequence().bounds(hits, draws).upper;
    }
  }
  return r;
}

PermutationPValue exact_p(double p, double labellings) {
  PermutationPValue r;
  r.p_value = r.p_lower = p;
  r.labellings = labellings;
  return r;
}

// The levels as the confidence sequence takes them: ascending, inside (0, 1).
std::vector<double> usable_levels(const std::vector<double>& levels) {
  std::vector<double> out;
  for (double level : levels)
    if (level > 0 && level < 1) out.push_back(level);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

namespace detail {

bool look(SequentialCount& c, std::span<const double> levels, double draws_per_level) {
  if (c.made < c.next_look || c.made % kLookStep != 0) return false;
  const std::size_t later = c.made + c.made / 20;
  c.next_look = std::max(c.made + kLookStep, later - later % kLookStep);
  c.stopped = sequence().separates(levels, c.hits, c.made) || beyond_budget(levels, draws_per_level, c.hits, c.made);
  return c.stopped;
}

void DrawnTable::append(const std::vector<float>& draws) {
  // A partial last block is summarised again with the draws that complete it.
  if (!highest_.empty() && draws_.size() % kBlock != 0) {
    lowest_.pop_back();
    highest_.pop_back();
    magnitude_.pop_back();
  }
  const std::size_t first = highest_.size() * kBlock;
  draws_.insert(draws_.end(), draws.begin(), draws.end());
  has_nan_ = has_nan_ || std::any_of(draws.begin(), draws.end(), [](float v) { return std::isnan(v); });
  for (std::size_t begin = first; begin < draws_.size(); begin += kBlock) {
    const auto from = draws_.begin() + static_cast<std::ptrdiff_t>(begin);
    const auto to = draws_.begin() + static_cast<std::ptrdiff_t>(std::min(begin + kBlock, draws_.size()));
    const auto [low, high] = std::minmax_element(from, to);
    lowest_.push_back(*low);
    highest_.push_back(*high);
    magnitude_.push_back(std::max(std::abs(*low), std::abs(*high)));
  }
}

void DrawnTable::walk(SequentialCount& c, float statistic, Alternative alternative, std::span<const double> levels,
                      std::size_t most, double draws_per_level) const {
  const Extremeness extreme(statistic, alternative);
  const std::size_t last = std::min(most, draws_.size());
  while (!c.stopped && c.made < last) {
    if (extreme(static_cast<double>(draws_[c.made++]))) ++c.hits;
    look(c, levels, draws_per_level);
  }
}

void DrawnTable::count(SequentialCount& c, float statistic, Alternative alternative, std::span<const double> levels,
                       std::size_t most, double draws_per_level) const {
  if (has_nan_) return walk(c, statistic, alternative, levels, most, draws_per_level);
  const std::size_t last = std::min(most, draws_.size());
  const Extremeness extreme(statistic, alternative);
  // Each block's draw that decides whether any of its draws counts.
  const std::vector<float>& decisive = alternative == Alternative::less      ? highest_
                                       : alternative == Alternative::greater ? lowest_
                                                                             : magnitude_;
  // The hits among draws [from, to): the draws themselves at the ends, the blocks between by
  // their decisive draw (most of a deep count's blocks hold nothing that counts).
  const auto hits = [&](std::size_t from, std::size_t to) {
    const std::size_t head = std::min(to, (from + kBlock - 1) / kBlock * kBlock);
    std::size_t n = extreme.count_run(draws_.data() + from, draws_.data() + head);
    const std::size_t blocks_end = to / kBlock;
    for (std::size_t k = head / kBlock; k < blocks_end; ++k)
      if (extreme(static_cast<double>(decisive[k]))) n += extreme.count_run(draws_.data() + k * kBlock, draws_.data() + (k + 1) * kBlock);
    if (head < to) n += extreme.count_run(draws_.data() + std::max(head, blocks_end * kBlock), draws_.data() + to);
    return n;
  };
  // A look acts only at a multiple of kBlock (kLookStep) from next_look on, and the count already
  // looked at `made`: from there straight to the next such point, or to the last draw.
  while (!c.stopped && c.made < last) {
    const std::size_t due = std::max(c.made + 1, c.next_look);
    const std::size_t at = std::min(last, (due + kBlock - 1) / kBlock * kBlock);
    c.hits += hits(c.made, at);
    c.made = at;
    look(c, levels, draws_per_level);
  }
}

}  // namespace detail

PlacementSums placement_sums(const TiedLabelling& l) {
  PlacementSums sums;
  double x_below = 0, y_below = 0;
  for (std::size_t g = 0; g < l.group_size.size(); ++g) {
    const double size = l.group_size[g], x = l.x_count[g];
    add_group(sums, size, x, x_below, y_below);
    x_below += x;
    y_below += size - x;
  }
  return sums;
}

PermutationPValue studentized_permutation_p(const TiedLabelling& observed, double statistic,
                                            Alternative alternative, const PermutationOptions& options) {
  const Extremeness extreme(statistic, alternative);
  const double total = static_cast<double>(observed.n_x + observed.n_y);
  const double labellings = choose(total, static_cast<double>(observed.n_x));
  const bool untied = observed.untied();

  if (untied && labellings <= kExactTableLabellings) {
    const auto table = exact_tables().get({observed.n_x, observed.n_y, true, 0}, [&] {
      return std::make_shared<const std::vector<double>>(exact_table(observed, labellings));
    });
    return exact_p(static_cast<double>(extreme.count_in(*table)) / static_cast<double>(table->size()), labellings);
  }
  if (!untied && compositions(observed, kExactCompositions) <= kExactCompositions) {
    double hits = 0, all = 0;
    enumerate(observed, [&](double s, double weight) {
      all += weight;
      if (extreme(s)) hits += weight;
    });
    return exact_p(std::min(1.0, hits / all), labellings);
  }

  const std::vector<double> levels = usable_levels(options.levels);
  const MonteCarloBudget& budget = options.budget;
  const std::size_t most = draws_for(levels, budget);
  detail::SequentialCount c;
  if (untied) {
    const auto shared = drawn_tables().get({observed.n_x, observed.n_y, false, options.seed},
                                           [&] { return std::make_shared<SharedDraws>(observed, options.seed); });
    std::lock_guard lock(shared->mutex);
    // Compared as stored: the observed statistic rounded to float like the draws, so a draw
    // equal to it counts.
    const auto rounded = static_cast<float>(statistic);
    for (;;) {
      shared->table.count(c, rounded, alternative, levels, most, budget.draws_per_level);
      if (c.stopped || c.made >= most) break;
      shared->extend(most);
    }
    return monte_carlo_p(c, levels, budget);
  }
  LabellingDraws source(observed, options.seed);
  while (!c.stopped && c.made < most) {
    ++c.made;
    if (extreme(source.next())) ++c.hits;
    detail::look(c, levels, budget.draws_per_level);
  }
  return monte_carlo_p(c, levels, budget);
}

}  // namespace isobench::stats
