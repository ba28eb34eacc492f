#pragma once
// cuBLAS and cuBLASLt, loaded when the first GEMM is set up rather than when the worker starts.
// The two libraries are about 600 MB of shared objects: a worker that runs casts or norms should
// not map and relocate them before its first sample (issue: pre-started workers), and a machine
// without them can still run every other kernel. The kernels call cuBLAS through the function
// table below; its members have the libraries' own names and signatures.

#include <cublasLt.h>
#include <cublas_v2.h>

namespace isobench::kernels::cuda {

struct CublasLtLibrary {
  decltype(&::cublasLtGetVersion) GetVersion;
  decltype(&::cublasLtGetStatusString) GetStatusString;
  decltype(&::cublasLtCreate) Create;
  decltype(&::cublasLtDestroy) Destroy;
  decltype(&::cublasLtMatmulDescCreate) MatmulDescCreate;
  decltype(&::cublasLtMatmulDescDestroy) MatmulDescDestroy;
  decltype(&::cublasLtMatmulDescSetAttribute) MatmulDescSetAttribute;
  decltype(&::cublasLtMatrixLayoutCreate) MatrixLayoutCreate;
  decltype(&::cublasLtMatrixLayoutDestroy) MatrixLayoutDestroy;
  decltype(&::cublasLtMatmulPreferenceCreate) MatmulPreferenceCreate;
  decltype(&::cublasLtMatmulPreferenceDestroy) MatmulPreferenceDestroy;
  decltype(&::cublasLtMatmulPreferenceSetAttribute) MatmulPreferenceSetAttribute;
  decltype(&::cublasLtMatmulAlgoGetHeuristic) MatmulAlgoGetHeuristic;
  decltype(&::cublasLtMatmulAlgoCheck) MatmulAlgoCheck;
  decltype(&::cublasLtMatmulAlgoConfigGetAttribute) MatmulAlgoConfigGetAttribute;
  decltype(&::cublasLtMatmul) Matmul;
};

// cublasGemmGroupedBatchedEx came with cuBLAS 12.5. Its type is written out here, so that a build
// against older headers (the cu12 wheel's CUDA 12.4) still calls it in a cuBLAS that has it
// (torch's 12.6 and 12.8 do); where the headers declare it, the compiler checks the two agree
// (cublas_library.cpp).
using GemmGroupedBatchedExFunction = cublasStatus_t (*)(
    cublasHandle_t, const cublasOperation_t*, const cublasOperation_t*, const int*, const int*, const int*, const void*,
    const void* const*, cudaDataType_t, const int*, const void* const*, cudaDataType_t, const int*, const void*,
    void* const*, cudaDataType_t, const int*, int, const int*, cublasComputeType_t);

struct CublasLibrary {
  decltype(&::cublasGetStatusString) GetStatusString;
  decltype(&::cublasCreate_v2) Create;
  decltype(&::cublasDestroy_v2) Destroy;
  decltype(&::cublasSetStream_v2) SetStream;
  decltype(&::cublasSetWorkspace_v2) SetWorkspace;
  GemmGroupedBatchedExFunction GemmGroupedBatchedEx;  // null where the library loaded is older than 12.5
};

// Load on first call (thread-safe), then return the same table. Throw std::runtime_error naming
// the library and what the loader said when it or one of its functions is missing.
const CublasLtLibrary& cublas_lt();
const CublasLibrary& cublas();

// Whether this process has mapped either library: loaded only by a GEMM's setup.
bool cublas_loaded();

}  // namespace isobench::kernels::cuda
