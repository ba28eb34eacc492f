// The CUDA kernels' specs, checked without a GPU: sensible parameters validate, bad dtypes and
// shapes are rejected, and device_bytes / bytes / flops match the buffers the kernels allocate.
#include <doctest/doctest.h>

#include "kernels/catalog.hpp"

using isobench::kernels::Backend;
using isobench::kernels::complete_params;
using isobench::kernels::find_kernel;
using isobench::kernels::instance_id;
using isobench::kernels::KernelSpec;
using isobench::kernels::Params;
using nlohmann::json;

namespace {

const KernelSpec& spec_of(const std::string& name) {
  const KernelSpec* spec = find_kernel(name);
  REQUIRE_MESSAGE(spec != nullptr, name);
  return *spec;
}

Params complete(const std::string& kernel, const json& given) {
  Params params;
  const auto problem = complete_params(spec_of(kernel), given, params);
  REQUIRE_MESSAGE(problem.empty(), problem);
  return params;
}

std::string problem_with(const std::string& kernel, const json& given) {
  Params params;
  return complete_params(spec_of(kernel), given, params);
}

constexpr std::uint64_t kWorkspace = 32ull << 20;

}  // namespace

TEST_CASE("every CUDA kernel is in the catalog with the cuda backend and all three measures") {
  for (const char* name : {"cast", "rmsnorm", "layernorm", "gemm", "grouped_gemm", "allgather_gemm"}) {
    const auto& spec = spec_of(name);
    CHECK(spec.backend == Backend::cuda);
    CHECK(spec.device_bytes);
    CHECK(spec.bytes_per_launch);
    CHECK(spec.flops_per_launch);
    CHECK_FALSE(spec.description.empty());
  }
}

TEST_CASE("cast: conversions, defaults and bytes") {
  const auto p = complete("cast", {{"n", 1000}});
  CHECK(p.at("conversion") == "fp32_bf16");
  CHECK(p.at("scale") == 1.0);
  const auto& spec = spec_of("cast");
  CHECK(spec.device_bytes(p) == 1000 * (4 + 2));
  CHECK(spec.device_bytes(complete("cast", {{"n", 1000}, {"conversion", "fp32_fp8e4m3"}, {"scale", 0.5}})) ==
        1000 * (4 + 1));
  CHECK(spec.device_bytes(complete("cast", {{"n", 128 << 20}, {"conversion", "bf16_fp32"}})) ==
        (128ull << 20) * 6);
  CHECK(spec.bytes_per_launch(p) == spec.device_bytes(p));
  CHECK(spec.flops_per_launch(p) == 0);
  CHECK(instance_id(spec, p) == "cast[n=1000,conversion=fp32_bf16,scale=1.0]");

  CHECK(problem_with("cast", {{"n", 10}, {"conversion", "fp64_bf16"}}).find("must be one of") != std::string::npos);
  CHECK_FALSE(problem_with("cast", {{"n", 0}}).empty());
  CHECK_FALSE(problem_with("cast", {{"n", 1.5}}).empty());
  CHECK_FALSE(problem_with("cast", json::object()).empty());  // n has no default
}

TEST_CASE("rmsnorm and layernorm: bytes include weights, and bias for layernorm") {
  const auto p = complete("rmsnorm", {{"rows", 16384}, {"hidden", 8192}});
  CHECK(spec_of("rmsnorm").device_bytes(p) == 2ull * (2ull * 16384 * 8192 + 8192));
  CHECK(spec_of("layernorm").device_bytes(p) == 2ull * (2ull * 16384 * 8192 + 2 * 8192));
  CHECK(spec_of("rmsnorm").flops_per_launch(p) > 0);
  CHECK_FALSE(problem_with("rmsnorm", {{"rows", 0}, {"hidden", 8}}).empty());
  CHECK_FALSE(problem_with("layernorm", {{"rows", 4}, {"hidden", 70000}}).empty());  // above the shared-memory row
  CHECK_FALSE(problem_with("rmsnorm", {{"rows", 4}, {"hidden", 64}, {"dtype", "bf16"}}).empty());  // no such axis
}

