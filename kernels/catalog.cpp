#include "catalog.hpp"

namespace isobench::kernels {

const std::vector<KernelSpec>& builtin_catalog() {
  static const std::vector<KernelSpec> catalog = [] {
    std::vector<KernelSpec> all;
    for (auto family : {cpu_kernel_specs, cast_kernel_specs, normalization_kernel_specs,
                        gemm_kernel_specs, grouped_gemm_kernel_specs, allgather_gemm_kernel_specs}) {
      auto specs = family();
      all.insert(all.end(), std::make_move_iterator(specs.begin()),
                 std::make_move_iterator(specs.end()));
    }
    return all;
  }();
  return catalog;
}

const KernelSpec* find_kernel(const std::string& name) {
  for (const auto& spec : builtin_catalog())
    if (spec.name == name) return &spec;
  return nullptr;
}

}  // namespace isobench::kernels
