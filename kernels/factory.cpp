#include <string>

#include "implementations.hpp"

namespace isobench::kernels {

std::unique_ptr<Benchmark> create_benchmark(const std::string& kernel_name) {
  std::vector<Implementation> table = cpu_implementations();
#ifdef ISOBENCH_WITH_CUDA
  auto cuda = cuda_implementations();
  table.insert(table.end(), cuda.begin(), cuda.end());
#endif
  for (const auto& impl : table)
    if (kernel_name == impl.kernel) return impl.make();
  return nullptr;
}

}  // namespace isobench::kernels
