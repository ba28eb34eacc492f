// The CPU kernels: every one sets up, launches and agrees with its reference; their specs reject
// bad values and give stable ids.
#include <doctest/doctest.h>

#include <chrono>
#include <limits>

#include "kernels/benchmark.hpp"
#include "kernels/catalog.hpp"

using isobench::kernels::AxisSpec;
using isobench::kernels::AxisType;
using isobench::kernels::axis_domain;
using isobench::kernels::Backend;
using isobench::kernels::create_benchmark;
using isobench::kernels::find_kernel;
using isobench::kernels::KernelSpec;
using isobench::kernels::Params;
using isobench::kernels::SetupContext;
using nlohmann::json;

namespace {

Params complete(const std::string& kernel, const json& given) {
  const KernelSpec* spec = find_kernel(kernel);
  REQUIRE(spec != nullptr);
  Params params;
  const auto problem = isobench::kernels::complete_params(*spec, given, params);
  REQUIRE_MESSAGE(problem.empty(), problem);
  return params;
}

// Sets up, launches `launches` times (cycling rotated buffers) and returns check()'s verdict.
std::string run_and_check(const std::string& kernel, const json& given, int rotate = 1,
                          int launches = 1) {
  auto bench = create_benchmark(kernel);
  REQUIRE(bench != nullptr);
  bench->setup(complete(kernel, given), SetupContext{.seed = 7, .rotate_buffers = rotate});
  for (int i = 0; i < launches; ++i) bench->launch();
  return bench->check();
}

}  // namespace

TEST_CASE("every CPU kernel has a spec in family cpu and an implementation") {
  for (const char* name : {"cpu_copy", "cpu_matmul", "cpu_reduce", "cpu_spin", "cpu_allgather_matmul"}) {
    CAPTURE(name);
    const KernelSpec* spec = find_kernel(name);
    REQUIRE(spec != nullptr);
    CHECK(spec->family == "cpu");
    CHECK(spec->backend == Backend::cpu);
    CHECK(spec->device_bytes);
    CHECK(spec->bytes_per_launch);
    CHECK(spec->flops_per_launch);
    CHECK(create_benchmark(name) != nullptr);
  }
}

TEST_CASE("cpu_copy copies, with and without rotated buffers") {
  CHECK(run_and_check("cpu_copy", {{"bytes", 4096}}) == "");
  CHECK(run_and_check("cpu_copy", {{"bytes", 1 << 20}}, 3, 5) == "");
  CHECK(run_and_check("cpu_copy", {{"bytes", 4099}}, 2, 3) == "");  // not a multiple of 8
  const Params p = complete("cpu_copy", {{"bytes", 1 << 20}});
  CHECK(find_kernel("cpu_copy")->device_bytes(p) == 2u << 20);
  CHECK(find_kernel("cpu_copy")->bytes_per_launch(p) == 2u << 20);
}

TEST_CASE("cpu_matmul agrees with the naive product") {
  CHECK(run_and_check("cpu_matmul", {{"n", 8}, {"dtype", "fp32"}}) == "");
  CHECK(run_and_check("cpu_matmul", {{"n", 100}, {"dtype", "fp64"}}, 2, 3) == "");
  CHECK(run_and_check("cpu_matmul", {{"n", 130}, {"dtype", "fp32"}}) == "");  // partial blocks
  CHECK(run_and_check("cpu_matmul", {{"n", 300}, {"dtype", "fp32"}}) == "");  // sampled check
  const Params p = complete("cpu_matmul", {{"n", 128}, {"dtype", "fp64"}});
  CHECK(find_kernel("cpu_matmul")->flops_per_launch(p) == 2ull * 128 * 128 * 128);
  CHECK(find_kernel("cpu_matmul")->device_bytes(p) == 3ull * 128 * 128 * 8);
}

TEST_CASE("cpu_reduce agrees with a long double sum") {
  CHECK(run_and_check("cpu_reduce", {{"n", 1}}) == "");
  CHECK(run_and_check("cpu_reduce", {{"n", 1000003}, {"dtype", "fp32"}}, 2, 3) == "");
  CHECK(run_and_check("cpu_reduce", {{"n", 4097}, {"dtype", "fp64"}}) == "");
  const Params p = complete("cpu_reduce", {{"n", 1000}, {"dtype", "fp64"}});
  CHECK(find_kernel("cpu_reduce")->bytes_per_launch(p) == 8000);
}

