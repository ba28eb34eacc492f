#include "kernels/catalog.hpp"

namespace isobench::kernels {

namespace {

// Bytes per element of the source and destination of each conversion.
struct Conversion {
  const char* name;
  std::uint64_t from_bytes;
  std::uint64_t to_bytes;
};
constexpr Conversion kConversions[] = {
    {"fp32_bf16", 4, 2}, {"fp32_fp16", 4, 2}, {"fp32_fp8e4m3", 4, 1}, {"bf16_fp32", 2, 4}};

const Conversion& conversion_of(const Params& p) {
  const std::string name = p.at("conversion").get<std::string>();
  for (const auto& c : kConversions)
    if (name == c.name) return c;
  return kConversions[0];  // unreachable for validated parameters
}

}  // namespace

std::vector<KernelSpec> cast_kernel_specs() {
  KernelSpec cast;
  cast.name = "cast";
  cast.family = "cast";
  cast.backend = Backend::cuda;
  cast.description =
      "Element-wise dtype conversion, vectorised 16-byte loads/stores in a grid-stride loop; fp8 "
      "multiplies by `scale` before saturating to e4m3.";
  std::vector<std::string> names;
  for (const auto& c : kConversions) names.emplace_back(c.name);
  cast.axes = {
      {"n", AxisType::integer, "elements", std::nullopt, {}, 1, 4.0e9},
      {"conversion", AxisType::string, "source_destination dtypes", nlohmann::json("fp32_bf16"),
       names},
      {"scale", AxisType::number, "multiplier applied before an fp8 conversion (others ignore it)",
       nlohmann::json(1.0), {}, -1.0e30, 1.0e30},
  };
  // One input and one output of n elements; bytes moved = both, read once and written once.
  cast.device_bytes = [](const Params& p) {
    const auto& c = conversion_of(p);
    return p.at("n").get<std::uint64_t>() * (c.from_bytes + c.to_bytes);
  };
  cast.bytes_per_launch = cast.device_bytes;
  cast.flops_per_launch = [](const Params&) -> std::uint64_t { return 0; };
  return {cast};
}

}  // namespace isobench::kernels
