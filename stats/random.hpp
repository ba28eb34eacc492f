#pragma once

#include <cstdint>
#include <random>
#include <span>

namespace isobench::stats {

// Seeded draws that give the same numbers with every standard library: std::mt19937_64 is
// specified bit for bit, but std::uniform_int_distribution and std::shuffle are not.

// Uniform integer in [0, bound), bound > 0, by rejection (no modulo bias).
std::uint64_t uniform_below(std::mt19937_64& engine, std::uint64_t bound);

// Fisher-Yates: afterwards the first `count` elements are a uniform random selection in
// uniform random order (count = values.size() shuffles everything).
void partial_shuffle(std::span<double> values, std::size_t count, std::mt19937_64& engine);

}  // namespace isobench::stats
