#include "stats/random.hpp"

#include <utility>

namespace isobench::stats {

std::uint64_t uniform_below(std::mt19937_64& engine, std::uint64_t bound) {
  // Accept draws below the largest multiple of bound that fits in 2^64.
  const std::uint64_t limit = (~std::uint64_t{0}) - ((~std::uint64_t{0}) % bound + 1) % bound;
  std::uint64_t draw = engine();
  while (draw > limit) draw = engine();
  return draw % bound;
}

void partial_shuffle(std::span<double> values, std::size_t count, std::mt19937_64& engine) {
  const std::size_t n = values.size();
  for (std::size_t i = 0; i < count && i + 1 < n; ++i) {
    const std::size_t j = i + static_cast<std::size_t>(uniform_below(engine, n - i));
    std::swap(values[i], values[j]);
  }
}

}  // namespace isobench::stats
