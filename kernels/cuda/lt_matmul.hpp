#pragma once
// One cuBLASLt matmul problem with its algorithm fixed at construction: the descriptors, the
// algorithm (the heuristic's entry `algo_index`, or an earlier describe() replayed exactly) and
// a record of that algorithm's configuration. Used by gemm and grouped_gemm. cuBLASLt is called
// through kernels/cuda/cublas_library.hpp, so it is loaded only when a GEMM is set up.

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
  // algo_index >= 0 takes that entry of the heuristic's list. Otherwise, a `replay` object (an
  // earlier describe() of this problem, with its "algo_blob") runs exactly that algorithm after
  // cuBLASLt checked it supports the problem; with neither, the heuristic's first entry. Throws
  // std::runtime_error when cuBLASLt has no algorithm, the index is past the list's end, or the
  // replayed algorithm is malformed or unsupported here.
  LtMatmul(const LtProblem& problem, int algo_index, const nlohmann::json& replay = nlohmann::json());
  ~LtMatmul();
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;

  // Enqueues the matmul; `workspace` holds kGemmWorkspaceBytes.
  void run(const void* a, const void* b, void* d, void* workspace, cudaStream_t stream) const;
  // heuristic index and count, the algorithm's configuration attributes and its opaque bytes
  // ("algo_blob", what a replay needs), workspace, waves, and whether it was replayed.
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
  int heuristic_index_ = 0, heuristic_count_ = 0;  // index -1: replayed, not in today's list
  bool replayed_ = false;
  std::string replay_note_;
};

}  // namespace isobench::kernels::cuda
