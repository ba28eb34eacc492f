// The CUDA kernels and the CUDA timer on a real GPU: every kernel agrees with its CPU reference
// on small shapes (rotated buffers included), and every timer mode gives finite positive times;
// an injected 10% slowdown is visible. Without a CUDA device the suite exits 77 (ctest: skipped).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <vector>

#include <cuda_runtime_api.h>

#include "kernels/benchmark.hpp"
#include "kernels/catalog.hpp"
#include "worker/cuda/cuda_check.hpp"
#include "worker/cuda/cuda_device.hpp"
#include "worker/cuda/cuda_timer.hpp"

using isobench::kernels::Benchmark;
using isobench::kernels::Params;
using isobench::kernels::SetupContext;
using isobench::worker::CudaDevice;
using isobench::worker::Measurement;
using isobench::worker::SampleStatistic;
using isobench::worker::TimerOptions;
using nlohmann::json;

namespace {

CudaDevice& device() {
  static CudaDevice d(0);
  return d;
}

struct Instance {
  std::unique_ptr<Benchmark> bench;
  Params params;
};

Instance make(const std::string& kernel, const json& given, int rotate = 2) {
  const auto* spec = isobench::kernels::find_kernel(kernel);
  REQUIRE(spec != nullptr);
  Instance inst;
  const auto problem = isobench::kernels::complete_params(*spec, given, inst.params);
  REQUIRE_MESSAGE(problem.empty(), problem);
  inst.bench = isobench::kernels::create_benchmark(kernel);
  REQUIRE(inst.bench != nullptr);
  inst.bench->setup(inst.params, SetupContext{42, device().stream(), rotate});
  return inst;
}

// Three launches over two rotated buffers, so check() sees a launch on a buffer other than the
// first one.
void check_agrees(const std::string& kernel, const json& given) {
  INFO(kernel << " " << given.dump());
  auto inst = make(kernel, given);
  for (int i = 0; i < 3; ++i) inst.bench->launch();
  device().synchronize();
  const std::string problem = inst.bench->check();
  CHECK_MESSAGE(problem.empty(), problem);
}

bool finite_positive(const Measurement& m) { return std::isfinite(m.sample.value_s) && m.sample.value_s > 0; }

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double median_seconds(Benchmark& bench, const TimerOptions& options, int samples) {
  auto timer = isobench::worker::make_cuda_timer(bench, options, device());
  std::vector<double> values;
  for (int i = 0; i < samples; ++i) values.push_back(timer->measure().sample.value_s);
  return median_of(values);
}

// A slowed timer's median between two plain ones (plain, slowed, plain again: clock drift cannot
// fake or hide the difference), its ratio to the plain ones' mean, and how far those disagree.
struct SlowedBetweenPlains {
  double plain = 0, slow = 0, plain_again = 0, ratio = 0, noise = 0;
};

SlowedBetweenPlains slowed_between_plains(Benchmark& bench, const TimerOptions& base, const TimerOptions& slowed,
                                          int samples) {
  SlowedBetweenPlains r;
  r.plain = median_seconds(bench, base, samples);
  r.slow = median_seconds(bench, slowed, samples);
  r.plain_again = median_seconds(bench, base, samples);
  r.ratio = r.slow / ((r.plain + r.plain_again) / 2);
  r.noise = std::abs(r.plain - r.plain_again) / ((r.plain + r.plain_again) / 2);
  return r;
}

}  // namespace

TEST_CASE("the device's UUID is spelled as NVML spells it: GPU-8-4-4-4-12 lowercase hex") {
  const std::string uuid = device().uuid();
  INFO(uuid);
  REQUIRE(uuid.size() == 40);
  CHECK(uuid.rfind("GPU-", 0) == 0);
  for (std::size_t k = 4; k < uuid.size(); ++k) {
    if (k == 12 || k == 17 || k == 22 || k == 27)
      CHECK(uuid[k] == '-');
    else
      CHECK(std::isxdigit(static_cast<unsigned char>(uuid[k])) != 0);
  }
  CHECK(uuid != "GPU-00000000-0000-0000-0000-000000000000");
  CHECK_FALSE(device().name().empty());
}

