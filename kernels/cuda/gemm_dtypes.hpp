#pragma once
// Sizes shared by the GEMM specs (pure C++) and their CUDA implementations, so the bytes a spec
// reports are the bytes the implementation allocates.

#include <cstdint>
#include <string>

namespace isobench::kernels {

inline constexpr std::uint64_t kGemmWorkspaceBytes = 32ull << 20;
// How many algorithms the cuBLASLt heuristic is asked for; the `algo` axis indexes this list.
inline constexpr int kGemmHeuristicCandidates = 32;

struct GemmElementBytes {
  std::uint64_t input;   // A and B
  std::uint64_t output;  // D (C aliases D: beta is 0)
};

// bf16 -> bf16, fp16 -> fp16, fp8e4m3 -> bf16, tf32 (fp32 storage) -> fp32.
inline GemmElementBytes gemm_element_bytes(const std::string& dtype) {
  if (dtype == "fp8e4m3") return {1, 2};
  if (dtype == "tf32") return {4, 4};
  return {2, 2};
}

// A (m x k), B (k x n) and D (m x n).
inline std::uint64_t gemm_operand_bytes(const std::string& dtype, std::uint64_t m,
                                        std::uint64_t n, std::uint64_t k) {
  const auto b = gemm_element_bytes(dtype);
  return b.input * (m * k + k * n) + b.output * m * n;
}

}  // namespace isobench::kernels
