#include "stats/random.hpp"

namespace isobench::stats {
namespace {

template <class Engine>
std::uint64_t below(Engine& engine, std::uint64_t bound) {
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

}  // namespace

std::uint64_t uniform_below(std::mt19937_64& engine, std::uint64_t bound) { return below(engine, bound); }
std::uint64_t uniform_below(Mt19937_64& engine, std::uint64_t bound) { return below(engine, bound); }

}  // namespace isobench::stats
