#include "stats/random.hpp"

namespace isobench::stats {

std::uint64_t uniform_below(std::mt19937_64& engine, std::uint64_t bound) { return detail::lemire_below(engine, bound); }

}  // namespace isobench::stats
