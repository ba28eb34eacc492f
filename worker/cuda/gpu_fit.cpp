#include "worker/cuda/gpu_fit.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>

#include "kernels/runtime_library.hpp"

namespace isobench::worker {

std::string driver_problem() {
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) return {};  // no driver: CudaDevice says so
  return kernels::driver_mismatch_line(driver, CUDART_VERSION);
}

std::string gpu_fit_problem(const std::vector<std::string>& libraries) {
  if (std::string problem = driver_problem(); !problem.empty()) return problem;
  for (const auto& stem : libraries) {
    const auto library = kernels::runtime_library(stem, CUDART_VERSION / 1000);
    if (!library) return stem + ": no such runtime library of the kernels (libcublasLt, libcublas, libnccl)";
    try {
      kernels::open_runtime_library(*library);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
  }
  return {};
}

}  // namespace isobench::worker
