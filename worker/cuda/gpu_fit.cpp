#include "worker/cuda/gpu_fit.hpp"

#include <cuda_runtime_api.h>

namespace isobench::worker {

std::string driver_problem() {
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) return {};  // no driver: CudaDevice says so
  return kernels::driver_mismatch_line(driver, CUDART_VERSION);
}

std::vector<kernels::GpuFitItem> gpu_fit_report(const std::vector<std::string>& libraries) {
  std::vector<kernels::GpuFitItem> items;
  std::string driver = driver_problem();
  items.push_back({"driver", driver.empty() ? "ok" : "mismatch", driver});
  for (const auto& stem : libraries) {
    const auto library = kernels::gpu_library(stem, CUDART_VERSION / 1000);
    if (!library) {
      items.push_back({stem, "unknown", stem + ": no such runtime library of the kernels (libcublasLt, libcublas, libnccl)"});
      continue;
    }
    auto check = kernels::check_gpu_library(*library);
    const char* status = check.status == kernels::LibraryStatus::found     ? "ok"
                         : check.status == kernels::LibraryStatus::missing ? "missing"
                                                                           : "mismatch";
    items.push_back({stem, status, std::move(check.line)});
  }
  return items;
}

}  // namespace isobench::worker
