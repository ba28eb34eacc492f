#include "lt_matmul.hpp"

#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "cublas_library.hpp"
#include "cuda_check.hpp"
#include "gemm_dtypes.hpp"

namespace isobench::kernels::cuda {

namespace {

template <class T>
T algo_config(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute) {
  T value{};
  std::size_t written = 0;
  ISOBENCH_CUDA_CHECK(cublas_lt().MatmulAlgoConfigGetAttribute(&algo, attribute, &value, sizeof(value), &written));
  return value;
}

// cublasLtMatmulAlgo_t is 8 opaque 64-bit words; written as 16 hex digits each.
std::string algo_to_hex(const cublasLtMatmulAlgo_t& algo) {
  std::string hex;
  char word[17];
  for (std::uint64_t d : algo.data) {
    std::snprintf(word, sizeof word, "%016llx", static_cast<unsigned long long>(d));
    hex += word;
  }
  return hex;
}

cublasLtMatmulAlgo_t algo_from_hex(const std::string& hex) {
  cublasLtMatmulAlgo_t algo{};
  constexpr std::size_t words = sizeof(algo.data) / sizeof(algo.data[0]);
  if (hex.size() != words * 16 || hex.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw std::runtime_error("replay: algo_blob must be " + std::to_string(words * 16) + " lowercase hex digits");
  for (std::size_t i = 0; i < words; ++i) algo.data[i] = std::stoull(hex.substr(i * 16, 16), nullptr, 16);
  return algo;
}

}  // namespace

LtMatmul::LtMatmul(const LtProblem& p, int algo_index, const nlohmann::json& replay) : problem_(p) {
  const auto& lt = cublas_lt();
  try {
    ISOBENCH_CUDA_CHECK(lt.Create(&handle_));
    ISOBENCH_CUDA_CHECK(lt.MatmulDescCreate(&matmul_, p.compute, CUDA_R_32F));
    const cublasOperation_t op_a = p.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = p.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    ISOBENCH_CUDA_CHECK(lt.MatmulDescSetAttribute(matmul_, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof(op_a)));
    ISOBENCH_CUDA_CHECK(lt.MatmulDescSetAttribute(matmul_, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof(op_b)));
    // Column-major storage: op(A) is m x k, so A is stored k x m when transposed.
    ISOBENCH_CUDA_CHECK(lt.MatrixLayoutCreate(&a_, p.input_type, p.trans_a ? p.k : p.m, p.trans_a ? p.m : p.k,
                                              p.trans_a ? p.k : p.m));
    ISOBENCH_CUDA_CHECK(lt.MatrixLayoutCreate(&b_, p.input_type, p.trans_b ? p.n : p.k, p.trans_b ? p.k : p.n,
                                              p.trans_b ? p.n : p.k));
    ISOBENCH_CUDA_CHECK(lt.MatrixLayoutCreate(&d_, p.output_type, p.m, p.n, p.m));
    ISOBENCH_CUDA_CHECK(lt.MatmulPreferenceCreate(&preference_));
    const std::uint64_t workspace_bytes = kGemmWorkspaceBytes;
    ISOBENCH_CUDA_CHECK(lt.MatmulPreferenceSetAttribute(preference_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                        &workspace_bytes, sizeof(workspace_bytes)));

    std::vector<cublasLtMatmulHeuristicResult_t> results(kGemmHeuristicCandidates);
    ISOBENCH_CUDA_CHECK(lt.MatmulAlgoGetHeuristic(handle_, matmul_, a_, b_, d_, d_, preference_,
                                                  kGemmHeuristicCandidates, results.data(), &heuristic_count_));
    if (heuristic_count_ == 0) throw std::runtime_error("cuBLASLt has no algorithm for " + shape());

    const bool replay_wanted = algo_index < 0 && replay.is_object() && replay.contains("algo_blob");
    if (!replay_wanted) {
      heuristic_index_ = algo_index < 0 ? 0 : algo_index;
      if (heuristic_index_ >= heuristic_count_)
        throw std::runtime_error("algo " + std::to_string(algo_index) + " is out of range: the heuristic returned " +
                                 std::to_string(heuristic_count_) + " algorithms for " + shape());
      chosen_ = results[heuristic_index_];
      return;
    }

    // Replay: exactly the recorded algorithm, checked by cuBLASLt against this problem.
    if (!replay["algo_blob"].is_string()) throw std::runtime_error("replay: algo_blob is not a string");
    const cublasLtMatmulAlgo_t algo = algo_from_hex(replay["algo_blob"].get<std::string>());
    cublasLtMatmulHeuristicResult_t checked{};
    const cublasStatus_t status = lt.MatmulAlgoCheck(handle_, matmul_, a_, b_, d_, d_, &algo, &checked);
    if (status != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error("replay: cuBLASLt rejects the recorded algorithm for " + shape() + " (" +
                               cuda_detail::cublas_status_name(status) + ")");
    if (checked.workspaceSize > kGemmWorkspaceBytes)
      throw std::runtime_error("replay: the recorded algorithm needs " + std::to_string(checked.workspaceSize) +
                               " bytes of workspace, more than the " + std::to_string(kGemmWorkspaceBytes) + " given");
    chosen_ = checked;
    chosen_.algo = algo;
    replayed_ = true;
    heuristic_index_ = -1;
    for (int i = 0; i < heuristic_count_; ++i)
      if (std::memcmp(&results[i].algo, &algo, sizeof algo) == 0) heuristic_index_ = i;
    const auto version = replay.value("cublasLt_version", std::size_t{0});
    if (version != 0 && version != lt.GetVersion())
      replay_note_ = "recorded with cuBLASLt " + std::to_string(version) + ", replayed on " +
                     std::to_string(lt.GetVersion());
  } catch (...) {
    release();  // a constructor that throws gets no destructor call
    throw;
  }
}

LtMatmul::~LtMatmul() { release(); }

void LtMatmul::release() {
  if (!handle_ && !matmul_ && !a_ && !b_ && !d_ && !preference_) return;
  const auto& lt = cublas_lt();
  if (preference_) lt.MatmulPreferenceDestroy(std::exchange(preference_, nullptr));
  if (d_) lt.MatrixLayoutDestroy(std::exchange(d_, nullptr));
  if (b_) lt.MatrixLayoutDestroy(std::exchange(b_, nullptr));
  if (a_) lt.MatrixLayoutDestroy(std::exchange(a_, nullptr));
  if (matmul_) lt.MatmulDescDestroy(std::exchange(matmul_, nullptr));
  if (handle_) lt.Destroy(std::exchange(handle_, nullptr));
}

void LtMatmul::run(const void* a, const void* b, void* d, void* workspace, cudaStream_t stream) const {
  const float alpha = 1.0f, beta = 0.0f;
  ISOBENCH_CUDA_CHECK(cublas_lt().Matmul(handle_, matmul_, &alpha, a, a_, b, b_, &beta, d, d_, d, d_, &chosen_.algo,
                                         workspace, kGemmWorkspaceBytes, stream));
}

nlohmann::json LtMatmul::describe() const {
  const auto& algo = chosen_.algo;
  nlohmann::json j = {{"library", "cublasLt"},
                      {"cublasLt_version", cublas_lt().GetVersion()},
                      {"heuristic_index", heuristic_index_},
                      {"heuristic_count", heuristic_count_},
                      {"replayed", replayed_},
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
                      {"waves_count", chosen_.wavesCount},
                      {"algo_blob", algo_to_hex(algo)}};
  if (!replay_note_.empty()) j["replay_note"] = replay_note_;
  return j;
}

std::string LtMatmul::shape() const {
  return "m=" + std::to_string(problem_.m) + " n=" + std::to_string(problem_.n) + " k=" +
         std::to_string(problem_.k) + " trans=" + (problem_.trans_a ? "t" : "n") + (problem_.trans_b ? "t" : "n");
}

}  // namespace isobench::kernels::cuda
