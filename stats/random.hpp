#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>

namespace isobench::stats {

// Seeded draws that give the same numbers with every standard library: std::mt19937_64 is
// specified bit for bit, but std::uniform_int_distribution and std::shuffle are not.

// The numbers of std::mt19937_64 seeded with the same value, bit for bit (test_random checks
// millions), with its refill written out: libstdc++'s took several times as long a number
// (docs/evidence.md#behind-the-code), and the power simulations' resampling draws hundreds of
// millions.
class Mt19937_64 {
 public:
  using result_type = std::uint64_t;
  explicit Mt19937_64(std::uint64_t seed) {
    state_[0] = seed;
    for (std::size_t k = 1; k < kWords; ++k)
      state_[k] = 6364136223846793005ull * (state_[k - 1] ^ (state_[k - 1] >> 62)) + k;
  }
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() {
    if (next_ == kWords) refill();
    std::uint64_t z = state_[next_++];
    z ^= (z >> 29) & 0x5555555555555555ull;
    z ^= (z << 17) & 0x71D67FFFEDA60000ull;
    z ^= (z << 37) & 0xFFF7EEE000000000ull;
    return z ^ (z >> 43);
  }

 private:
  static constexpr std::size_t kWords = 312, kShift = 156;
  void refill() {
    constexpr std::uint64_t matrix = 0xB5026F5AA96619E9ull, upper = ~std::uint64_t{0} << 31, lower = ~upper;
    const auto twist = [&](std::size_t k, std::size_t next, std::size_t far) {
      const std::uint64_t y = (state_[k] & upper) | (state_[next] & lower);
      state_[k] = state_[far] ^ (y >> 1) ^ ((0 - (y & 1)) & matrix);
    };
    std::size_t k = 0;
    for (; k < kWords - kShift; ++k) twist(k, k + 1, k + kShift);
    for (; k < kWords - 1; ++k) twist(k, k + 1, k + kShift - kWords);
    twist(kWords - 1, 0, kShift - 1);
    next_ = 0;
  }
  std::uint64_t state_[kWords];
  std::size_t next_ = kWords;
};

namespace detail {
template <class Engine>
std::uint64_t lemire_below(Engine& engine, std::uint64_t bound) {
  // Lemire's multiply-and-shift (ACM TOMS 2019): the high word of draw * bound, redrawing the
  // few draws whose low word would bias it. No division on almost every call: permutation
  // tests draw millions of these.
  __extension__ using wide = unsigned __int128;
  wide product = static_cast<wide>(engine()) * bound;
  auto low = static_cast<std::uint64_t>(product);
  if (low < bound) {
    const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
    while (low < threshold) {
      product = static_cast<wide>(engine()) * bound;
      low = static_cast<std::uint64_t>(product);
    }
  }
  return static_cast<std::uint64_t>(product >> 64);
}
}  // namespace detail

// Uniform integer in [0, bound), bound > 0, without bias (rejection). Inline: the power
// simulations' resampling calls it for every simulated value (out of line, the call showed in a
// calibration's profile: docs/evidence.md#behind-the-code).
std::uint64_t uniform_below(std::mt19937_64& engine, std::uint64_t bound);
inline std::uint64_t uniform_below(Mt19937_64& engine, std::uint64_t bound) { return detail::lemire_below(engine, bound); }

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
