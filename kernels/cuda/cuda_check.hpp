#pragma once
// The one error path for CUDA runtime and cuBLAS/cuBLASLt calls: ISOBENCH_CUDA_CHECK(call)
// throws std::runtime_error naming the file, line, call and CUDA's own message. cuBLAS statuses
// are named here rather than by cublasGetStatusString, so an error message never needs the
// library loaded (kernels/cuda/cublas_library.hpp loads it on first use).

#include <cublas_v2.h>  // cublas_api.h of CUDA 12 may only be included through it
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace isobench::cuda_detail {

[[noreturn]] inline void throw_cuda_failure(const char* file, int line, const char* call,
                                            const std::string& message) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call +
                           " failed: " + message);
}

inline void check(cudaError_t status, const char* file, int line, const char* call) {
  if (status != cudaSuccess)
    throw_cuda_failure(file, line, call,
                       std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status));
}

inline const char* cublas_status_name(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "unknown cuBLAS status";
}

inline void check(cublasStatus_t status, const char* file, int line, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw_cuda_failure(file, line, call, std::string(cublas_status_name(status)) + " (" +
                                             std::to_string(static_cast<int>(status)) + ")");
}

}  // namespace isobench::cuda_detail

#define ISOBENCH_CUDA_CHECK(call) ::isobench::cuda_detail::check((call), __FILE__, __LINE__, #call)
