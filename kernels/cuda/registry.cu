#include "kernels/implementations.hpp"
namespace isobench::kernels {
std::vector<Implementation> cuda_implementations() { return {}; }  // filled by the CUDA-kernels work
}
