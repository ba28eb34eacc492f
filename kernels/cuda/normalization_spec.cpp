#include "kernels/catalog.hpp"

namespace isobench::kernels {

namespace {

// bf16 activations in and out; bf16 weight (and bias for LayerNorm) of `hidden` elements.
KernelSpec normalization_spec(const std::string& name, bool has_bias, const std::string& what) {
  KernelSpec spec;
  spec.name = name;
  spec.family = "normalization";
  spec.backend = Backend::cuda;
  spec.description = what +
                     " forward, bf16 in/out, fp32 accumulation, one block per row with 16-byte "
                     "loads and the row kept in shared memory.";
  spec.axes = {
      {"rows", AxisType::integer, "rows (tokens)", std::nullopt, {}, 1, 1.0e9},
      {"hidden", AxisType::integer, "elements per row", std::nullopt, {}, 1, 65536},
  };
  const std::uint64_t params_per_column = has_bias ? 2 : 1;
  auto bytes = [params_per_column](const Params& p) {
    const auto rows = p.at("rows").get<std::uint64_t>();
    const auto hidden = p.at("hidden").get<std::uint64_t>();
    return 2 * (2 * rows * hidden + params_per_column * hidden);
  };
  spec.device_bytes = bytes;
  spec.bytes_per_launch = bytes;
  // RMSNorm: square-accumulate, scale, multiply by weight (~4/element); LayerNorm adds the
  // mean and bias (~7/element).
  const std::uint64_t flops_per_element = has_bias ? 7 : 4;
  spec.flops_per_launch = [flops_per_element](const Params& p) {
    return flops_per_element * p.at("rows").get<std::uint64_t>() *
           p.at("hidden").get<std::uint64_t>();
  };
  return spec;
}

}  // namespace

std::vector<KernelSpec> normalization_kernel_specs() {
  return {normalization_spec("rmsnorm", false, "RMSNorm (eps 1e-6)"),
          normalization_spec("layernorm", true, "LayerNorm (eps 1e-5)")};
}

}  // namespace isobench::kernels
