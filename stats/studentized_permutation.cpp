#include "stats/studentized_permutation.hpp"

#include <algorithm>
#include <boost/math/special_functions/beta.hpp>
#include <cmath>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <random>
#include <tuple>

#include "stats/random.hpp"

namespace isobench::stats {
namespace {

// One group of `size` equal values, `x` of them labelled x, after `x_below` x values and
// `y_below` y values: its values' placements added to `sums`. Every path to a labelling's sums
// (observed, enumerated, drawn) goes through here, so equal labellings get equal sums.
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

// Depth-first walk over every count vector; `leaf(statistic, weight)` for each.
template <class Leaf>
void enumerate(const TiedLabelling& l, Leaf&& leaf) {
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
      leaf(studentized_statistic(l.n_x, l.n_y, sums).value, weight);
      return;
    }
    const double size = l.group_size[g];
    const double x_left = nx - x_below;
    const double rest = suffix[g + 1];  // values after this group
    const double lo = std::max(0.0, x_left - rest), hi = std::min(size, x_left);
    for (double c = lo; c <= hi; ++c) {
      PlacementSums next = sums;
      add_group(next, size, c, x_below, y_below);
      self(self, g + 1, x_below + c, y_below + size - c, next, weight * binomial[l.group_size[g]][static_cast<std::size_t>(c)]);
    }
  };
  walk(walk, 0, 0.0, 0.0, PlacementSums{}, 1.0);
}

// Uniform random labellings of the pooled values, one at a time, as statistics.
class LabellingDraws {
 public:
  LabellingDraws(const TiedLabelling& l, std::uint64_t seed) : labelling_(l), engine_(seed) {
    const std::size_t total = l.n_x + l.n_y;
    positions_.resize(total);
    for (std::size_t i = 0; i < total; ++i) positions_[i] = static_cast<std::uint32_t>(i);
    is_x_.assign(total, 0);
  }
  double next() {
    // The first n_x positions after a partial Fisher-Yates are a uniform random x sample.
    partial_shuffle(positions_, labelling_.n_x, engine_);
    for (std::size_t i = 0; i < labelling_.n_x; ++i) is_x_[positions_[i]] = 1;
    PlacementSums sums;
    double x_below = 0, y_below = 0;
    std::size_t at = 0;
    for (std::uint32_t size : labelling_.group_size) {
      double x = 0;
      for (std::uint32_t k = 0; k < size; ++k, ++at) {
        x += is_x_[at];
        is_x_[at] = 0;
      }
      add_group(sums, size, x, x_below, y_below);
      x_below += x;
      y_below += size - x;
    }
    return studentized_statistic(labelling_.n_x, labelling_.n_y, sums).value;
  }

 private:
  const TiedLabelling& labelling_;
  std::mt19937_64 engine_;
  std::vector<std::uint32_t> positions_;
  std::vector<unsigned char> is_x_;
};

// Untied samples of one size share their permutation distribution (and their Monte Carlo
// draws): tables kept across calls, least recently used dropped beyond a memory budget.
struct TableKey {
  std::size_t n_x, n_y;
  bool exact;
  std::size_t draws;
  std::uint64_t seed;
  bool operator==(const TableKey& o) const {
    return std::tie(n_x, n_y, exact, draws, seed) == std::tie(o.n_x, o.n_y, o.exact, o.draws, o.seed);
  }
};

std::size_t table_bytes(const std::vector<double>& t) { return t.size() * sizeof(double); }
std::size_t table_bytes(const detail::DrawnTable& t) { return t.bytes(); }

template <class Table>
class TableCache {
 public:
  template <class Build>
  std::shared_ptr<const Table> get(const TableKey& key, Build&& build) {
    {
      std::lock_guard lock(mutex_);
      for (auto it = entries_.begin(); it != entries_.end(); ++it)
        if (it->first == key) {
          entries_.splice(entries_.begin(), entries_, it);
          return it->second;
        }
    }
    auto table = std::make_shared<const Table>(build());
    std::lock_guard lock(mutex_);
    entries_.emplace_front(key, table);
    std::size_t bytes = 0;
    for (auto it = entries_.begin(); it != entries_.end();) {
      bytes += table_bytes(*it->second);
      if (bytes > kBudgetBytes && it != entries_.begin())
        it = entries_.erase(it);
      else
        ++it;
    }
    return table;
  }

 private:
  static constexpr std::size_t kBudgetBytes = 64u << 20;
  std::mutex mutex_;
  std::list<std::pair<TableKey, std::shared_ptr<const Table>>> entries_;
};

// Exact tables hold every labelling's statistic (ties between them matter); Monte Carlo tables
// hold draws, kept as float (a relative 1e-7 is far below what separates the statistics that
// decide a p-value), with their block summaries: 4 million draws in 16.2 MB.
TableCache<std::vector<double>>& exact_tables() {
  static TableCache<std::vector<double>> cache;
  return cache;
}
TableCache<detail::DrawnTable>& drawn_tables() {
  static TableCache<detail::DrawnTable> cache;
  return cache;
}

using detail::kStopAfterExtreme;

