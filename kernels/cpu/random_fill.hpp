#pragma once
// Seeded inputs for the CPU kernels. Values are drawn so that no buffer is all zeros and sums
// stay well conditioned (checks compare against a reference with a relative tolerance).

#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>

namespace isobench::kernels::cpu_detail {

// Uniform in [lo, hi) from a 64-bit engine; the engine is shared across the buffers of one
// instance so rotated copies differ from each other.
template <typename T>
void fill_uniform(T* data, std::size_t count, std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  for (std::size_t i = 0; i < count; ++i) data[i] = static_cast<T>(dist(rng));
}

// Random bytes, with a nonzero first byte so the buffer is never all zeros.
inline void fill_bytes(unsigned char* data, std::size_t count, std::mt19937_64& rng) {
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    std::uint64_t word = rng();
    for (int b = 0; b < 8; ++b) data[i + b] = static_cast<unsigned char>(word >> (8 * b));
  }
  std::uint64_t word = rng();
  for (; i < count; ++i, word >>= 8) data[i] = static_cast<unsigned char>(word);
  if (count > 0 && data[0] == 0) data[0] = 1;
}

inline int checked_rotation(int rotate_buffers) {
  if (rotate_buffers < 1)
    throw std::runtime_error("rotate_buffers must be at least 1, got " +
                             std::to_string(rotate_buffers));
  return rotate_buffers;
}

}  // namespace isobench::kernels::cpu_detail
