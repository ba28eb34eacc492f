#include "kernels/catalog.hpp"

#include "gemm_dtypes.hpp"

namespace isobench::kernels {

std::vector<KernelSpec> gemm_kernel_specs() {
  KernelSpec gemm;
  gemm.name = "gemm";
  gemm.family = "gemm";
  gemm.backend = Backend::cuda;
  gemm.runtime_libraries = {"libcublasLt"};
  gemm.description =
      "cuBLASLt matmul D[m,n] = op(A)[m,k] op(B)[k,n] (column-major, fp32 accumulation). bf16 and "
      "fp8e4m3 write bf16, fp16 writes fp16, tf32 reads and writes fp32. fp8e4m3 needs trans=tn. "
      "algo -1 takes the heuristic's first choice; algo i >= 0 replays the i-th entry of the "
      "heuristic list (describe() records the list index and the algorithm's configuration).";
  gemm.axes = {
      {"m", AxisType::integer, "rows of D", std::nullopt, {}, 1, 1 << 20},
      {"n", AxisType::integer, "columns of D", std::nullopt, {}, 1, 1 << 20},
      {"k", AxisType::integer, "reduction length", std::nullopt, {}, 1, 1 << 20},
      {"dtype", AxisType::string, "input type", nlohmann::json("bf16"),
       {"bf16", "fp16", "fp8e4m3", "tf32"}},
      {"trans", AxisType::string, "op(A) op(B): t = transposed, n = not (cuBLAS convention)",
       nlohmann::json("tn"), {"nn", "nt", "tn", "tt"}},
      {"algo", AxisType::integer, "-1: heuristic choice; i >= 0: i-th heuristic result",
       nlohmann::json(-1), {}, -1, kGemmHeuristicCandidates - 1},
  };
  gemm.device_bytes = [](const Params& p) {
    return gemm_operand_bytes(p.at("dtype").get<std::string>(), p.at("m").get<std::uint64_t>(),
                              p.at("n").get<std::uint64_t>(), p.at("k").get<std::uint64_t>()) +
           kGemmWorkspaceBytes;
  };
  gemm.bytes_per_launch = [](const Params& p) {
    return gemm_operand_bytes(p.at("dtype").get<std::string>(), p.at("m").get<std::uint64_t>(),
                              p.at("n").get<std::uint64_t>(), p.at("k").get<std::uint64_t>());
  };
  gemm.flops_per_launch = [](const Params& p) {
    return 2 * p.at("m").get<std::uint64_t>() * p.at("n").get<std::uint64_t>() *
           p.at("k").get<std::uint64_t>();
  };
  return {gemm};
}

}  // namespace isobench::kernels