TEST_CASE("cast agrees with its reference for every conversion, tails included") {
  for (const char* conversion : {"fp32_bf16", "fp32_fp16", "fp32_fp8e4m3", "bf16_fp32"})
    for (int n : {1, 7, 1000003}) check_agrees("cast", {{"n", n}, {"conversion", conversion}});
  // Values up to 4 * 150 = 600 saturate to fp8's 448.
  check_agrees("cast", {{"n", 4099}, {"conversion", "fp32_fp8e4m3"}, {"scale", 150.0}});
}

TEST_CASE("rmsnorm and layernorm agree with their references, vector and scalar paths") {
  for (const char* kernel : {"rmsnorm", "layernorm"})
    for (int hidden : {1, 8, 1000, 999, 4096, 8192, 12288, 65536})
      check_agrees(kernel, {{"rows", 37}, {"hidden", hidden}});
}

TEST_CASE("gemm agrees with its reference for every dtype and layout") {
  for (const char* trans : {"nn", "nt", "tn", "tt"}) {
    check_agrees("gemm", {{"m", 96}, {"n", 80}, {"k", 64}, {"dtype", "bf16"}, {"trans", trans}});
    check_agrees("gemm", {{"m", 96}, {"n", 80}, {"k", 64}, {"dtype", "fp16"}, {"trans", trans}});
    check_agrees("gemm", {{"m", 96}, {"n", 80}, {"k", 64}, {"dtype", "tf32"}, {"trans", trans}});
  }
  check_agrees("gemm", {{"m", 128}, {"n", 64}, {"k", 96}, {"dtype", "fp8e4m3"}, {"trans", "tn"}});
  check_agrees("gemm", {{"m", 1024}, {"n", 256}, {"k", 512}});
}

TEST_CASE("gemm records its algorithm and replays a heuristic index") {
  auto first = make("gemm", {{"m", 512}, {"n", 512}, {"k", 512}});
  const json d = first.bench->describe();
  INFO(d.dump());
  CHECK(d.at("heuristic_index") == 0);
  CHECK(d.at("heuristic_count").get<int>() >= 1);
  CHECK(d.contains("tile_id"));
  CHECK(d.contains("stages_id"));
  const int last = d.at("heuristic_count").get<int>() - 1;
  check_agrees("gemm", {{"m", 512}, {"n", 512}, {"k", 512}, {"algo", last}});
  auto replay = make("gemm", {{"m", 512}, {"n", 512}, {"k", 512}, {"algo", last}});
  CHECK(replay.bench->describe().at("heuristic_index") == last);
  CHECK_THROWS_WITH(make("gemm", {{"m", 512}, {"n", 512}, {"k", 512}, {"algo", last + 1}}),
                    doctest::Contains("out of range"));
  CHECK_THROWS_WITH(make("gemm", {{"m", 64}, {"n", 64}, {"k", 64}, {"dtype", "fp8e4m3"}, {"trans", "nn"}}),
                    doctest::Contains("trans=tn"));
}

TEST_CASE("grouped_gemm agrees with its reference") {
  for (const char* impl : {"grouped_batched", "lt_loop"}) {
    check_agrees("grouped_gemm", {{"groups", 4}, {"m_per_group", 48}, {"n", 64}, {"k", 32}, {"impl", impl}});
    check_agrees("grouped_gemm", {{"groups", 3}, {"m_per_group", 5}, {"n", 24}, {"k", 40}, {"impl", impl}});
  }
  auto loop = make("grouped_gemm", {{"groups", 2}, {"m_per_group", 64}, {"n", 64}, {"k", 64}, {"impl", "lt_loop"}});
  CHECK(loop.bench->describe().at("algo").contains("tile_id"));
}

