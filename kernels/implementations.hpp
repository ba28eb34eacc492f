#pragma once
// The implementation table behind create_benchmark(): each backend folder lists its kernels.

#include <memory>
#include <vector>

#include "benchmark.hpp"

namespace isobench::kernels {

using BenchmarkMaker = std::unique_ptr<Benchmark> (*)();

struct Implementation {
  const char* kernel;  // matches KernelSpec::name
  BenchmarkMaker make;
};

std::vector<Implementation> cpu_implementations();   // kernels/cpu/
std::vector<Implementation> cuda_implementations();  // kernels/cuda/, only in CUDA builds

}  // namespace isobench::kernels
