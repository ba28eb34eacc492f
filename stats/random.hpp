#pragma once

#include <cstdint>
#include <random>
#include <utility>

namespace isobench::stats {

// Seeded draws that give the same numbers with every standard library: std::mt19937_64 is
// specified bit for bit, but std::uniform_int_distribution and std::shuffle are not.

// Uniform integer in [0, bound), bound > 0, without bias (rejection).
std::uint64_t uniform_below(std::mt19937_64& engine, std::uint64_t bound);

// Fisher-Yates: afterwards the first `count` elements of `values` (a vector or span) are a
// uniform random selection in uniform random order (count = size shuffles everything).
template <class Range>
void partial_shuffle(Range& values, std::size_t count, std::mt19937_64& engine) {
  const std::size_t n = values.size();
  for (std::size_t i = 0; i < count && i + 1 < n; ++i) {
    const std::size_t j = i + static_cast<std::size_t>(uniform_below(engine, n - i));
    std::swap(values[i], values[j]);
  }
}

}  // namespace isobench::stats