TEST_CASE("allgather_gemm on one rank agrees with its reference, sequence and every overlap") {
  // One GPU: a world of one rank (an NCCL communicator of one). Several ranks need orchestrate.
  for (const char* dtype : {"bf16", "fp32"}) {
    check_agrees("allgather_gemm", {{"m", 128}, {"k", 64}, {"n", 48}, {"dtype", dtype}});
    for (int chunks : {1, 2, 4, 8})
      check_agrees("allgather_gemm",
                   {{"m", 128}, {"k", 64}, {"n", 48}, {"dtype", dtype}, {"impl", "overlap"}, {"chunks", chunks}});
  }
  CHECK_THROWS_WITH(make("allgather_gemm", {{"m", 100}, {"k", 8}, {"n", 8}, {"impl", "overlap"}, {"chunks", 8}}),
                    doctest::Contains("not a multiple of ranks * chunks"));
  CHECK_THROWS_WITH(make("allgather_gemm", {{"m", 64}, {"k", 8}, {"n", 8}, {"ranks", 2}}),
                    doctest::Contains("needs that many worker ranks"));
}

TEST_CASE("every timer mode gives finite positive times") {
  auto inst = make("cast", {{"n", 16 << 20}});
  struct Mode {
    const char* name;
    TimerOptions options;
  };
  TimerOptions base;
  base.inner = 20;
  std::vector<Mode> modes;
  modes.push_back({"events mean", base});
  auto o = base;
  o.statistic = SampleStatistic::min;
  modes.push_back({"events min", o});
  o = base;
  o.timer = "graph";
  modes.push_back({"graph mean", o});
  o.statistic = SampleStatistic::min;
  modes.push_back({"graph min", o});
  o = base;
  o.inner = 1;
  o.cold_cache = true;
  modes.push_back({"cold", o});
  o = base;
  o.cold_launches = true;
  modes.push_back({"cold launches", o});
  o.statistic = SampleStatistic::min;
  modes.push_back({"cold launch min", o});
  o.timer = "graph";
  modes.push_back({"cold graph min", o});
  o.statistic = SampleStatistic::mean;
  modes.push_back({"cold graph", o});
  o = base;
  o.blocking_kernel = true;
  modes.push_back({"blocking", o});
  o.timer = "graph";
  modes.push_back({"blocking graph", o});
  o = base;
  o.slowdown_pct = 10;
  modes.push_back({"slowdown", o});
  o.timer = "graph";
  o.blocking_kernel = true;
  modes.push_back({"slowdown graph", o});
  for (const auto& mode : modes) {
    INFO(mode.name);
    auto timer = isobench::worker::make_cuda_timer(*inst.bench, mode.options, device());
    for (int i = 0; i < 3; ++i) {
      const Measurement m = timer->measure();
      std::printf("%-15s %10.3f us  sm %4.0f MHz  flags %zu  %s | %s\n", mode.name, m.sample.value_s * 1e6,
                  m.sample.sm_clock_mhz, isobench::ipc::sample_flag_names(m.sample.flags).size(), m.note.c_str(), timer->setup_note().c_str());
      CHECK(finite_positive(m));
      CHECK(m.sample.sm_clock_mhz >= 0);
      CHECK((m.sample.flags & isobench::ipc::flag_graph_fallback) == 0);
      CHECK((m.sample.flags & isobench::ipc::flag_blocking_timeout) == 0);
    }
  }
}

