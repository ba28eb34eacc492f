// stats::Mt19937_64 gives std::mt19937_64's numbers bit for bit from the same seed (the power
// simulations' figures depend on it), across many refills, and uniform_below draws the same
// bounded integers from either.
#include "stats/random.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>

using isobench::stats::Mt19937_64;
using isobench::stats::uniform_below;

TEST_CASE("Mt19937_64 gives std::mt19937_64's numbers from the same seed") {
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{5489}, std::uint64_t{20261129},
                             ~std::uint64_t{0}, std::uint64_t{0x9E3779B97F4A7C15}}) {
    CAPTURE(seed);
    std::mt19937_64 reference(seed);
    Mt19937_64 engine(seed);
    std::size_t differ = 0;
    for (int k = 0; k < 1'000'000; ++k) differ += engine() != reference();  // 3,205 refills
    CHECK(differ == 0);
  }
  // The 10,000th number of the default seed, as the C++ standard specifies it ([rand.predef]).
  Mt19937_64 standard_seed(5489);
  std::uint64_t v = 0;
  for (int k = 0; k < 10'000; ++k) v = standard_seed();
  CHECK(v == 9981545732273789042ull);
}

TEST_CASE("uniform_below draws the same bounded integers from either engine") {
  std::mt19937_64 reference(77);
  Mt19937_64 engine(77);
  std::size_t differ = 0;
  for (std::uint64_t bound = 1; bound < 200'000; ++bound)
    differ += uniform_below(engine, bound) != uniform_below(reference, bound);
  CHECK(differ == 0);
}
