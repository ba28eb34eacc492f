#pragma once
// Libraries the CUDA kernels open at run time (dlopen) rather than link: cuBLAS/cuBLASLt for the
// GEMMs (cublas_library.hpp), NCCL for the multi-rank kernels (nccl_library.hpp). A worker that
// runs neither never maps them, and a machine without them still runs every other kernel.

#include <stdexcept>
#include <string>

namespace isobench::kernels::cuda {

// Opens `stem`.so.`major` (the major version the kernels were compiled against: its ABI is the
// one the function tables describe) from the loader's path, then from `fallback_dirs`. Throws
// std::runtime_error naming the library, `needed_by` and the loader's message.
void* open_shared_library(const std::string& stem, int major, const std::string& needed_by,
                          std::initializer_list<const char*> fallback_dirs);

// One function of an opened library, typed as the table's member `out`.
void* find_symbol(void* library, const char* library_name, const char* symbol);
template <class F>
void resolve(void* library, const char* library_name, const char* symbol, F& out) {
  out = reinterpret_cast<F>(find_symbol(library, library_name, symbol));
}

}  // namespace isobench::kernels::cuda