TEST_CASE("gemm: dtypes, layouts, algo index and bytes") {
  const auto& spec = spec_of("gemm");
  const auto p = complete("gemm", {{"m", 4096}, {"n", 4096}, {"k", 4096}});
  CHECK(p.at("dtype") == "bf16");
  CHECK(p.at("trans") == "tn");
  CHECK(p.at("algo") == -1);
  const std::uint64_t s = 4096;
  CHECK(spec.device_bytes(p) == 2 * (s * s + s * s) + 2 * s * s + kWorkspace);
  CHECK(spec.bytes_per_launch(p) == 6 * s * s);
  CHECK(spec.flops_per_launch(p) == 2 * s * s * s);

  // fp8 reads one byte per input and writes bf16; tf32 reads and writes fp32.
  const auto fp8 = complete("gemm", {{"m", 256}, {"n", 128}, {"k", 64}, {"dtype", "fp8e4m3"}});
  CHECK(spec.device_bytes(fp8) == 1 * (256 * 64 + 64 * 128) + 2 * 256 * 128 + kWorkspace);
  const auto tf32 = complete("gemm", {{"m", 256}, {"n", 128}, {"k", 64}, {"dtype", "tf32"}, {"trans", "nt"}});
  CHECK(spec.device_bytes(tf32) == 4 * (256 * 64 + 64 * 128) + 4 * 256 * 128 + kWorkspace);

  for (const char* t : {"nn", "nt", "tn", "tt"})
    CHECK(problem_with("gemm", {{"m", 8}, {"n", 8}, {"k", 8}, {"trans", t}}).empty());
  CHECK(problem_with("gemm", {{"m", 8}, {"n", 8}, {"k", 8}, {"algo", 3}}).empty());
  CHECK_FALSE(problem_with("gemm", {{"m", 8}, {"n", 8}, {"k", 8}, {"dtype", "fp64"}}).empty());
  CHECK_FALSE(problem_with("gemm", {{"m", 8}, {"n", 8}, {"k", 8}, {"dtype", "int8"}}).empty());
  CHECK_FALSE(problem_with("gemm", {{"m", 8}, {"n", 8}, {"k", 8}, {"trans", "tx"}}).empty());
  CHECK_FALSE(problem_with("gemm", {{"m", 8}, {"n", 8}, {"k", 8}, {"algo", -2}}).empty());
  CHECK_FALSE(problem_with("gemm", {{"m", 0}, {"n", 8}, {"k", 8}}).empty());
}

TEST_CASE("grouped_gemm: bf16 only, bytes scale with the number of experts") {
  const auto& spec = spec_of("grouped_gemm");
  const auto p = complete("grouped_gemm", {{"groups", 8}, {"m_per_group", 512}, {"n", 4096}, {"k", 1024}});
  CHECK(p.at("dtype") == "bf16");
  CHECK(p.at("impl") == "grouped_batched");
  CHECK(problem_with("grouped_gemm", {{"groups", 2}, {"m_per_group", 1}, {"n", 8}, {"k", 8}, {"impl", "lt_loop"}}).empty());
  CHECK_FALSE(problem_with("grouped_gemm", {{"groups", 2}, {"m_per_group", 1}, {"n", 8}, {"k", 8}, {"impl", "cutlass"}}).empty());
  const std::uint64_t per_expert = 2 * (512 * 1024 + 1024 * 4096) + 2 * 512 * 4096;
  CHECK(spec.bytes_per_launch(p) == 8 * per_expert);
  CHECK(spec.device_bytes(p) == 8 * per_expert + kWorkspace);
  CHECK(spec.flops_per_launch(p) == 2ull * 8 * 512 * 4096 * 1024);
  CHECK_FALSE(problem_with("grouped_gemm", {{"groups", 8}, {"m_per_group", 1}, {"n", 8}, {"k", 8}, {"dtype", "fp16"}}).empty());
  CHECK_FALSE(problem_with("grouped_gemm", {{"groups", 0}, {"m_per_group", 1}, {"n", 8}, {"k", 8}}).empty());
}

TEST_CASE("allgather_gemm: ranks, impls, chunks and bytes per rank") {
  const auto& spec = spec_of("allgather_gemm");
  const auto p = complete("allgather_gemm", {{"m", 65536}, {"k", 4096}, {"n", 1024}, {"ranks", 2}});
  CHECK(p.at("dtype") == "bf16");
  CHECK(p.at("impl") == "sequence");
  CHECK(p.at("chunks") == 1);
  CHECK(instance_id(spec, p) == "allgather_gemm[m=65536,k=4096,n=1024,ranks=2,dtype=bf16,impl=sequence,chunks=1]");
  // Per rank: its half of A, the gathered A, B, C, and the workspace.
  const std::uint64_t m = 65536, k = 4096, n = 1024;
  CHECK(spec.device_bytes(p) == 2 * (m / 2 * k + m * k + k * n + m * n) + kWorkspace);
  CHECK(spec.bytes_per_launch(p) == 2 * (m / 2 * k + m * k + k * n + m * n));
  CHECK(spec.flops_per_launch(p) == 2 * m * n * k);
  const auto fp32 = complete("allgather_gemm", {{"m", 64}, {"k", 8}, {"n", 8}, {"ranks", 1}, {"dtype", "fp32"}});
  CHECK(spec.device_bytes(fp32) == 4 * (64 * 8 + 64 * 8 + 8 * 8 + 64 * 8) + kWorkspace);
  CHECK(problem_with("allgather_gemm", {{"m", 64}, {"k", 8}, {"n", 8}, {"impl", "overlap"}, {"chunks", 8}}).empty());
  CHECK_FALSE(problem_with("allgather_gemm", {{"m", 64}, {"k", 8}, {"n", 8}, {"chunks", 16}}).empty());
  CHECK_FALSE(problem_with("allgather_gemm", {{"m", 64}, {"k", 8}, {"n", 8}, {"ranks", 9}}).empty());
  CHECK_FALSE(problem_with("allgather_gemm", {{"m", 64}, {"k", 8}, {"n", 8}, {"dtype", "fp16"}}).empty());
}
