// The per-iteration accounting, its records' checks and the trace of one iteration, on recorded
// CUPTI-like streams (tests/data/activity/). Every expected number below is derived by hand from
// three_iterations.json, whose iterations are alike: per iteration (offsets from its start, ns)
//   API   cudaMemcpyAsync 0-10, cudaLaunchKernel 10-15 and 15-20, cuLaunchKernel 20-25,
//         cudaStreamSynchronize 25-95 (its sync record 26-94)
//   GPU   memcpy HtoD 4096 B 20-30, gemm 30-80, add_bias 80-90 (stream 7), triton_softmax 40-60
//         (stream 13, inside the gemm)
// window 0-100. Before the iterations a start-up launch (warmup_kernel), after them a device
// synchronise: both belong to no iteration.

#include "worker/activity_records.hpp"
#include "worker/iteration_accounting.hpp"
#include "worker/iteration_trace.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

using namespace isobench::worker;
using nlohmann::json;

namespace {

json stream_json(const std::string& name) {
  const char* root = std::getenv("ISOBENCH_SOURCE_DIR");
  REQUIRE(root != nullptr);
  std::ifstream in(std::string(root) + "/tests/data/activity/" + name);
  REQUIRE(in.good());
  return json::parse(in);
}

ActivityRecords three_iterations() { return read_activity_records(stream_json("three_iterations.json"), "three_iterations.json"); }

// The message read_activity_records gives for a stream that `mutate` damaged.
std::string rejection(void (*mutate)(json&)) {
  json stream = stream_json("three_iterations.json");
  mutate(stream);
  try {
    read_activity_records(stream, "bad.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("an iteration's GPU time is the union of its GPU intervals, host enqueue its window less the waits") {
  const IterationAccounting acc = account_iterations(three_iterations());
  CHECK(acc.iterations == 3);
  CHECK(acc.gpu_ns == doctest::Approx(70));  // 20-90: the softmax inside the gemm counts once
  CHECK(acc.host_window_ns == doctest::Approx(100));
  CHECK(acc.synchronization_wait_ns == doctest::Approx(68));
  CHECK(acc.host_enqueue_ns == doctest::Approx(32));
  CHECK(acc.kernel_launches == doctest::Approx(3));  // warmup_kernel is start-up
  CHECK(acc.kernel_launches_min == 3);
  CHECK(acc.kernel_launches_max == 3);
  CHECK(acc.api_calls == doctest::Approx(5));  // cudaMalloc and cudaDeviceSynchronize are outside
  CHECK(acc.synchronizations == doctest::Approx(1));
  REQUIRE(acc.memcpys.size() == 1);
  CHECK(acc.memcpys.at("HtoD") == doctest::Approx(1));
  CHECK(acc.memcpy_bytes.at("HtoD") == doctest::Approx(4096));
  CHECK(acc.launch_calls == 9);  // cudaLaunchKernel twice, cuLaunchKernel once, per iteration
  CHECK(acc.median_launch_ns == 5);
  CHECK_FALSE(acc.host_bound);  // 32 of 70 ns
  CHECK_FALSE(acc.blocking_launch);
  const json j = acc.to_json();
  CHECK(j["host_enqueue_share"].get<double>() == doctest::Approx(32.0 / 70));
  CHECK(j["memcpys"]["HtoD"]["count"].get<double>() == doctest::Approx(1));
  CHECK_FALSE(j.contains("flags"));
}

TEST_CASE("the pass's record: the iterations' kernels, demangled, top GPU time first, and the accounting") {
  const KernelRecord k = pass_record(three_iterations());
  CHECK(k.inner == 3);
  CHECK(k.kernel_launches == 9);
  CHECK(k.total_ns == 240);
  REQUIRE(k.kernels.size() == 3);
  CHECK(k.kernels[0].name == "gemm(float const*, float const*, float*, int, int, int)");
  CHECK(k.kernels[0].launches == 3);
  CHECK(k.kernels[0].total_ns == 150);
  CHECK(k.kernels[0].share == doctest::Approx(0.625));
  CHECK(k.kernels[0].grid == std::array<std::int32_t, 3>{64, 1, 1});
  CHECK(k.kernels[0].block == std::array<std::int32_t, 3>{256, 1, 1});
  CHECK(k.kernels[1].name == "triton_softmax");
  CHECK(k.kernels[1].share == doctest::Approx(0.25));
  CHECK(k.kernels[2].name == "add_bias");
  CHECK(k.kernels[2].total_ns == 30);
  REQUIRE(k.iteration.is_object());
  CHECK(k.iteration["gpu_ns"].get<double>() == doctest::Approx(70));
  const json encoded = json::parse(encode_kernel_record(k, 8192));
  CHECK(encoded["iteration"]["kernel_launches"].get<double>() == doctest::Approx(3));
  CHECK(encoded["kernels_per_launch"].get<double>() == doctest::Approx(3));
}

TEST_CASE("records that fail their check still give every kernel of the pass, and the reason") {
  ActivityRecords r = three_iterations();
  r.gpu[2].correlation_id = 999;  // the first gemm lost its API call
  KernelRecord k = pass_record(r);
  CHECK(k.kernel_launches == 10);  // warmup_kernel too: without correlation nothing says it is start-up
  CHECK(k.iteration["reason"].get<std::string>() ==
        "the activity records are inconsistent: gpu[2] (kernel): correlation id 999 matches no API call");
  k = pass_record(three_iterations(), "cuptiActivityEnable(SYNCHRONIZATION) failed: not supported");
  CHECK(k.kernel_launches == 10);
  CHECK(k.iteration["reason"].get<std::string>() == "cuptiActivityEnable(SYNCHRONIZATION) failed: not supported");
}

TEST_CASE("host-bound when enqueuing takes at least half the GPU time") {
  ActivityRecords r = three_iterations();
  r.synchronizations.clear();  // the host never waits: its whole window is enqueue time, 100 of 70 ns
  const IterationAccounting acc = account_iterations(r);
  CHECK(acc.host_enqueue_ns == doctest::Approx(100));
  CHECK(acc.host_bound);
  const json j = acc.to_json();
  REQUIRE(j.contains("flags"));
  CHECK(j["flags"][0].get<std::string>() == "host-bound: enqueuing an iteration takes 143% of its GPU time");

  // 66 ns of waiting leave 34 ns of enqueue, under half of 70: not host-bound; 65 leave 35, half.
  r = three_iterations();
  for (auto& s : r.synchronizations) s.end_ns = s.start_ns + 66;
  CHECK_FALSE(account_iterations(r).host_bound);
  for (auto& s : r.synchronizations) s.end_ns = s.start_ns + 65;  // enqueue 35 = half of 70
  CHECK(account_iterations(r).host_bound);
}

TEST_CASE("a blocking launch is one launch call far longer than the median and than 100 us") {
  ActivityRecords r = three_iterations();
  for (auto& a : r.api_calls)
    if (a.correlation_id == 22) a.end_ns = a.start_ns + 5'000'000;  // 5 ms in iteration 1's first cudaLaunchKernel
  IterationAccounting acc = account_iterations(r);
  CHECK(acc.blocking_launch);
  CHECK(acc.longest_launch_ns == 5'000'000);
  CHECK(acc.longest_launch_name == "cudaLaunchKernel");
  CHECK(acc.median_launch_ns == 5);
  const json j = acc.to_json();
  REQUIRE(j.contains("flags"));
  CHECK(j["flags"].back().get<std::string>() ==
        "blocking launch: one cudaLaunchKernel took 5000.0 us against a median of 0.0 us (a full stream buffer?)");

  for (auto& a : r.api_calls)
    if (a.correlation_id == 22) a.end_ns = a.start_ns + 90'000;  // 18000 times the median, under the floor
  CHECK_FALSE(account_iterations(r).blocking_launch);
  // Above the floor but within 50 times the median: every launch is slow, none blocks.
  for (auto& a : r.api_calls)
    if (a.name.find("Launch") != std::string::npos) a.end_ns = a.start_ns + 200'000;
  for (auto& a : r.api_calls)
    if (a.correlation_id == 22) a.end_ns = a.start_ns + 1'000'000;
  acc = account_iterations(r);
  CHECK(acc.median_launch_ns == 200'000);
  CHECK_FALSE(acc.blocking_launch);
}

TEST_CASE("iterations with different launch counts say so") {
  ActivityRecords r = three_iterations();
  std::erase_if(r.gpu, [](const GpuActivity& g) { return g.correlation_id == 33; });  // iteration 2's softmax
  const IterationAccounting acc = account_iterations(r);
  CHECK(acc.kernel_launches == doctest::Approx(8.0 / 3));
  CHECK(acc.kernel_launches_min == 2);
  CHECK(acc.kernel_launches_max == 3);
  CHECK(acc.to_json()["flags"][0].get<std::string>() == "iterations differ: 2 to 3 kernel launches");
}

TEST_CASE("a graph launch: one API call, many kernels under its correlation id, one arrow each") {
  // Two iterations, each one cudaGraphLaunch (10 us) whose graph runs a memset and two kernels.
  ActivityRecords r;
  for (std::uint32_t i = 0; i < 2; ++i) {
    const std::uint64_t b = 1'000'000 * (i + 1);
    const std::uint32_t c = 100 + i;
    r.iterations.push_back({b, b + 20'000});
    r.api_calls.push_back({"cudaGraphLaunch", false, b, b + 10'000, 3, c});
    GpuActivity memset;
    memset.kind = GpuActivity::Kind::memset;
    memset.bytes = 1 << 20;
    memset.stream_id = 9;
    memset.start_ns = b + 12'000;
    memset.end_ns = b + 13'000;
    memset.correlation_id = c;
    r.gpu.push_back(memset);
    for (std::uint64_t k = 0; k < 2; ++k) {
      GpuActivity kernel;
      kernel.name = k == 0 ? "layer_norm" : "gemm";
      kernel.grid = {132, 1, 1};
      kernel.block = {256, 1, 1};
      kernel.stream_id = 9;
      kernel.start_ns = b + 13'000 + k * 100'000;
      kernel.end_ns = kernel.start_ns + 100'000;
      kernel.correlation_id = c;
      r.gpu.push_back(kernel);
    }
  }
  const IterationAccounting acc = account_iterations(r);
  CHECK(acc.kernel_launches == doctest::Approx(2));
  CHECK(acc.memsets == doctest::Approx(1));
  CHECK(acc.launch_calls == 2);
  CHECK(acc.gpu_ns == doctest::Approx(201'000));  // the memset, then the two kernels back to back
  CHECK(acc.host_enqueue_ns == doctest::Approx(20'000));
  CHECK_FALSE(acc.host_bound);  // 20 of 201 us

  const json trace = iteration_trace(r, 1, "graph");
  std::map<std::string, int> by_phase;
  std::set<std::uint64_t> flow_ids;
  for (const auto& e : trace["traceEvents"]) {
    ++by_phase[e["ph"].get<std::string>()];
    if (e["ph"] == "s") flow_ids.insert(e["id"].get<std::uint64_t>());
  }
  CHECK(by_phase["s"] == 3);
  CHECK(by_phase["f"] == 3);
  CHECK(flow_ids.size() == 3);  // one arrow per GPU activity, though they share a correlation id
}

TEST_CASE("bad records are rejected with the record, the field and what is wrong") {
  CHECK(rejection([](json& s) { s["gpu"][2]["end_ns"] = 0; }) ==
        "bad.json: gpu[2] (kernel): end_ns 0 is before start_ns 1030");
  CHECK(rejection([](json& s) { s["gpu"][1]["correlation_id"] = 999; }) ==
        "bad.json: gpu[1] (memcpy): correlation id 999 matches no API call");
  CHECK(rejection([](json& s) { s["api"][3]["correlation_id"] = 10; }) ==
        "bad.json: api[3] (cudaLaunchKernel): correlation id 10 is also api[2]'s");
  CHECK(rejection([](json& s) { s["gpu"][1]["copy_kind"] = "sideways"; }) ==
        "bad.json: gpu[1] (memcpy): unknown copy kind 'sideways' (HtoD, DtoH, DtoD, HtoH, PtoP, HtoA, AtoH, AtoA, "
        "AtoD, DtoA, unknown)");
  CHECK(rejection([](json& s) { s["gpu"][2]["grid"] = json::array({0, 1, 1}); }) ==
        "bad.json: gpu[2] (kernel) _Z4gemmPKfS0_Pfiii: a grid or block dimension is not positive");
  CHECK(rejection([](json& s) { s["gpu"][2].erase("block"); }) == "bad.json: gpu[2]: no field 'block'");
  CHECK(rejection([](json& s) { s["gpu"][2]["start_ns"] = -4; }) ==
        "bad.json: gpu[2].start_ns: not a non-negative integer (-4)");
  CHECK(rejection([](json& s) { s["gpu"][2]["kind"] = "graph"; }) ==
        "bad.json: gpu[2].kind: 'graph' is not kernel, memcpy or memset");
  CHECK(rejection([](json& s) { s["api"][0]["domain"] = "nvtx"; }) ==
        "bad.json: api[0].domain: 'nvtx' is neither runtime nor driver");
  CHECK(rejection([](json& s) { s["synchronizations"][0]["type"] = "barrier"; }) ==
        "bad.json: synchronizations[0]: unknown type 'barrier' (event, stream_wait_event, stream, context, unknown)");
  CHECK(rejection([](json& s) { s["iterations"][1]["begin_ns"] = 1050; }) ==
        "bad.json: iterations[1]: begins at 1050, before iteration 0 ends (1100)");
  CHECK(rejection([](json& s) { s["iterations"] = json::array(); }) == "bad.json: iterations: none recorded");
  CHECK(rejection([](json& s) { s["gpu"] = 3; }) == "bad.json: 'gpu' is not an array");
  // Records built in the worker go through the same check.
  ActivityRecords r = three_iterations();
  r.api_calls[4].end_ns = r.api_calls[4].start_ns - 1;
  CHECK_THROWS_WITH_AS(account_iterations(r), "api[4] (cudaLaunchKernel): end_ns 1014 is before start_ns 1015",
                       std::invalid_argument);
}

TEST_CASE("the trace holds exactly one iteration, its API calls and GPU work joined by flow arrows") {
  const ActivityRecords records = three_iterations();
  const json trace = iteration_trace(records, 1, "model step, side 0");
  const json& events = trace["traceEvents"];
  std::map<std::string, int> by_phase;
  int iteration_slices = 0, kernels = 0;
  std::map<std::uint64_t, int> flow_ends;
  for (const auto& e : events) {
    ++by_phase[e["ph"].get<std::string>()];
    if (e["ph"] == "X" && e["cat"] == "iteration") ++iteration_slices;
    if (e["ph"] == "X" && e["cat"] == "kernel") ++kernels;
    if (e["ph"] == "X") {
      CHECK(e["ts"].get<double>() >= 0);
      CHECK(e["ts"].get<double>() <= 0.1);  // all of it inside iteration 1's 100 ns
      CHECK(e["name"] != "warmup_kernel");
      CHECK(e["name"] != "cudaDeviceSynchronize");
    }
    if (e["ph"] == "s") ++flow_ends[e["id"].get<std::uint64_t>()];
    if (e["ph"] == "f") {
      CHECK(e["bp"] == "e");
      ++flow_ends[e["id"].get<std::uint64_t>()];
    }
  }
  CHECK(iteration_slices == 1);
  CHECK(kernels == 3);
  CHECK(by_phase["X"] == 1 + 5 + 4 + 1);  // the iteration, its API calls, its GPU work, its sync
  CHECK(by_phase["s"] == 4);
  CHECK(by_phase["f"] == 4);
  CHECK(by_phase["M"] == 6);  // host, GPU, the iteration's track, thread 7, streams 7 and 13
  for (const auto& [id, ends] : flow_ends) CHECK_MESSAGE(ends == 2, "flow " << id);
  // The gemm's arrow starts at its cudaLaunchKernel (10 ns in) and ends at the kernel (30 ns in).
  for (const auto& e : events)
    if (e["ph"] == "X" && e["cat"] == "kernel" && e["name"].get<std::string>().rfind("gemm(", 0) == 0) {
      CHECK(e["ts"].get<double>() == doctest::Approx(0.030));
      CHECK(e["dur"].get<double>() == doctest::Approx(0.050));
      CHECK(e["tid"] == 7);
      CHECK(e["args"]["correlation_id"] == 21);
    }
  CHECK(trace["otherData"]["iteration"] == 1);
  CHECK_THROWS_AS(iteration_trace(records, 3, "x"), std::invalid_argument);

  // CI checks the trace against the format's schema (tests/worker/check_trace_schema.py): this
  // suite writes it where that test reads it.
  if (const char* out = std::getenv("ISOBENCH_TRACE_SAMPLE")) {
    std::ofstream file(out);
    file << trace.dump(1) << "\n";
    REQUIRE(file.good());
  }
}
