// Sweep files: expansion (counts, order, defaults, exclude, cases, ids), settings and overrides,
// and one exact one-line message, with file:line:column and field path, per kind of mistake.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "kernels/catalog.hpp"
#include "orchestrator/sweep.hpp"

using namespace isobench::orchestrator;
using isobench::kernels::AxisSpec;
using isobench::kernels::AxisType;
using isobench::kernels::Backend;
using isobench::kernels::KernelSpec;
using nlohmann::json;

namespace {

Sweep parse(const std::string& text, const SettingsOverrides& overrides = {}) {
  return parse_sweep(text, "configs/t.yaml", overrides);
}

// The message parse() throws, or "" when it does not.
std::string error_of(const std::string& text, const SettingsOverrides& overrides = {}) {
  try {
    parse(text, overrides);
  } catch (const SweepError& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> ids(const Sweep& sweep) {
  std::vector<std::string> out;
  for (const auto& instance : sweep.instances) out.push_back(instance.id);
  return out;
}

// A gemm-like kernel with axes that have no default, so tests of cases do not depend on the
// CUDA specs.
std::vector<KernelSpec> toy_catalog() {
  KernelSpec toy;
  toy.name = "toy_gemm";
  toy.family = "gemm";
  toy.backend = Backend::cuda;
  toy.axes = {
      {"m", AxisType::integer, "", std::nullopt, {}, 1, 1 << 20},
      {"n", AxisType::integer, "", std::nullopt, {}, 1, 1 << 20},
      {"k", AxisType::integer, "", std::nullopt, {}, 1, 1 << 20},
      {"dtype", AxisType::string, "", json("bf16"), {"bf16", "fp16"}},
  };
  toy.device_bytes = [](const json& p) {
    return 2 * (p.at("m").get<std::uint64_t>() * p.at("k").get<std::uint64_t>() +
                p.at("k").get<std::uint64_t>() * p.at("n").get<std::uint64_t>() +
                p.at("m").get<std::uint64_t>() * p.at("n").get<std::uint64_t>());
  };
  KernelSpec scale;
  scale.name = "toy_scale";
  scale.axes = {{"scale", AxisType::number, "", json(1.0), {}, -10, 10}};
  return {toy, scale};
}

Sweep parse_toy(const std::string& text, const SettingsOverrides& overrides = {}) {
  static const auto catalog = toy_catalog();
  return parse_sweep(text, "toy.yaml", overrides, catalog);
}

std::string toy_error_of(const std::string& text) {
  try {
    parse_toy(text);
  } catch (const SweepError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the product of the axes, in file order with the first axis slowest") {
  const Sweep sweep = parse(R"(
benchmarks:
  - kernel: cpu_matmul
    axes:
      n: [64, 128]
      dtype: [fp32, fp64]
  - kernel: cpu_copy
    axes: {bytes: 1048576}
)");
  CHECK(ids(sweep) == std::vector<std::string>{
                          "cpu_matmul[n=64,dtype=fp32]", "cpu_matmul[n=64,dtype=fp64]",
                          "cpu_matmul[n=128,dtype=fp32]", "cpu_matmul[n=128,dtype=fp64]",
                          "cpu_copy[bytes=1048576]"});
  CHECK(sweep.instances[0].benchmark_index == 0);
  CHECK(sweep.instances[4].benchmark_index == 1);
  CHECK(sweep.instances[1].params == json{{"n", 64}, {"dtype", "fp64"}});
  CHECK(sweep.instances[1].family == "cpu");
  CHECK(sweep.instances[1].backend == Backend::cpu);
  CHECK(sweep.instances[1].kernel == "cpu_matmul");

  // Listing dtype first makes it the slow axis; ids keep the spec's axis order.
  const Sweep swapped = parse(R"(
benchmarks:
  - kernel: cpu_matmul
    axes: {dtype: [fp32, fp64], n: [64, 128]}
)");
  CHECK(ids(swapped) == std::vector<std::string>{
                            "cpu_matmul[n=64,dtype=fp32]", "cpu_matmul[n=128,dtype=fp32]",
                            "cpu_matmul[n=64,dtype=fp64]", "cpu_matmul[n=128,dtype=fp64]"});
}

TEST_CASE("defaults fill missing axes and settings") {
  const Sweep sweep = parse("benchmarks:\n  - kernel: cpu_reduce\n");
  REQUIRE(sweep.instances.size() == 1);
  CHECK(sweep.instances[0].id == "cpu_reduce[n=1048576,dtype=fp32]");
  CHECK(sweep.instances[0].device_bytes == 4u << 20);
  CHECK(sweep.name == "t");  // the file stem
  CHECK(sweep.path == "configs/t.yaml");
  CHECK(sweep.source_text == "benchmarks:\n  - kernel: cpu_reduce\n");
  const RunSettings& s = sweep.settings;
  CHECK(s.samples == 20);
  CHECK(s.isolation == "process");
  CHECK(s.per == "batch");
  CHECK(s.seed == 1);
  CHECK(s.measure.to_json() == json{{"warmup", 3},
                                    {"inner", "auto"},
                                    {"min_sample_time_ms", 10.0},
                                    {"statistic", "mean"},
                                    {"timer", "graph"},
                                    {"graph_chunk", 1024},
                                    {"cold_cache", false},
                                    {"cold_launches", false},
                                    {"rotate_buffers", 1},
                                    {"blocking_kernel", false},
                                    {"slowdown_pct", 0.0},
                                    {"record_kernels", false},
                                    {"record_kernels", false},
                                    {"idle_gap_ms", 0.0},
                                    {"realloc", false}});
  CHECK(sweep.instances[0].measure.to_json() == s.measure.to_json());
}

TEST_CASE("exclude drops instances matching every key of an entry") {
  const Sweep sweep = parse(R"(
benchmarks:
  - kernel: cpu_matmul
    axes: {n: [64, 128, 256], dtype: [fp32, fp64]}
    exclude:
      - {n: 64, dtype: fp64}
      - {n: [128, 256], dtype: fp32}
)");
  CHECK(ids(sweep) == std::vector<std::string>{"cpu_matmul[n=64,dtype=fp32]",
                                               "cpu_matmul[n=128,dtype=fp64]",
                                               "cpu_matmul[n=256,dtype=fp64]"});
  // Defaults count: dtype is fp32 unless given, so excluding fp32 drops the default instance.
  const Sweep defaults = parse(R"(
benchmarks:
  - kernel: cpu_matmul
    axes: {n: [64, 128]}
    exclude: [{dtype: fp32, n: 64}]
)");
  CHECK(ids(defaults) == std::vector<std::string>{"cpu_matmul[n=128,dtype=fp32]"});
}

TEST_CASE("cases times axes: every axes combination with each case, cases fastest") {
  const Sweep sweep = parse_toy(R"(
benchmarks:
  - kernel: toy_gemm
    axes: {dtype: [bf16, fp16]}
    cases:
      - {m: 4096, n: 6144, k: 4096}
      - {m: 4096, n: 4096, k: 14336}
      - {m: 1024, n: 28672, k: 4096}
)");
  CHECK(ids(sweep) == std::vector<std::string>{
                          "toy_gemm[m=4096,n=6144,k=4096,dtype=bf16]",
                          "toy_gemm[m=4096,n=4096,k=14336,dtype=bf16]",
                          "toy_gemm[m=1024,n=28672,k=4096,dtype=bf16]",
                          "toy_gemm[m=4096,n=6144,k=4096,dtype=fp16]",
                          "toy_gemm[m=4096,n=4096,k=14336,dtype=fp16]",
                          "toy_gemm[m=1024,n=28672,k=4096,dtype=fp16]"});
  CHECK(sweep.instances[0].backend == Backend::cuda);
  CHECK(sweep.instances[0].device_bytes == 2ull * (4096 * 4096 + 4096 * 6144 + 4096 * 6144));

  // Cases may give some axes and leave a listed axis to the product.
  const Sweep mixed = parse_toy(R"(
benchmarks:
  - kernel: toy_gemm
    axes: {m: [1024, 2048]}
    cases: [{n: 6144, k: 4096}, {n: 4096, k: 4096, dtype: fp16}]
    exclude: [{m: 2048, dtype: fp16}]
)");
  CHECK(ids(mixed) == std::vector<std::string>{"toy_gemm[m=1024,n=6144,k=4096,dtype=bf16]",
                                               "toy_gemm[m=1024,n=4096,k=4096,dtype=fp16]",
                                               "toy_gemm[m=2048,n=6144,k=4096,dtype=bf16]"});
}

TEST_CASE("ids are stable: the same text gives the same instances, however numbers are spelled") {
  const std::string text = R"(
benchmarks:
  - kernel: cpu_copy
    axes: {bytes: [1.6777216e7, 4096]}
  - kernel: cpu_spin
    axes: {microseconds: [50.0, 2.5]}
)";
  const Sweep a = parse(text), b = parse(text);
  CHECK(ids(a) == ids(b));
  CHECK(ids(a) == std::vector<std::string>{"cpu_copy[bytes=16777216]", "cpu_copy[bytes=4096]",
                                           "cpu_spin[microseconds=50]",
                                           "cpu_spin[microseconds=2.5]"});
  // The default and the value written out give the same id.
  CHECK(parse("benchmarks: [{kernel: cpu_spin}]").instances[0].id == "cpu_spin[microseconds=50]");
  // Also when the spec writes its default as 1.0.
  CHECK(ids(parse_toy("benchmarks:\n  - kernel: toy_scale\n"
                      "  - kernel: toy_scale\n    axes: {scale: [0.5, -2]}\n")) ==
        std::vector<std::string>{"toy_scale[scale=1]", "toy_scale[scale=0.5]",
                                 "toy_scale[scale=-2]"});
  CHECK(toy_error_of("benchmarks:\n  - kernel: toy_scale\n"
                     "  - kernel: toy_scale\n    axes: {scale: 1.0}\n") ==
        "toy.yaml:3:5: benchmarks[1]: instance toy_scale[scale=1] is also produced by "
        "benchmarks[0]");
}

TEST_CASE("settings: the file's, each benchmark's, then the command line's") {
  const std::string text = R"(
name: mine
settings:
  samples: 20
  warmup: 0
  inner: 5
  min_sample_time_ms: 2.5
  statistic: min
  isolation: interleave
  per: sample
  seed: 18446744073709551615
  timer: graph
  rotate_buffers: 2
  blocking_kernel: true
  slowdown_pct: 5
benchmarks:
  - kernel: cpu_copy
    axes: {bytes: 4096}
    settings: {inner: auto, rotate_buffers: 4, slowdown_pct: 0}
  - kernel: cpu_spin
  - kernel: cpu_reduce
    settings: {cold_cache: true, inner: 100}
  - kernel: cpu_matmul
    settings: {cold_cache: true, cold_launches: true, inner: 100}
)";
  const Sweep sweep = parse(text);
  CHECK(sweep.name == "mine");
  CHECK(sweep.settings.samples == 20);
  CHECK(sweep.settings.isolation == "interleave");
  CHECK(sweep.settings.per == "sample");
  CHECK(sweep.settings.seed == 18446744073709551615ull);
  const MeasureSettings& run = sweep.settings.measure;
  CHECK(run.warmup == 0);
  CHECK(run.inner == 5);
  CHECK(run.min_sample_time_s == doctest::Approx(0.0025));
  CHECK(run.statistic == "min");
  CHECK(run.timer == "graph");
  CHECK(run.rotate_buffers == 2);
  CHECK(run.blocking_kernel);
  CHECK(run.slowdown_pct == 5);

  const MeasureSettings& copy = sweep.instances[0].measure;
  CHECK_FALSE(copy.inner.has_value());
  CHECK(copy.rotate_buffers == 4);
  CHECK(copy.slowdown_pct == 0);
  CHECK(copy.statistic == "min");  // not overridden: the file's
  CHECK(sweep.instances[0].device_bytes == 4 * 2 * 4096);  // spec bytes x rotated copies
  CHECK(sweep.instances[1].measure.to_json() == run.to_json());
  CHECK(sweep.instances[2].measure.inner == 1);  // cold_cache forces one launch per sample
  CHECK(sweep.instances[3].measure.inner == 100);  // not with a flush before every launch
  CHECK(sweep.instances[3].measure.cold_launches);

  SettingsOverrides cli;
  cli.set("samples", 4);
  cli.set_text("inner", "7");
  cli.set("rotate_buffers", 1);
  cli.set("isolation", "process");
  cli.set("seed", 3);
  cli.set("statistic", "mean");
  const Sweep overridden = parse(text, cli);
  CHECK(overridden.settings.samples == 4);
  CHECK(overridden.settings.isolation == "process");
  CHECK(overridden.settings.seed == 3);
  CHECK(overridden.settings.measure.inner == 7);
  for (const auto& instance : overridden.instances) {
    CAPTURE(instance.id);
    CHECK(instance.measure.rotate_buffers == 1);  // the command line beats the benchmark
    CHECK(instance.measure.statistic == "mean");
  }
  CHECK(overridden.instances[0].measure.inner == 7);
  CHECK(overridden.instances[0].measure.slowdown_pct == 0);  // benchmark value kept
  CHECK(overridden.instances[2].measure.inner == 1);         // cold_cache still wins
  CHECK(overridden.instances[3].measure.inner == 7);

  SettingsOverrides automatic;
  automatic.set_text("inner", "auto");
  CHECK_FALSE(parse(text, automatic).instances[1].measure.inner.has_value());
}

TEST_CASE("errors name the file, line, column and field") {
  // Malformed YAML: the parser's own mark.
  CHECK(error_of("benchmarks:\n  - kernel: [cpu_copy\n") ==
        "configs/t.yaml:3:1: end of sequence flow not found");
  CHECK(error_of("") == "configs/t.yaml: expected a mapping with \"benchmarks:\" (and optional "
                        "name, settings)");
  CHECK(error_of("name: x\n") ==
        "configs/t.yaml:1:1: benchmarks: missing: a sweep needs a list of benchmarks");
  // Unknown keys, with a suggestion when one is close.
  CHECK(error_of("benchmark:\n  - kernel: cpu_copy\n") ==
        "configs/t.yaml:1:1: benchmark: unknown key (did you mean benchmarks?)");
  CHECK(error_of("settings:\n  sampels: 3\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:2:3: settings.sampels: unknown setting (did you mean samples?)");
  CHECK(error_of("benchmarks:\n  - kernel: cpu_copy\n    axis: {bytes: 4096}\n") ==
        "configs/t.yaml:3:5: benchmarks[0].axis: unknown key (did you mean axes?)");
  CHECK(error_of("benchmarks:\n  - kernel: cpu_copy\n    settings: {samples: 3}\n") ==
        "configs/t.yaml:3:16: benchmarks[0].settings.samples: a run setting: it can be set in the "
        "top-level settings or on the command line, not per benchmark");
  CHECK(error_of("settings: {samples: 3, samples: 4}\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:1:24: settings.samples: given twice");
  // Unknown kernel: the closest name, or the list when none is close.
  CHECK(error_of("benchmarks:\n  - kernel: cpu_cpy\n") ==
        "configs/t.yaml:2:13: benchmarks[0].kernel: unknown kernel \"cpu_cpy\" (did you mean "
        "cpu_copy?)");
  CHECK(toy_error_of("benchmarks:\n  - kernel: fft\n") ==
        "toy.yaml:2:13: benchmarks[0].kernel: unknown kernel \"fft\" (known: toy_gemm, toy_scale)");
  CHECK(error_of("benchmarks:\n  - axes: {n: 3}\n") ==
        "configs/t.yaml:2:5: benchmarks[0].kernel: missing: which kernel to measure");
  // Unknown axis.
  CHECK(error_of("benchmarks:\n  - kernel: cpu_matmul\n    axes:\n      size: 64\n") ==
        "configs/t.yaml:4:7: benchmarks[0].axes.size: unknown axis for kernel cpu_matmul (known: "
        "n, dtype)");
  // Wrong types and out-of-range values, in lists too.
  CHECK(error_of("benchmarks:\n  - kernel: cpu_copy\n    axes: {bytes: lots}\n") ==
        "configs/t.yaml:3:19: benchmarks[0].axes.bytes: expected an integer, got \"lots\"");
  CHECK(error_of("benchmarks:\n  - kernel: cpu_matmul\n    axes:\n      dtype: [fp32, bf16]\n") ==
        "configs/t.yaml:4:21: benchmarks[0].axes.dtype[1]: must be one of fp32, fp64, got \"bf16\"");
  CHECK(error_of("benchmarks:\n  - kernel: cpu_copy\n    axes: {bytes: [4096, 100]}\n") ==
        "configs/t.yaml:3:26: benchmarks[0].axes.bytes[1]: must be at least 4096, got 100");
  CHECK(error_of("benchmarks:\n  - kernel: cpu_copy\n    axes: {bytes: {a: 1}}\n") ==
        "configs/t.yaml:3:19: benchmarks[0].axes.bytes: expected a value or a list of values");
  CHECK(error_of("settings:\n  samples: many\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:2:12: settings.samples: expected an integer, got \"many\"");
  CHECK(error_of("settings:\n  inner: 0\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:2:10: settings.inner: must be at least 1, got 0");
  CHECK(error_of("settings:\n  inner: often\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:2:10: settings.inner: expected \"auto\" or an integer, got \"often\"");
  CHECK(error_of("settings:\n  isolation: fork\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:2:14: settings.isolation: must be one of sequential, interleave, process, "
        "got \"fork\"");
  CHECK(error_of("settings:\n  min_sample_time_ms: 0\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:2:23: settings.min_sample_time_ms: must be greater than 0, got 0");
  CHECK(error_of("settings:\n  seed: -1\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:2:9: settings.seed: must be at least 0, got -1");
  CHECK(error_of("settings:\n  cold_cache: yes\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:2:15: settings.cold_cache: expected true or false, got \"yes\"");
  // samples < 2: one sample has no spread to compare.
  CHECK(error_of("settings:\n  samples: 1\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:2:12: settings.samples: must be at least 2, got 1");
  // Empty products.
  CHECK(error_of("benchmarks: []\n") ==
        "configs/t.yaml:1:13: benchmarks: empty list: the sweep would measure nothing");
  CHECK(error_of("benchmarks:\n  - kernel: cpu_copy\n    axes: {bytes: []}\n") ==
        "configs/t.yaml:3:19: benchmarks[0].axes.bytes: empty list: the product would be empty");
  CHECK(error_of("benchmarks:\n  - kernel: cpu_matmul\n    axes: {n: [8, 16]}\n"
                 "    exclude:\n      - {n: [8, 16]}\n") ==
        "configs/t.yaml:5:7: benchmarks[0].exclude: excludes all 2 instances of this benchmark");
  CHECK(error_of("benchmarks:\n  - kernel: cpu_matmul\n    exclude: [{m: 8}]\n") ==
        "configs/t.yaml:3:16: benchmarks[0].exclude[0].m: unknown axis for kernel cpu_matmul (did "
        "you mean n?)");
  // Duplicate instances, across benchmarks and inside one.
  CHECK(error_of("benchmarks:\n  - kernel: cpu_copy\n    axes: {bytes: [4096, 8192]}\n"
                 "  - kernel: cpu_copy\n    axes: {bytes: 8192}\n") ==
        "configs/t.yaml:4:5: benchmarks[1]: instance cpu_copy[bytes=8192] is also produced by "
        "benchmarks[0]");
  CHECK(error_of("benchmarks:\n  - kernel: cpu_copy\n    axes: {bytes: [4096, 4096]}\n") ==
        "configs/t.yaml:3:26: benchmarks[0].axes.bytes[1]: value 4096 is listed twice");
  CHECK(error_of("benchmarks:\n  - kernel: cpu_matmul\n    axes: {n: 16}\n") == "");
  CHECK(error_of("benchmarks:\n  - kernel: cpu_matmul\n    axes: {n: 128}\n"
                 "  - kernel: cpu_matmul\n") ==
        "configs/t.yaml:4:5: benchmarks[1]: instance cpu_matmul[n=128,dtype=fp32] is also produced "
        "by benchmarks[0]");
  // Cases: axes given twice, a missing required axis, repeated combinations.
  CHECK(toy_error_of("benchmarks:\n  - kernel: toy_gemm\n    axes: {m: 8}\n"
                     "    cases: [{m: 8, n: 8, k: 8}]\n") ==
        "toy.yaml:4:14: benchmarks[0].cases[0].m: also given in axes; give each axis in one place");
  CHECK(toy_error_of("benchmarks:\n  - kernel: toy_gemm\n    cases:\n      - {m: 8, n: 8}\n") ==
        "toy.yaml:4:9: benchmarks[0].cases[0]: axis \"k\" has no default; give it in this case or "
        "in axes");
  CHECK(toy_error_of("benchmarks:\n  - kernel: toy_gemm\n    axes: {m: 8, n: 8}\n") ==
        "toy.yaml:2:5: benchmarks[0].axes: axis \"k\" has no default; give it in axes or in cases");
  CHECK(toy_error_of("benchmarks:\n  - kernel: toy_gemm\n"
                     "    cases: [{m: 8, n: 8, k: 8}, {k: 8, n: 8, m: 8}]\n") ==
        "toy.yaml:2:5: benchmarks[0]: instance toy_gemm[m=8,n=8,k=8,dtype=bf16] is produced twice "
        "(two cases give the same values)");
  CHECK(toy_error_of("benchmarks:\n  - kernel: toy_gemm\n    cases: []\n") ==
        "toy.yaml:3:12: benchmarks[0].cases: empty list: the product would be empty");
  // The name is used in run directory names.
  CHECK(error_of("name: a/b\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:1:7: name: may hold only letters, digits, '_', '-' and '.', got \"a/b\"");
  CHECK(error_of("name: ..\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:1:7: name: may not start with '.', got \"..\"");
}

TEST_CASE("command-line overrides are validated like the file, and named as options") {
  const std::string text = "benchmarks: [{kernel: cpu_copy}]\n";
  SettingsOverrides samples;
  samples.set("samples", 1);
  CHECK(error_of(text, samples) == "command line: --samples: must be at least 2, got 1");
  SettingsOverrides inner;
  inner.set_text("inner", "0");
  CHECK(error_of(text, inner) == "command line: --inner: must be at least 1, got 0");
  inner.set_text("inner", "lots");
  CHECK(error_of(text, inner) == "command line: --inner: expected \"auto\" or an integer, got \"lots\"");
  SettingsOverrides time;
  time.set("min_sample_time_ms", -1.0);
  CHECK(error_of(text, time) ==
        "command line: --min-sample-time-ms: must be greater than 0, got -1.0");
  SettingsOverrides isolation;
  isolation.set("isolation", "threads");
  CHECK(error_of(text, isolation) ==
        "command line: --isolation: must be one of sequential, interleave, process, got \"threads\"");
  // The file is checked first: its own mistakes are reported with their place.
  CHECK(error_of("settings: {samples: 0}\n" + text, samples) ==
        "configs/t.yaml:1:21: settings.samples: must be at least 2, got 0");
}

TEST_CASE("load_sweep reads a file and reports one it cannot open") {
  const auto dir = std::filesystem::temp_directory_path() / "isobench_test_sweep";
  std::filesystem::create_directories(dir);
  const auto file = dir / "small.yaml";
  std::ofstream(file) << "benchmarks:\n  - kernel: cpu_spin\n    axes: {microseconds: [10, 20]}\n";
  const Sweep sweep = load_sweep(file.string());
  CHECK(sweep.name == "small");
  CHECK(sweep.path == file.string());
  CHECK(sweep.instances.size() == 2);
  CHECK_THROWS_WITH_AS(load_sweep((dir / "absent.yaml").string()),
                       ((dir / "absent.yaml").string() + ": cannot open the sweep file").c_str(),
                       SweepError);
  std::filesystem::remove_all(dir);
}

TEST_CASE("check_memory names the largest instance over the budget of its backend") {
  const Sweep sweep = parse(R"(
benchmarks:
  - kernel: cpu_copy
    axes: {bytes: [1048576, 16777216, 4194304]}
)");
  CHECK(check_memory(sweep, 64u << 20, Backend::cpu) == "");
  CHECK(check_memory(sweep, 1u << 20, Backend::cuda) == "");  // no CUDA instances
  CHECK(check_memory(sweep, 16u << 20, Backend::cpu) ==
        "cpu_copy[bytes=16777216] needs 32.0 MiB of cpu memory, more than the 16.0 MiB available");
  CHECK(check_memory(sweep, 1u << 20, Backend::cpu) ==
        "cpu_copy[bytes=16777216] needs 32.0 MiB of cpu memory, more than the 1.0 MiB available "
        "(2 other instances also exceed it)");
}

TEST_CASE("a sweep of 10,000 instances expands in full, in order, with unique ids") {
  std::ostringstream text;
  text << "benchmarks:\n  - kernel: cpu_copy\n    axes:\n      bytes: [";
  for (int i = 0; i < 10000; ++i) text << (i ? ", " : "") << 4096 + i;
  text << "]\n";
  const Sweep sweep = parse(text.str());
  REQUIRE(sweep.instances.size() == 10000);
  CHECK(sweep.instances.front().id == "cpu_copy[bytes=4096]");
  CHECK(sweep.instances.back().id == "cpu_copy[bytes=14095]");
  const auto all = ids(sweep);
  CHECK(std::set<std::string>(all.begin(), all.end()).size() == 10000);
}

// Every shipped sweep file must load against the real catalog (CUDA specs included: they are
// compiled in every build) and produce instances.
TEST_CASE("every file in configs/ is a valid sweep") {
  const char* source = std::getenv("ISOBENCH_SOURCE_DIR");
  REQUIRE_MESSAGE(source != nullptr, "ISOBENCH_SOURCE_DIR is not set");
  const auto dir = std::filesystem::path(source) / "configs";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const char* expected : {"quick.yaml", "cpu.yaml", "cast.yaml", "normalization.yaml",
                               "gemm.yaml", "grouped_gemm.yaml", "calibration.yaml"})
    CHECK_MESSAGE(std::filesystem::exists(dir / expected), std::string(expected));
  for (const auto& file : files) {
    CAPTURE(file.string());
    try {
      const Sweep sweep = load_sweep(file.string());
      CHECK(!sweep.instances.empty());
      CHECK(sweep.name == file.stem().string());
    } catch (const SweepError& e) {
      FAIL(e.what());
    }
  }
}

namespace {

// Parses every ```yaml block of docs/<page> as a sweep; returns how many there were.
int parse_doc_examples(const std::string& page) {
  const char* source = std::getenv("ISOBENCH_SOURCE_DIR");
  REQUIRE(source != nullptr);
  std::ifstream in(std::filesystem::path(source) / "docs" / page);
  REQUIRE(in);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string doc = buffer.str();
  const std::string open = "```yaml\n", close = "```";
  int blocks = 0;
  for (auto start = doc.find(open); start != std::string::npos; start = doc.find(open, start)) {
    start += open.size();
    const auto end = doc.find(close, start);
    REQUIRE(end != std::string::npos);
    const std::string example = doc.substr(start, end - start);
    start = end + close.size();
    ++blocks;
    CAPTURE(example);
    try {
      CHECK(!parse_sweep(example, "docs/" + page).instances.empty());
    } catch (const SweepError& e) {
      FAIL(e.what());
    }
  }
  return blocks;
}

}  // namespace

// The examples in docs/sweep-format.md and docs/python.md are real sweeps: each ```yaml block must parse.
TEST_CASE("the examples of docs/sweep-format.md and docs/python.md parse") {
  CHECK(parse_doc_examples("sweep-format.md") >= 3);
  CHECK(parse_doc_examples("python.md") >= 1);
}

TEST_CASE("idle_gap_ms and realloc: settings per run and benchmark, overrides, bad values") {
  const std::string text = R"(
settings: {idle_gap_ms: 20, realloc: true}
benchmarks:
  - kernel: cpu_copy
    axes: {bytes: 4096}
  - kernel: cpu_spin
    settings: {idle_gap_ms: 0.5, realloc: false}
)";
  const Sweep sweep = parse(text);
  CHECK(sweep.settings.measure.idle_gap_ms == 20);
  CHECK(sweep.settings.measure.realloc);
  CHECK(sweep.instances[0].measure.idle_gap_ms == 20);
  CHECK(sweep.instances[0].measure.realloc);
  CHECK(sweep.instances[1].measure.idle_gap_ms == 0.5);
  CHECK_FALSE(sweep.instances[1].measure.realloc);
  CHECK(sweep.instances[0].measure.to_json()["idle_gap_ms"] == 20.0);
  CHECK(sweep.instances[0].measure.to_json()["realloc"] == true);
  // Defaults: no pause, no re-setup.
  const Sweep plain = parse("benchmarks: [{kernel: cpu_copy}]\n");
  CHECK(plain.instances[0].measure.idle_gap_ms == 0);
  CHECK_FALSE(plain.instances[0].measure.realloc);

  SettingsOverrides cli;
  cli.set("idle_gap_ms", 7.0);
  cli.set("realloc", false);
  for (const auto& instance : parse(text, cli).instances) {
    CHECK(instance.measure.idle_gap_ms == 7);
    CHECK_FALSE(instance.measure.realloc);
  }

  CHECK(error_of("settings:\n  idle_gap_ms: -1\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:2:16: settings.idle_gap_ms: must be at least 0, got -1");
  CHECK(error_of("settings:\n  idle_gap_ms: soon\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:2:16: settings.idle_gap_ms: expected a number, got \"soon\"");
  CHECK(error_of("settings:\n  idle_gap_ms: 60001\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:2:16: settings.idle_gap_ms: must be at most 60000 (one minute), got 60001");
  CHECK(error_of("benchmarks:\n  - kernel: cpu_copy\n    settings: {realloc: 1}\n") ==
        "configs/t.yaml:3:25: benchmarks[0].settings.realloc: expected true or false, got 1");
  SettingsOverrides negative;
  negative.set("idle_gap_ms", -2.0);
  CHECK(error_of("benchmarks: [{kernel: cpu_copy}]\n", negative) ==
        "command line: --idle-gap-ms: must be at least 0, got -2.0");
}

TEST_CASE("graph_chunk: 1024 by default, per run and benchmark, overrides, bad values") {
  CHECK(parse("benchmarks: [{kernel: cpu_copy}]\n").instances[0].measure.graph_chunk ==
        isobench::ipc::kDefaultGraphChunk);
  const std::string text = R"(
settings: {graph_chunk: 0}
benchmarks:
  - kernel: cpu_copy
  - kernel: cpu_spin
    settings: {graph_chunk: 16}
)";
  const Sweep sweep = parse(text);
  CHECK(sweep.instances[0].measure.graph_chunk == 0);
  CHECK(sweep.instances[1].measure.graph_chunk == 16);
  CHECK(sweep.instances[1].measure.to_json()["graph_chunk"] == 16);
  SettingsOverrides cli;
  cli.set_text("graph_chunk", "256");
  for (const auto& instance : parse(text, cli).instances) CHECK(instance.measure.graph_chunk == 256);

  CHECK(error_of("settings:\n  graph_chunk: -1\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:2:16: settings.graph_chunk: must be at least 0, got -1");
  CHECK(error_of("settings:\n  graph_chunk: 2.5\nbenchmarks: [{kernel: cpu_copy}]\n") ==
        "configs/t.yaml:2:16: settings.graph_chunk: expected an integer, got 2.5");
  CHECK(error_of("benchmarks:\n  - kernel: cpu_copy\n    settings: {graph_chunk: many}\n") ==
        "configs/t.yaml:3:29: benchmarks[0].settings.graph_chunk: expected an integer, got \"many\"");
  SettingsOverrides negative;
  negative.set_text("graph_chunk", "-8");
  CHECK(error_of("benchmarks: [{kernel: cpu_copy}]\n", negative) ==
        "command line: --graph-chunk: must be at least 0, got -8");
  SettingsOverrides fraction;
  fraction.set_text("graph_chunk", "0.5");
  CHECK(error_of("benchmarks: [{kernel: cpu_copy}]\n", fraction) ==
        "command line: --graph-chunk: expected an integer, got \"0.5\"");
}

TEST_CASE("realloc is refused for a command benchmark, pointing at where it was set") {
  // A command is a fresh program run per sample: there is no instance to set up again.
  const std::string command = "  - command: [true]\n    name: noop\n";
  const std::string problem =
      "realloc does not apply to a command benchmark (each sample is a fresh run of the program)";
  CHECK(error_of("benchmarks:\n" + command + "    settings: {realloc: true}\n") ==
        "configs/t.yaml:4:16: benchmarks[0].settings.realloc: " + problem + "; remove it here");
  CHECK(error_of("settings: {realloc: true}\nbenchmarks:\n  - kernel: cpu_copy\n" + command) ==
        "configs/t.yaml:4:14: benchmarks[1].command: " + problem +
            "; set realloc: false in this benchmark's settings");
  SettingsOverrides cli;
  cli.set("realloc", true);
  CHECK(error_of("benchmarks:\n" + command, cli) == "configs/t.yaml:2:14: benchmarks[0].command: " + problem);
  // Switched off for the command alone, the rest keeps it.
  const Sweep mixed = parse("settings: {realloc: true}\nbenchmarks:\n  - kernel: cpu_copy\n" + command +
                            "    settings: {realloc: false}\n");
  CHECK(mixed.instances[0].measure.realloc);
  CHECK_FALSE(mixed.instances[1].measure.realloc);
  // idle_gap_ms applies to commands as to kernels.
  CHECK(parse("benchmarks:\n" + command + "    settings: {idle_gap_ms: 5}\n").instances[0].measure.idle_gap_ms == 5);
}

TEST_CASE("record_kernels: off by default, per benchmark or run-wide, and --record-kernels turns it on everywhere") {
  const std::string text = R"(
settings: {record_kernels: false}
benchmarks:
  - kernel: cpu_copy
    axes: {bytes: 4096}
    settings: {record_kernels: true}
  - kernel: cpu_spin
)";
  const Sweep sweep = parse(text);
  CHECK(sweep.instances[0].measure.record_kernels);
  CHECK_FALSE(sweep.instances[1].measure.record_kernels);
  CHECK(sweep.instances[0].measure.to_json()["record_kernels"] == true);
  SettingsOverrides cli;
  cli.set("record_kernels", true);
  for (const auto& instance : parse(text, cli).instances) CHECK(instance.measure.record_kernels);
  CHECK_THROWS_WITH_AS(parse("settings: {record_kernels: 1}\nbenchmarks:\n  - kernel: cpu_spin\n"),
                       doctest::Contains("settings.record_kernels: expected true or false, got 1"), SweepError);
}

TEST_CASE("configs/allgather_gemm.yaml: the issue's shapes, two ranks, both dtypes, sequence and every overlap") {
  const auto sweep = load_sweep(std::string(std::getenv("ISOBENCH_SOURCE_DIR")) + "/configs/allgather_gemm.yaml");
  REQUIRE(sweep.instances.size() == 2 * 2 * 5);  // k x dtype x (sequence + 4 overlaps)
  std::set<std::string> seen;
  for (const auto& instance : sweep.instances) {
    CHECK(instance.params.at("ranks") == 2);
    CHECK(instance.params.at("m") == 65536);
    CHECK(instance.params.at("n") == 1024);
    seen.insert(instance.params.at("impl").get<std::string>() + std::to_string(instance.params.at("chunks").get<int>()));
  }
  CHECK(seen == std::set<std::string>{"sequence1", "overlap1", "overlap2", "overlap4", "overlap8"});
}
