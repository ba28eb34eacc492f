#include "cuda_kernels.hpp"
#include "kernels/implementations.hpp"

namespace isobench::kernels {

std::vector<Implementation> cuda_implementations() {
  return {{"cast", cuda::make_cast},
          {"rmsnorm", cuda::make_rmsnorm},
          {"layernorm", cuda::make_layernorm},
          {"gemm", cuda::make_gemm},
          {"grouped_gemm", cuda::make_grouped_gemm},
          {"allgather_gemm", cuda::make_allgather_gemm}};
}

}  // namespace isobench::kernels
