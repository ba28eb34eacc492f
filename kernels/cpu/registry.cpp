#include "kernels/cpu/cpu_kernels.hpp"
#include "kernels/implementations.hpp"

namespace isobench::kernels {

std::vector<Implementation> cpu_implementations() {
  return {
      {"cpu_copy", &make_cpu_copy},
      {"cpu_matmul", &make_cpu_matmul},
      {"cpu_reduce", &make_cpu_reduce},
      {"cpu_spin", &make_cpu_spin},
      {"cpu_allgather_matmul", &make_cpu_allgather_matmul},
  };
}

}  // namespace isobench::kernels
