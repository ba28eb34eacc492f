#include "lt_matmul.hpp"

#include <utility>
#include <vector>

#include "cuda_check.hpp"
#include "gemm_dtypes.hpp"

namespace isobench::kernels::cuda {

namespace {

template <class T>
T algo_config(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute) {
  T value{};
  std::size_t written = 0;
  ISOBENCH_CUDA_CHECK(cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute, &value, sizeof(value), &written));
  return value;
}

}  // namespace

LtMatmul::LtMatmul(const LtProblem& p, int algo_index) : problem_(p) {
  try {
    ISOBENCH_CUDA_CHECK(cublasLtCreate(&handle_));
    ISOBENCH_CUDA_CHECK(cublasLtMatmulDescCreate(&matmul_, p.compute, CUDA_R_32F));
    const cublasOperation_t op_a = p.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = p.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    ISOBENCH_CUDA_CHECK(cublasLtMatmulDescSetAttribute(matmul_, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof(op_a)));
    ISOBENCH_CUDA_CHECK(cublasLtMatmulDescSetAttribute(matmul_, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof(op_b)));
    // Column-major storage: op(A) is m x k, so A is stored k x m when transposed.
    ISOBENCH_CUDA_CHECK(cublasLtMatrixLayoutCreate(&a_, p.input_type, p.trans_a ? p.k : p.m,
                                                   p.trans_a ? p.m : p.k, p.trans_a ? p.k : p.m));
    ISOBENCH_CUDA_CHECK(cublasLtMatrixLayoutCreate(&b_, p.input_type, p.trans_b ? p.n : p.k,
                                                   p.trans_b ? p.k : p.n, p.trans_b ? p.n : p.k));
    ISOBENCH_CUDA_CHECK(cublasLtMatrixLayoutCreate(&d_, p.output_type, p.m, p.n, p.m));
    ISOBENCH_CUDA_CHECK(cublasLtMatmulPreferenceCreate(&preference_));
    const std::uint64_t workspace_bytes = kGemmWorkspaceBytes;
    ISOBENCH_CUDA_CHECK(cublasLtMatmulPreferenceSetAttribute(
        preference_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes, sizeof(workspace_bytes)));

    std::vector<cublasLtMatmulHeuristicResult_t> results(kGemmHeuristicCandidates);
    ISOBENCH_CUDA_CHECK(cublasLtMatmulAlgoGetHeuristic(handle_, matmul_, a_, b_, d_, d_, preference_,
                                                       kGemmHeuristicCandidates, results.data(),
                                                       &heuristic_count_));
    if (heuristic_count_ == 0) throw std::runtime_error("cuBLASLt has no algorithm for " + shape());
    heuristic_index_ = algo_index < 0 ? 0 : algo_index;
    if (heuristic_index_ >= heuristic_count_)
      throw std::runtime_error("algo " + std::to_string(algo_index) + " is out of range: the heuristic returned " +
                               std::to_string(heuristic_count_) + " algorithms for " + shape());
    chosen_ = results[heuristic_index_];
  } catch (...) {
    release();  // a constructor that throws gets no destructor call
    throw;
  }
}

LtMatmul::~LtMatmul() { release(); }

void LtMatmul::release() {
  if (preference_) cublasLtMatmulPreferenceDestroy(std::exchange(preference_, nullptr));
  if (d_) cublasLtMatrixLayoutDestroy(std::exchange(d_, nullptr));
  if (b_) cublasLtMatrixLayoutDestroy(std::exchange(b_, nullptr));
  if (a_) cublasLtMatrixLayoutDestroy(std::exchange(a_, nullptr));
  if (matmul_) cublasLtMatmulDescDestroy(std::exchange(matmul_, nullptr));
  if (handle_) cublasLtDestroy(std::exchange(handle_, nullptr));
}

void LtMatmul::run(const void* a, const void* b, void* d, void* workspace, cudaStream_t stream) const {
  const float alpha = 1.0f, beta = 0.0f;
  ISOBENCH_CUDA_CHECK(cublasLtMatmul(handle_, matmul_, &alpha, a, a_, b, b_, &beta, d, d_, d, d_,
                                     &chosen_.algo, workspace, kGemmWorkspaceBytes, stream));
}

nlohmann::json LtMatmul::describe() const {
  const auto& algo = chosen_.algo;
  return {{"library", "cublasLt"},
          {"cublasLt_version", cublasLtGetVersion()},
          {"heuristic_index", heuristic_index_},
          {"heuristic_count", heuristic_count_},
          {"algo_id", algo_config<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_ID)},
          {"tile_id", algo_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_TILE_ID)},
          {"stages_id", algo_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID)},
          {"splitk_num", algo_config<std::int32_t>(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM)},
          {"reduction_scheme", algo_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME)},
          {"cta_swizzling", algo_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING)},
          {"custom_option", algo_config<std::uint32_t>(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION)},
          {"inner_shape_id", algo_config<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID)},
          {"cluster_shape_id", algo_config<std::uint16_t>(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID)},
          {"workspace_bytes", chosen_.workspaceSize},
          {"waves_count", chosen_.wavesCount}};
}

std::string LtMatmul::shape() const {
  return "m=" + std::to_string(problem_.m) + " n=" + std::to_string(problem_.n) + " k=" +
         std::to_string(problem_.k) + " trans=" + (problem_.trans_a ? "t" : "n") + (problem_.trans_b ? "t" : "n");
}

}  // namespace isobench::kernels::cuda