TEST_CASE("cpu_spin spends at least the time asked for") {
  auto bench = create_benchmark("cpu_spin");
  bench->setup(complete("cpu_spin", {{"microseconds", 2000}}), SetupContext{});
  const auto start = std::chrono::steady_clock::now();
  bench->launch();
  const auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(elapsed >= std::chrono::microseconds(2000));
  CHECK(bench->check() == "");
}

TEST_CASE("check() before any launch says so") {
  for (const char* name : {"cpu_copy", "cpu_matmul", "cpu_reduce", "cpu_spin", "cpu_allgather_matmul"}) {
    auto bench = create_benchmark(name);
    bench->setup(complete(name, json::object()), SetupContext{.seed = 1});
    CHECK(bench->check() == "check() called before any launch");
  }
}

TEST_CASE("setup rejects rotate_buffers below 1") {
  auto bench = create_benchmark("cpu_copy");
  CHECK_THROWS_WITH(
      bench->setup(complete("cpu_copy", {{"bytes", 4096}}), SetupContext{.rotate_buffers = 0}),
      "rotate_buffers must be at least 1, got 0");
}

TEST_CASE("the specs reject bad values") {
  Params out;
  const KernelSpec& copy = *find_kernel("cpu_copy");
  CHECK(complete_params(copy, {{"bytes", 4095}}, out) == "axis 'bytes' must be at least 4096, got 4095");
  CHECK(complete_params(copy, {{"bytes", 4294967296}}, out) ==
        "axis 'bytes' must be at most 2147483648, got 4294967296");
  CHECK(complete_params(copy, {{"bytes", "big"}}, out) == "axis 'bytes' expected an integer, got \"big\"");
  const KernelSpec& matmul = *find_kernel("cpu_matmul");
  CHECK(complete_params(matmul, {{"dtype", "bf16"}}, out) ==
        "axis 'dtype' must be one of fp32, fp64, got \"bf16\"");
  CHECK(complete_params(matmul, {{"n", 4096}}, out) == "axis 'n' must be at most 2048, got 4096");
  CHECK(complete_params(matmul, {{"size", 64}}, out) == "unknown axis 'size' for kernel cpu_matmul");
  const KernelSpec& reduce = *find_kernel("cpu_reduce");
  CHECK(complete_params(reduce, {{"n", 0}}, out) == "axis 'n' must be at least 1, got 0");
  const KernelSpec& spin = *find_kernel("cpu_spin");
  CHECK(complete_params(spin, {{"microseconds", 0.5}}, out) ==
        "axis 'microseconds' must be at least 1, got 0.5");
  CHECK(complete_params(spin, {{"microseconds", 2e6}}, out) ==
        "axis 'microseconds' must be at most 1000000, got 2000000.0");
}

TEST_CASE("an axis's values as `orchestrate kernels` shows them: bounds, choices, or any") {
  CHECK(axis_domain(find_kernel("cpu_copy")->axes[0]) == "4096 .. 2147483648");
  CHECK(axis_domain(find_kernel("cpu_matmul")->axes[1]) == "fp32 | fp64");
  CHECK(axis_domain({.name = "x", .type = AxisType::integer, .min = 1}) == ">= 1");
  CHECK(axis_domain({.name = "x", .type = AxisType::number, .min = -AxisSpec{}.max, .max = 2.5}) == "<= 2.5");
  // A plugin's unbounded axis (min = max = 0 in the ABI) arrives with the widest doubles.
  CHECK(axis_domain({.name = "x", .type = AxisType::integer, .min = std::numeric_limits<double>::lowest(),
                     .max = std::numeric_limits<double>::max()}) == "any integer");
  CHECK(axis_domain({.name = "x", .type = AxisType::string}) == "any string");
  CHECK(axis_domain({.name = "x", .type = AxisType::boolean}) == "true | false");
}

TEST_CASE("instance ids are stable and fill defaults in spec order") {
  const KernelSpec& matmul = *find_kernel("cpu_matmul");
  CHECK(instance_id(matmul, complete("cpu_matmul", json::object())) == "cpu_matmul[n=128,dtype=fp32]");
  CHECK(instance_id(matmul, complete("cpu_matmul", {{"dtype", "fp64"}, {"n", 64}})) ==
        "cpu_matmul[n=64,dtype=fp64]");
  CHECK(instance_id(*find_kernel("cpu_copy"), complete("cpu_copy", json::object())) ==
        "cpu_copy[bytes=16777216]");
  CHECK(instance_id(*find_kernel("cpu_reduce"), complete("cpu_reduce", json::object())) ==
        "cpu_reduce[n=1048576,dtype=fp32]");
  CHECK(instance_id(*find_kernel("cpu_spin"), complete("cpu_spin", json::object())) ==
        "cpu_spin[microseconds=50]");
}
