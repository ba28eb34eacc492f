#include "cublas_library.hpp"

#include <dlfcn.h>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>

namespace isobench::kernels::cuda {

namespace {

std::atomic<bool> g_loaded{false};

// The major version the kernels were compiled against: its ABI is the one the table's types
// describe, so a library of another major version is not taken.
void* open_library(const std::string& stem) {
  const std::string versioned = stem + ".so." + std::to_string(CUBLAS_VER_MAJOR);
  for (const std::string& name : {versioned, "/usr/local/cuda/lib64/" + versioned}) {
    if (void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      g_loaded = true;
      return handle;
    }
  }
  const char* why = dlerror();
  throw std::runtime_error("cannot load " + versioned + " (needed by the GEMM kernels): " +
                           (why ? why : "not found") + "; set LD_LIBRARY_PATH to the CUDA toolkit's lib64");
}

template <class F>
void resolve(void* library, const char* library_name, const char* symbol, F& out) {
  void* address = dlsym(library, symbol);
  if (!address) throw std::runtime_error(std::string(library_name) + " has no symbol " + symbol);
  out = reinterpret_cast<F>(address);
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
    resolve(lib, n, "cublasGemmGroupedBatchedEx", t.GemmGroupedBatchedEx);
    return t;
  }();
  return table;
}

bool cublas_loaded() { return g_loaded.load(); }

}  // namespace isobench::kernels::cuda
