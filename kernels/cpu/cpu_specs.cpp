// Specs of the CPU kernels (family "cpu"). "Device" bytes are host memory for this backend.
#include <cstdint>

#include "kernels/catalog.hpp"

namespace isobench::kernels {
namespace {

std::uint64_t u64(const Params& p, const char* axis) { return p.at(axis).get<std::uint64_t>(); }

std::uint64_t element_size(const Params& p) {
  return p.at("dtype").get<std::string>() == "fp64" ? 8 : 4;
}

AxisSpec dtype_axis() {
  return {.name = "dtype",
          .type = AxisType::string,
          .help = "element type",
          .default_value = "fp32",
          .choices = {"fp32", "fp64"}};
}

}  // namespace

AxisSpec ranks_axis() {
  return {.name = "ranks",
          .type = AxisType::integer,
          .help = "worker processes that run the instance together, one per GPU (docs/multi-rank.md)",
          .default_value = 1,
          .min = 1,
          .max = 8};
}

std::vector<KernelSpec> cpu_kernel_specs() {
  std::vector<KernelSpec> specs;

  specs.push_back({
      .name = "cpu_copy",
      .family = "cpu",
      .backend = Backend::cpu,
      .description = "streaming copy (memcpy) between two buffers",
      .axes = {{.name = "bytes",
                .type = AxisType::integer,
                .help = "bytes copied per launch",
                .default_value = 16u << 20,
                .min = 4096,
                .max = 2147483648.0}},
      .device_bytes = [](const Params& p) { return 2 * u64(p, "bytes"); },
      .bytes_per_launch = [](const Params& p) { return 2 * u64(p, "bytes"); },
      .flops_per_launch = [](const Params&) -> std::uint64_t { return 0; },
  });

  specs.push_back({
      .name = "cpu_matmul",
      .family = "cpu",
      .backend = Backend::cpu,
      .description = "dense n x n x n matrix product, cache-blocked, one thread",
      .axes = {{.name = "n",
                .type = AxisType::integer,
                .help = "matrix size (n x n times n x n)",
                .default_value = 128,
                .min = 8,
                .max = 2048},
               dtype_axis()},
      .device_bytes = [](const Params& p) { return 3 * u64(p, "n") * u64(p, "n") * element_size(p); },
      .bytes_per_launch =
          [](const Params& p) { return 3 * u64(p, "n") * u64(p, "n") * element_size(p); },
      .flops_per_launch = [](const Params& p) { return 2 * u64(p, "n") * u64(p, "n") * u64(p, "n"); },
  });

  specs.push_back({
      .name = "cpu_reduce",
      .family = "cpu",
      .backend = Backend::cpu,
      .description = "sum of n values",
      .axes = {{.name = "n",
                .type = AxisType::integer,
                .help = "number of elements",
                .default_value = 1u << 20,
                .min = 1,
                .max = 1073741824.0},
               dtype_axis()},
      .device_bytes = [](const Params& p) { return u64(p, "n") * element_size(p); },
      .bytes_per_launch = [](const Params& p) { return u64(p, "n") * element_size(p); },
      .flops_per_launch = [](const Params& p) { return u64(p, "n"); },
  });

  specs.push_back({
      .name = "cpu_spin",
      .family = "cpu",
      .backend = Backend::cpu,
      .description = "busy-waits a known time on the steady clock (for tests)",
      .axes = {{.name = "microseconds",
                .type = AxisType::number,
                .help = "time spent per launch",
                .default_value = 50,
                .min = 1,
                .max = 1e6}},
      .device_bytes = [](const Params&) -> std::uint64_t { return 0; },
      .bytes_per_launch = [](const Params&) -> std::uint64_t { return 0; },
      .flops_per_launch = [](const Params&) -> std::uint64_t { return 0; },
  });

  specs.push_back({
      .name = "cpu_allgather_matmul",
      .family = "cpu",
      .backend = Backend::cpu,
      .description = "all-gather of A's row blocks across `ranks` worker processes through shared memory, "
                     "then C = A * B (m x k times k x n), one thread per rank",
      .axes = {{.name = "m", .type = AxisType::integer, .help = "rows of A and C (a multiple of ranks)",
                .default_value = 64, .min = 1, .max = 4096},
               {.name = "k", .type = AxisType::integer, .help = "columns of A, rows of B", .default_value = 64,
                .min = 1, .max = 4096},
               {.name = "n", .type = AxisType::integer, .help = "columns of B and C", .default_value = 64,
                .min = 1, .max = 4096},
               ranks_axis(),
               dtype_axis()},
      .device_bytes =
          [](const Params& p) {
            return (u64(p, "m") * u64(p, "k") + u64(p, "k") * u64(p, "n") + u64(p, "m") * u64(p, "n")) *
                   element_size(p);
          },
      .bytes_per_launch = [](const Params& p) { return u64(p, "m") * u64(p, "k") * element_size(p); },
      .flops_per_launch = [](const Params& p) { return 2 * u64(p, "m") * u64(p, "n") * u64(p, "k"); },
  });

  return specs;
}

}  // namespace isobench::kernels