TEST_CASE("cold_launches: every launch after its own flush, timed alone, reads from DRAM") {
  // 4M floats cast to bf16, one copy of the buffers: 24 MB, which the H200's 50 MB L2 holds
  // between warm launches.
  auto inst = make("cast", {{"n", 4 << 20}}, 1);
  for (const char* timer : {"events", "graph"}) {
    TimerOptions warm;
    warm.inner = 20;
    warm.timer = timer;
    auto cold = warm;
    cold.cold_launches = true;
    auto alone = warm;  // one launch after one flush, the stream held until it is queued
    alone.inner = 1;
    alone.cold_cache = true;
    alone.blocking_kernel = true;
    const double warm_s = median_seconds(*inst.bench, warm, 9);
    const double cold_s = median_seconds(*inst.bench, cold, 9);
    const double alone_s = median_seconds(*inst.bench, alone, 9);
    std::printf("cold launches (%s): warm %.3f us, cold launches %.3f us, one cold launch %.3f us\n", timer,
                warm_s * 1e6, cold_s * 1e6, alone_s * 1e6);
    INFO(timer);
    // A cold launch is a cold launch whether it is alone in its sample or one of 20.
    CHECK(cold_s > 0.7 * alone_s);
    CHECK(cold_s < 1.5 * alone_s);
    // Warm launches in a graph run back to back from the L2; events between cold ones do not
    // make them faster than that.
    if (std::string(timer) == "graph") CHECK(cold_s > warm_s);
  }
}

TEST_CASE("a 10% injected slowdown is measurably slower, with events and in a graph") {
  auto inst = make("cast", {{"n", 16 << 20}});
  for (const char* timer : {"events", "graph"}) {
    TimerOptions base;
    base.inner = 20;
    base.timer = timer;
    auto slowed = base;
    slowed.slowdown_pct = 10;
    // Plain, slowed, plain again: clock drift cannot fake or hide the difference.
    const double plain = median_seconds(*inst.bench, base, 15);
    const double slow = median_seconds(*inst.bench, slowed, 15);
    const double plain_again = median_seconds(*inst.bench, base, 15);
    const double ratio = slow / std::max(plain, plain_again);
    std::printf("slowdown 10%% (%s): plain %.3f/%.3f us, slowed %.3f us, ratio %.4f\n", timer,
                plain * 1e6, plain_again * 1e6, slow * 1e6, ratio);
    INFO(timer);
    CHECK(ratio > 1.05);
    CHECK(ratio < 1.25);
  }
}

// On the H200 the injection lands near 5% in a graph and a few points over with events on the
// 5 us cast, whose events samples are bound by the host's launch rate and jitter with it; on the
// GEMM it lands within a few points, its clock drifting with power between the plain and slowed
// runs (docs/evidence.md#behind-the-code). So the bound is 3 points around 5%, widened by
// how far the two plain medians taken around the slowed one disagree with each other. The cast is
// checked in a graph only: with events its 2000 launches are timed at the host's launch rate, and
// on two cards the ratio came out far off 5% on either side: a 5% claim cannot be read through
// that jitter, and the slowdown's own calibration, taken in that sampling path, inherits it.
TEST_CASE("a 5% injected slowdown is within a few points of 5% on a 5 us kernel and on a GEMM") {
  struct Case {
    const char* kernel;
    json params;
    int inner;
  };
  for (const auto& c : {Case{"cast", {{"n", 1 << 20}}, 2000},
                        Case{"gemm", {{"m", 4096}, {"n", 4096}, {"k", 4096}, {"dtype", "bf16"}}, 20}}) {
    auto inst = make(c.kernel, c.params);
    for (const char* timer : {"events", "graph"}) {
      if (std::string(c.kernel) == "cast" && std::string(timer) == "events") continue;
      TimerOptions base;
      base.inner = c.inner;
      base.timer = timer;
      auto slowed = base;
      slowed.slowdown_pct = 5;
      const auto r = slowed_between_plains(*inst.bench, base, slowed, 11);
      std::printf("slowdown 5%% %s (%s): plain %.3f/%.3f us, slowed %.3f us, ratio %.4f\n", c.kernel, timer,
                  r.plain * 1e6, r.plain_again * 1e6, r.slow * 1e6, r.ratio);
      INFO(c.kernel << " " << timer << ": plain medians disagree by " << r.noise * 100 << "%");
      CHECK(r.ratio > 1.02 - r.noise);
      CHECK(r.ratio < 1.08 + r.noise);
    }
  }
}

