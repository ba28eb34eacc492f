#pragma once
// One cuBLASLt matmul problem with its algorithm fixed at construction: the descriptors, the
// heuristic's choice (entry `algo_index` of its list, so a run can replay an earlier run's
// choice) and a record of that algorithm's configuration. Used by gemm and grouped_gemm.

#include <cublasLt.h>

#include <string>

#include <nlohmann/json.hpp>

namespace isobench::kernels::cuda {

// Column-major D[m, n] = op(A)[m, k] op(B)[k, n]; alpha 1, beta 0, C aliases D.
struct LtProblem {
  cudaDataType_t input_type;
  cudaDataType_t output_type;
  cublasComputeType_t compute;
  bool trans_a, trans_b;
  int m, n, k;
};

class LtMatmul {
 public:
  // algo_index < 0 takes the heuristic's first entry. Throws std::runtime_error when cuBLASLt
  // has no algorithm or the index is past the list's end.
  LtMatmul(const LtProblem& problem, int algo_index);
  ~LtMatmul();
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;

  // Enqueues the matmul; `workspace` holds kGemmWorkspaceBytes.
  void run(const void* a, const void* b, void* d, void* workspace, cudaStream_t stream) const;
  // heuristic index and count, the algorithm's configuration attributes, workspace, waves.
  nlohmann::json describe() const;
  // "m=.. n=.. k=.. trans=tn" for messages.
  std::string shape() const;

 private:
  void release();

  LtProblem problem_;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t matmul_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, d_ = nullptr;
  cublasLtMatmulPreference_t preference_ = nullptr;
  cublasLtMatmulHeuristicResult_t chosen_{};
  int heuristic_index_ = 0, heuristic_count_ = 0;
};

}  // namespace isobench::kernels::cuda
