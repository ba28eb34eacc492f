#pragma once
// The one error path for CUDA runtime and cuBLAS/cuBLASLt calls: ISOBENCH_CUDA_CHECK(call)
// throws std::runtime_error naming the file, line, call and CUDA's own message.

#include <cublas_api.h>
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

inline void check(cublasStatus_t status, const char* file, int line, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw_cuda_failure(file, line, call, cublasGetStatusString(status));
}

}  // namespace isobench::cuda_detail

#define ISOBENCH_CUDA_CHECK(call) ::isobench::cuda_detail::check((call), __FILE__, __LINE__, #call)
