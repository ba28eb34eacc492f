#include "kernels/catalog.hpp"

#include "gemm_dtypes.hpp"

namespace isobench::kernels {

namespace {

std::uint64_t u64(const Params& p, const char* axis) { return p.at(axis).get<std::uint64_t>(); }
std::uint64_t element_bytes(const Params& p) { return p.at("dtype").get<std::string>() == "fp32" ? 4 : 2; }

}  // namespace

std::vector<KernelSpec> allgather_gemm_kernel_specs() {
  KernelSpec spec;
  spec.name = "allgather_gemm";
  spec.runtime_libraries = {"libcublasLt", "libnccl"};
  spec.family = "allgather_gemm";
  spec.backend = Backend::cuda;
  spec.description =
      "NCCL all-gather of A's row blocks (m/ranks rows of k per rank) across `ranks` GPUs, then "
      "C[m,n] = A[m,k] B[k,n] with cuBLASLt on each rank (row-major, fp32 accumulation, B the "
      "rank's own). impl sequence: one all-gather, then one GEMM. impl overlap: `chunks` all-gathers "
      "on a communication stream, each chunk's GEMM on a compute stream once its rows arrive "
      "(C holds the same rows, chunk by chunk). The sample is the slowest rank's time.";
  spec.axes = {
      {"m", AxisType::integer, "rows of A and C, all ranks together (a multiple of ranks * chunks)",
       std::nullopt, {}, 1, 1 << 20},
      {"k", AxisType::integer, "columns of A, rows of B", std::nullopt, {}, 1, 1 << 20},
      {"n", AxisType::integer, "columns of B and C", std::nullopt, {}, 1, 1 << 20},
      ranks_axis(),
      {"dtype", AxisType::string, "A, B and C element type", nlohmann::json("bf16"), {"bf16", "fp32"}},
      {"impl", AxisType::string, "sequence: all-gather then GEMM; overlap: chunked on two streams",
       nlohmann::json("sequence"), {"sequence", "overlap"}},
      {"chunks", AxisType::integer, "overlap's chunks: 1, 2, 4 or 8 (sequence: 1)", nlohmann::json(1), {}, 1, 8},
  };
  // Rank-local A, the gathered A, B, C and the GEMM workspace, on each rank's GPU.
  spec.device_bytes = [](const Params& p) {
    const std::uint64_t m = u64(p, "m"), k = u64(p, "k"), n = u64(p, "n");
    return (m / u64(p, "ranks") * k + m * k + k * n + m * n) * element_bytes(p) + kGemmWorkspaceBytes;
  };
  // Per rank: the rows received from the other ranks, then the GEMM's operands.
  spec.bytes_per_launch = [](const Params& p) {
    const std::uint64_t m = u64(p, "m"), k = u64(p, "k"), n = u64(p, "n"), ranks = u64(p, "ranks");
    return (m * k / ranks * (ranks - 1) + m * k + k * n + m * n) * element_bytes(p);
  };
  spec.flops_per_launch = [](const Params& p) { return 2 * u64(p, "m") * u64(p, "n") * u64(p, "k"); };
  return {spec};
}

}  // namespace isobench::kernels
