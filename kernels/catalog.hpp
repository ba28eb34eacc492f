#pragma once
// The built-in kernels' specs, CPU and CUDA alike, always compiled (no CUDA needed to read them).

#include <string>
#include <vector>

#include "kernel_spec.hpp"

namespace isobench::kernels {

const std::vector<KernelSpec>& builtin_catalog();
const KernelSpec* find_kernel(const std::string& name);

// The `ranks` axis of multi-rank kernels: the instance's world size (ipc::world_size reads it).
AxisSpec ranks_axis();

// One function per family file; catalog.cpp gathers them.
std::vector<KernelSpec> cpu_kernel_specs();      // kernels/cpu/cpu_specs.cpp
std::vector<KernelSpec> cast_kernel_specs();     // kernels/cuda/cast_spec.cpp
std::vector<KernelSpec> normalization_kernel_specs();  // kernels/cuda/normalization_spec.cpp
std::vector<KernelSpec> gemm_kernel_specs();     // kernels/cuda/gemm_spec.cpp
std::vector<KernelSpec> grouped_gemm_kernel_specs();   // kernels/cuda/grouped_gemm_spec.cpp
std::vector<KernelSpec> allgather_gemm_kernel_specs();  // kernels/cuda/allgather_gemm_spec.cpp

}  // namespace isobench::kernels