// graph_chunk: at inner 100 and a chunk of 16 the timer captures 15 launches and replays them 7
// times per sample (105 launches), dividing by 105. The replays are queued back to back, so the
// value per launch is the one graph of all 100 launches gives; a wrong divisor (100) would be 5%
// off. A cast of 16M floats (tens of microseconds) keeps a gap between replays, if the GPU
// leaves one, far under that. Full and chunked alternate, so clock drift widens the bound
// instead of faking a difference.
TEST_CASE("graph chunk: 7 replays of a 15-launch graph give the per-launch time of one 100-launch graph") {
  auto inst = make("cast", {{"n", 16 << 20}});
  TimerOptions full;
  full.inner = 100;
  full.timer = "graph";
  auto chunked = full;
  chunked.graph_chunk = 16;

  auto timer = isobench::worker::make_cuda_timer(*inst.bench, chunked, device());
  INFO(timer->setup_note());
  CHECK(timer->setup_note().find("graph of 15 launches replayed 7 times per sample") != std::string::npos);
  CHECK(isobench::worker::make_cuda_timer(*inst.bench, full, device())->setup_note().find("replayed") ==
        std::string::npos);
  const Measurement m = timer->measure();
  CHECK(finite_positive(m));
  CHECK((m.sample.flags & isobench::ipc::flag_graph_fallback) == 0);

  const double full_s = median_seconds(*inst.bench, full, 11);
  const double chunked_s = median_seconds(*inst.bench, chunked, 11);
  const double full_again = median_seconds(*inst.bench, full, 11);
  const double chunked_again = median_seconds(*inst.bench, chunked, 11);
  const double ratio = (chunked_s + chunked_again) / (full_s + full_again);
  const double noise = std::abs(full_s - full_again) / ((full_s + full_again) / 2);
  std::printf("graph chunk 16 at inner 100: full %.3f/%.3f us, chunked %.3f/%.3f us, ratio %.4f\n", full_s * 1e6,
              full_again * 1e6, chunked_s * 1e6, chunked_again * 1e6, ratio);
  INFO("the full-graph medians disagree by " << noise * 100 << "%");
  CHECK(ratio > 0.98 - noise);
  CHECK(ratio < 1.02 + noise);
}

// A per-sample slowdown under chunking: one spin after the 7 replays, not one in each. The
// calibration would reach its target either way (it sizes the spin by what it measures), so the
// check is the note's own arithmetic: the spin's nanoseconds spread over the 105 launches are
// the measured extra per launch; a spin replayed 7 times would measure 7 times its share.
TEST_CASE("graph chunk: a per-sample slowdown spins once per sample, after the replays") {
  auto inst = make("cast", {{"n", 16 << 20}});
  TimerOptions base;
  base.inner = 100;
  base.timer = "graph";
  base.graph_chunk = 16;
  auto slowed = base;
  slowed.slowdown_pct = 10;
  auto timer = isobench::worker::make_cuda_timer(*inst.bench, slowed, device());
  const std::string note = timer->setup_note();
  INFO(note);
  CHECK(note.find("replayed 7 times per sample") != std::string::npos);
  const auto at = note.find("spin once per sample for ");
  REQUIRE(at != std::string::npos);
  double spin_ns = 0, extra_us = 0;
  REQUIRE(std::sscanf(note.c_str() + at, "spin once per sample for %lf ns; measured +%lf us per launch", &spin_ns,
                      &extra_us) == 2);
  const double share_us = spin_ns / 105 / 1e3;
  std::printf("graph chunk slowdown: spin %.0f ns per sample = %.4f us per launch, measured +%.4f us per launch\n",
              spin_ns, share_us, extra_us);
  CHECK(extra_us > 0.8 * share_us);
  CHECK(extra_us < 1.25 * share_us);

  const auto r = slowed_between_plains(*inst.bench, base, slowed, 11);
  std::printf("graph chunk slowdown 10%%: plain %.3f/%.3f us, slowed %.3f us, ratio %.4f\n", r.plain * 1e6,
              r.plain_again * 1e6, r.slow * 1e6, r.ratio);
  INFO("plain medians disagree by " << r.noise * 100 << "%");
  CHECK(r.ratio > 1.07 - r.noise);
  CHECK(r.ratio < 1.13 + r.noise);
}