std::size_t draws_for(double resolution) {
  if (!(resolution > 0)) return 4'000'000;
  return static_cast<std::size_t>(std::clamp(std::ceil(100 / resolution), 1e4, 4e6));
}

// The one-sided upper confidence bound (Clopper-Pearson, 1 - kMonteCarloRisk) of the exact
// p-value, from `hits` of `draws` labellings at least as extreme.
double p_upper_bound(std::size_t hits, std::size_t draws) {
  if (hits >= draws) return 1.0;
  return boost::math::ibeta_inv(static_cast<double>(hits + 1), static_cast<double>(draws - hits), 1 - kMonteCarloRisk);
}

// A sequential count's p-value: the upper bound, from the labellings drawn.
PermutationPValue monte_carlo_p(const detail::SequentialCount& c) {
  PermutationPValue r;
  r.method = PermutationMethod::monte_carlo;
  r.p_value = p_upper_bound(c.hits, c.made);
  r.labellings = static_cast<double>(c.made);
  return r;
}

// Besag-Clifford over a sequence of drawn statistics, reported as the upper bound.
template <class Next>
PermutationPValue sequential_monte_carlo(const Extremeness& extreme, std::size_t draws, Next&& next) {
  std::size_t hits = 0, made = 0;
  while (made < draws && hits < kStopAfterExtreme) {
    ++made;
    if (extreme(next())) ++hits;
  }
  return monte_carlo_p({hits, made});
}

}  // namespace

namespace detail {

DrawnTable::DrawnTable(std::vector<float> draws) : draws_(std::move(draws)) {
  has_nan_ = std::any_of(draws_.begin(), draws_.end(), [](float v) { return std::isnan(v); });
  for (std::size_t begin = 0; begin < draws_.size(); begin += kBlock) {
    const auto first = draws_.begin() + static_cast<std::ptrdiff_t>(begin);
    const auto last = draws_.begin() + static_cast<std::ptrdiff_t>(std::min(begin + kBlock, draws_.size()));
    const auto [low, high] = std::minmax_element(first, last);
    blocks_.push_back({*low, *high, std::max(std::abs(*low), std::abs(*high))});
  }
}

std::size_t DrawnTable::bytes() const { return draws_.size() * sizeof(float) + blocks_.size() * sizeof(Block); }

SequentialCount DrawnTable::walk(float statistic, Alternative alternative) const {
  const Extremeness extreme(statistic, alternative);
  SequentialCount c;
  while (c.made < draws_.size() && c.hits < kStopAfterExtreme)
    if (extreme(static_cast<double>(draws_[c.made++]))) ++c.hits;
  return c;
}

SequentialCount DrawnTable::count(float statistic, Alternative alternative) const {
  if (has_nan_) return walk(statistic, alternative);
  const Extremeness extreme(statistic, alternative);
  // The draw of a block that counts first, if any of them does.
  const auto may_count = [&](const Block& b) {
    switch (alternative) {
      case Alternative::less: return extreme(b.highest);
      case Alternative::greater: return extreme(b.lowest);
      case Alternative::two_sided: return extreme(b.largest_magnitude);
    }
    return true;
  };
  SequentialCount c;
  for (std::size_t k = 0; k < blocks_.size() && c.hits < kStopAfterExtreme; ++k) {
    const std::size_t end = std::min((k + 1) * kBlock, draws_.size());
    if (!may_count(blocks_[k])) {
      c.made = end;
      continue;
    }
    while (c.made < end && c.hits < kStopAfterExtreme)
      if (extreme(static_cast<double>(draws_[c.made++]))) ++c.hits;
  }
  return c;
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
    const auto table = exact_tables().get({observed.n_x, observed.n_y, true, 0, 0}, [&] {
      std::vector<double> t;
      t.reserve(static_cast<std::size_t>(labellings));
      enumerate(observed, [&](double s, double) { t.push_back(s); });
      std::sort(t.begin(), t.end());
      return t;
    });
    return {static_cast<double>(extreme.count_in(*table)) / static_cast<double>(table->size()),
            PermutationMethod::exact, labellings};
  }
  if (!untied && compositions(observed, kExactCompositions) <= kExactCompositions) {
    double hits = 0, all = 0;
    enumerate(observed, [&](double s, double weight) {
      all += weight;
      if (extreme(s)) hits += weight;
    });
    return {std::min(1.0, hits / all), PermutationMethod::exact, labellings};
  }

  const std::size_t draws = draws_for(options.resolution);
  if (untied) {
    const auto table = drawn_tables().get({observed.n_x, observed.n_y, false, draws, options.seed}, [&] {
      LabellingDraws source(observed, options.seed);
      std::vector<float> t(draws);
      for (float& s : t) s = static_cast<float>(source.next());
      return detail::DrawnTable(std::move(t));
    });
    // Compared as stored: the observed statistic rounded to float like the draws, so a draw
    // equal to it counts.
    return monte_carlo_p(table->count(static_cast<float>(statistic), alternative));
  }
  LabellingDraws source(observed, options.seed);
  return sequential_monte_carlo(extreme, draws, [&] { return source.next(); });
}

}  // namespace isobench::stats
