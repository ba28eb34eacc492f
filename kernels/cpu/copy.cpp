#include "kernels/implementations.hpp"
namespace isobench::kernels {
std::vector<Implementation> cpu_implementations() { return {}; }  // filled by the CPU-kernels work
}