TEST_CASE("a GEMM replays a recorded cuBLASLt algorithm exactly, and an explicit index wins") {
  const json shape = {{"m", 1024}, {"n", 1024}, {"k", 1024}, {"dtype", "bf16"}};
  auto first = make("gemm", shape);
  const json recorded = first.bench->describe();
  REQUIRE(recorded.contains("algo_blob"));
  CHECK(recorded["replayed"] == false);

  const auto* spec = isobench::kernels::find_kernel("gemm");
  Params params;
  REQUIRE(isobench::kernels::complete_params(*spec, shape, params).empty());
  SetupContext ctx{42, device().stream(), 1};
  ctx.replay = recorded;
  auto replayed = isobench::kernels::create_benchmark("gemm");
  replayed->setup(params, ctx);
  const json again = replayed->describe();
  CHECK(again["replayed"] == true);
  CHECK(again["algo_blob"] == recorded["algo_blob"]);
  CHECK(again["algo_id"] == recorded["algo_id"]);
  CHECK(again["tile_id"] == recorded["tile_id"]);
  replayed->launch();
  device().synchronize();
  CHECK(replayed->check().empty());

  if (recorded["heuristic_count"].get<int>() > 1) {
    params["algo"] = 1;  // an explicit index is the user's choice: the pin does not override it
    auto forced = isobench::kernels::create_benchmark("gemm");
    forced->setup(params, ctx);
    CHECK(forced->describe()["replayed"] == false);
    CHECK(forced->describe()["heuristic_index"] == 1);
  }

  json broken = recorded;
  broken["algo_blob"] = "zz";
  ctx.replay = broken;
  params["algo"] = -1;
  auto bad = isobench::kernels::create_benchmark("gemm");
  CHECK_THROWS_WITH_AS(bad->setup(params, ctx), doctest::Contains("algo_blob"), std::runtime_error);
}

namespace {

// A benchmark that cannot be captured: it synchronises its stream inside launch().
class Uncapturable final : public Benchmark {
 public:
  void setup(const Params&, const SetupContext& ctx) override {
    stream_ = static_cast<cudaStream_t>(ctx.cuda_stream);
    ISOBENCH_CUDA_CHECK(cudaMalloc(&buffer_, 1 << 20));
  }
  ~Uncapturable() override { cudaFree(buffer_); }
  void launch() override {
    ISOBENCH_CUDA_CHECK(cudaMemsetAsync(buffer_, 1, 1 << 20, stream_));
    ISOBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 private:
  cudaStream_t stream_ = nullptr;
  void* buffer_ = nullptr;
};

}  // namespace

TEST_CASE("a graph timer whose capture fails falls back to events and says so") {
  Uncapturable bench;
  bench.setup(json::object(), SetupContext{1, device().stream(), 1});
  TimerOptions options;
  options.inner = 4;
  options.timer = "graph";
  auto timer = isobench::worker::make_cuda_timer(bench, options, device());
  CHECK(timer->setup_note().find("graph capture failed") != std::string::npos);
  const Measurement m = timer->measure();
  CHECK(finite_positive(m));
  CHECK((m.sample.flags & isobench::ipc::flag_graph_fallback) != 0);
  CHECK(m.note.find("graph capture failed") != std::string::npos);
  // The stream is usable afterwards.
  check_agrees("cast", {{"n", 1000}});
}

int main(int argc, char** argv) {
  if (isobench::worker::cuda_device_count() == 0) {
    std::puts("no CUDA device: skipped");
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
