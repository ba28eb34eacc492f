#include "kernels/catalog.hpp"

#include "gemm_dtypes.hpp"

namespace isobench::kernels {

std::vector<KernelSpec> grouped_gemm_kernel_specs() {
  KernelSpec grouped;
  grouped.name = "grouped_gemm";
  grouped.family = "grouped_gemm";
  grouped.backend = Backend::cuda;
  grouped.runtime_libraries = {"libcublas"};
  grouped.description =
      "MoE-style grouped GEMM: for each of `groups` experts, D_e[m_per_group,n] = X_e W_e^T "
      "(bf16 in/out, fp32 accumulation). impl grouped_batched: one cublasGemmGroupedBatchedEx "
      "call (one group per expert); impl lt_loop: one cuBLASLt matmul per expert on the stream "
      "(the heuristic's first algorithm, shared by all experts).";
  grouped.axes = {
      {"groups", AxisType::integer, "experts", std::nullopt, {}, 1, 4096},
      {"m_per_group", AxisType::integer, "tokens per expert", std::nullopt, {}, 1, 1 << 20},
      {"n", AxisType::integer, "output features", std::nullopt, {}, 1, 1 << 20},
      {"k", AxisType::integer, "input features", std::nullopt, {}, 1, 1 << 20},
      {"dtype", AxisType::string, "input and output type", nlohmann::json("bf16"), {"bf16"}},
      {"impl", AxisType::string, "cuBLAS entry point", nlohmann::json("grouped_batched"),
       {"grouped_batched", "lt_loop"}},
  };
  auto operands = [](const Params& p) {
    return p.at("groups").get<std::uint64_t>() *
           gemm_operand_bytes("bf16", p.at("m_per_group").get<std::uint64_t>(),
                              p.at("n").get<std::uint64_t>(), p.at("k").get<std::uint64_t>());
  };
  grouped.device_bytes = [operands](const Params& p) { return operands(p) + kGemmWorkspaceBytes; };
  grouped.bytes_per_launch = operands;
  grouped.flops_per_launch = [](const Params& p) {
    return 2 * p.at("groups").get<std::uint64_t>() * p.at("m_per_group").get<std::uint64_t>() *
           p.at("n").get<std::uint64_t>() * p.at("k").get<std::uint64_t>();
  };
  return {grouped};
}

}  // namespace isobench::kernels
