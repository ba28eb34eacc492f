#pragma once
// Makers of the built-in CUDA benchmarks, one per family file; registry.cpp lists them.

#include <memory>

#include "kernels/benchmark.hpp"

namespace isobench::kernels::cuda {

std::unique_ptr<Benchmark> make_cast();          // cast.cu
std::unique_ptr<Benchmark> make_rmsnorm();       // normalization.cu
std::unique_ptr<Benchmark> make_layernorm();     // normalization.cu
std::unique_ptr<Benchmark> make_gemm();          // gemm.cu
std::unique_ptr<Benchmark> make_grouped_gemm();  // grouped_gemm.cu
std::unique_ptr<Benchmark> make_allgather_gemm();  // allgather_gemm.cu

}  // namespace isobench::kernels::cuda
