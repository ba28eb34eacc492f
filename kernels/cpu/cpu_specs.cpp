#include "kernels/catalog.hpp"
namespace isobench::kernels {
std::vector<KernelSpec> cpu_kernel_specs() { return {}; }  // filled by the CPU-kernels work
}
