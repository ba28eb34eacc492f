// The CUPTI kernel recorder and the CUDA timer's host enqueue time on a real GPU (label gpu; run
// on the H200 by the lead). Without a CUDA device the suite exits 77 (ctest: skipped).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "kernels/benchmark.hpp"
#include "kernels/catalog.hpp"
#include "worker/cuda/cuda_device.hpp"
#include "worker/cuda/cuda_timer.hpp"
#include "worker/cuda/kernel_recorder.hpp"
#include "worker/iteration_accounting.hpp"
#include "worker/kernel_record.hpp"

using namespace isobench::worker;
using isobench::kernels::Benchmark;
using isobench::kernels::Params;
using isobench::kernels::SetupContext;
using nlohmann::json;

namespace {

CudaDevice& device() {
  static CudaDevice d(0);
  return d;
}

std::unique_ptr<Benchmark> make(const std::string& kernel, const json& given) {
  const auto* spec = isobench::kernels::find_kernel(kernel);
  REQUIRE(spec != nullptr);
  Params params;
  const auto problem = isobench::kernels::complete_params(*spec, given, params);
  REQUIRE_MESSAGE(problem.empty(), problem);
  auto bench = isobench::kernels::create_benchmark(kernel);
  REQUIRE(bench != nullptr);
  bench->setup(params, SetupContext{42, device().stream(), 1});
  bench->launch();  // module loading stays out of the pass, as after a worker's warm-up
  device().synchronize();
  return bench;
}

// One pass of `inner` launches with recording on, as the worker runs it.
KernelRecord record(KernelRecorder& recorder, Benchmark& bench, std::uint32_t inner) {
  const KernelCapture capture = recorder.record(inner, [&] { bench.launch(); }, [&] { device().synchronize(); });
  REQUIRE_MESSAGE(capture.failure.empty(), capture.failure);
  CHECK(capture.records.dropped_records == 0);
  CHECK_MESSAGE(capture.accounting_failure.empty(), capture.accounting_failure);
  KernelRecord r = pass_record(capture.records, capture.accounting_failure);
  r.recorder = capture.recorder;
  // Every kernel has its launch call among the API records, so the accounting was made and counts
  // the same kernels per iteration as the table.
  REQUIRE_MESSAGE(!r.iteration.contains("reason"), r.iteration.dump());
  CHECK(r.iteration["kernel_launches"].get<double>() == doctest::Approx(r.kernels_per_launch()));
  CHECK(r.iteration["gpu_ns"].get<double>() > 0);
  MESSAGE(encode_kernel_record(r, 8192));
  return r;
}

}  // namespace

TEST_CASE("CUPTI loads and records a cast: one kernel per launch, its GPU time, a readable name") {
  KernelRecorder recorder;
  REQUIRE_MESSAGE(recorder.unavailable_reason().empty(), recorder.unavailable_reason());
  auto cast = make("cast", {{"n", 1 << 24}});
  const KernelRecord r = record(recorder, *cast, 20);
  CHECK(r.kernel_launches == 20);
  CHECK(r.kernels_per_launch() == doctest::Approx(1.0));
  REQUIRE(r.kernels.size() == 1);
  CHECK(r.kernels[0].launches == 20);
  CHECK(r.kernels[0].share == doctest::Approx(1.0));
  CHECK(r.kernels[0].name.find("cast") != std::string::npos);  // demangled, not _Z...
  CHECK(r.kernels[0].name.rfind("_Z", 0) != 0);
  CHECK(r.kernels[0].grid[0] > 0);
  CHECK(r.kernels[0].block[0] > 0);
  // 16M fp32 -> bf16 is 96 MB of traffic: tens of microseconds at H200 bandwidth, never a second.
  CHECK(r.kernel_gpu_s_per_launch() > 1e-6);
  CHECK(r.kernel_gpu_s_per_launch() < 1e-2);
  CHECK(r.recorder.find("CUPTI API") == 0);
}

TEST_CASE("a GEMM and both grouped GEMMs: the cuBLAS kernels they run, per launch") {
  KernelRecorder recorder;
  REQUIRE_MESSAGE(recorder.unavailable_reason().empty(), recorder.unavailable_reason());
  auto gemm = make("gemm", {{"m", 1024}, {"n", 1024}, {"k", 1024}});
  const KernelRecord g = record(recorder, *gemm, 10);
  CHECK(g.kernels_per_launch() >= 1.0);
  REQUIRE_FALSE(g.kernels.empty());
  CHECK(g.kernels[0].launches >= 10);
  auto looped = make("grouped_gemm", {{"groups", 4}, {"m_per_group", 256}, {"n", 512}, {"k", 512}, {"impl", "lt_loop"}});
  const KernelRecord l = record(recorder, *looped, 5);
  CHECK(l.kernels_per_launch() >= 4.0);  // one cuBLASLt matmul per expert
  auto batched = make("grouped_gemm",
                      {{"groups", 4}, {"m_per_group", 256}, {"n", 512}, {"k", 512}, {"impl", "grouped_batched"}});
  const KernelRecord b = record(recorder, *batched, 5);
  CHECK(b.kernels_per_launch() >= 1.0);
}

TEST_CASE("after the recorder is gone (CUPTI detached) timing works, and a new recorder records again") {
  auto cast = make("cast", {{"n", 1 << 20}});
  {
    KernelRecorder recorder;
    REQUIRE(recorder.unavailable_reason().empty());
    CHECK(record(recorder, *cast, 5).kernel_launches == 5);
  }
  TimerOptions options;
  options.inner = 50;
  auto timer = make_cuda_timer(*cast, options, device());
  const Measurement m = timer->measure();
  CHECK(std::isfinite(m.sample.value_s));
  CHECK(m.sample.value_s > 0);
  // Host enqueue time: the launch calls, per launch; positive, and far below a millisecond.
  CHECK(m.sample.host_enqueue_s > 0);
  CHECK(m.sample.host_enqueue_s < 1e-3);
  KernelRecorder again;
  REQUIRE(again.unavailable_reason().empty());
  CHECK(record(again, *cast, 7).kernel_launches == 7);
}

int main(int argc, char** argv) {
  if (cuda_device_count() == 0) {
    std::puts("no CUDA device: skipped");
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
