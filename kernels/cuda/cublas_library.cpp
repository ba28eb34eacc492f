#include "cublas_library.hpp"

#include <atomic>
#include <string>
#include <type_traits>

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include "kernels/gpu_libraries.hpp"

namespace isobench::kernels::cuda {

namespace {

std::atomic<bool> g_loaded{false};

// gpu_library() knows cuBLAS by the CUDA major version, which is cuBLAS's own.
static_assert(CUBLAS_VER_MAJOR == CUDART_VERSION / 1000, "cuBLAS of another major version than the CUDA runtime");
#if CUBLAS_VERSION >= 120500
static_assert(std::is_same_v<GemmGroupedBatchedExFunction, decltype(&::cublasGemmGroupedBatchedEx)>,
              "cublasGemmGroupedBatchedEx's type as cublas_library.hpp writes it is not cuBLAS's");
#endif

void* open_library(const std::string& stem) {
  void* handle = open_gpu_library(*gpu_library(stem, CUDART_VERSION / 1000));
  g_loaded = true;
  return handle;
}

}  // namespace

const CublasLtLibrary& cublas_lt() {
  static const CublasLtLibrary table = [] {
    void* lib = open_library("libcublasLt");
    const char* n = "libcublasLt";
    CublasLtLibrary t{};
    resolve(lib, n, "cublasLtGetVersion", t.GetVersion);
    resolve(lib, n, "cublasLtGetStatusString", t.GetStatusString);
    resolve(lib, n, "cublasLtCreate", t.Create);
    resolve(lib, n, "cublasLtDestroy", t.Destroy);
    resolve(lib, n, "cublasLtMatmulDescCreate", t.MatmulDescCreate);
    resolve(lib, n, "cublasLtMatmulDescDestroy", t.MatmulDescDestroy);
    resolve(lib, n, "cublasLtMatmulDescSetAttribute", t.MatmulDescSetAttribute);
    resolve(lib, n, "cublasLtMatrixLayoutCreate", t.MatrixLayoutCreate);
    resolve(lib, n, "cublasLtMatrixLayoutDestroy", t.MatrixLayoutDestroy);
    resolve(lib, n, "cublasLtMatmulPreferenceCreate", t.MatmulPreferenceCreate);
    resolve(lib, n, "cublasLtMatmulPreferenceDestroy", t.MatmulPreferenceDestroy);
    resolve(lib, n, "cublasLtMatmulPreferenceSetAttribute", t.MatmulPreferenceSetAttribute);
    resolve(lib, n, "cublasLtMatmulAlgoGetHeuristic", t.MatmulAlgoGetHeuristic);
    resolve(lib, n, "cublasLtMatmulAlgoCheck", t.MatmulAlgoCheck);
    resolve(lib, n, "cublasLtMatmulAlgoConfigGetAttribute", t.MatmulAlgoConfigGetAttribute);
    resolve(lib, n, "cublasLtMatmul", t.Matmul);
    return t;
  }();
  return table;
}

const CublasLibrary& cublas() {
  static const CublasLibrary table = [] {
    void* lib = open_library("libcublas");
    const char* n = "libcublas";
    CublasLibrary t{};
    resolve(lib, n, "cublasGetStatusString", t.GetStatusString);
    resolve(lib, n, "cublasCreate_v2", t.Create);
    resolve(lib, n, "cublasDestroy_v2", t.Destroy);
    resolve(lib, n, "cublasSetStream_v2", t.SetStream);
    resolve(lib, n, "cublasSetWorkspace_v2", t.SetWorkspace);
    t.GemmGroupedBatchedEx = reinterpret_cast<GemmGroupedBatchedExFunction>(dlsym(lib, "cublasGemmGroupedBatchedEx"));
    return t;
  }();
  return table;
}

bool cublas_loaded() { return g_loaded.load(); }

}  // namespace isobench::kernels::cuda
