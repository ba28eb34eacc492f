// --record-kernels and the host enqueue time through the real orchestrate and workers on the CPU
// backend. CUPTI records CUDA kernels only: here every instance gets the reason instead of a
// record, per side, and the samples carry host_enqueue_s (for a CPU kernel, its wall time) and no
// kernel_gpu_s. The GPU side is checked by bench/gpu/record_kernels_check.sh on the H200.

#include <doctest/doctest.h>

#include <filesystem>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

constexpr const char* kSweep =
    "settings: {samples: 3, warmup: 1, inner: 4}\n"
    "benchmarks:\n"
    "  - kernel: cpu_spin\n"
    "    axes: {microseconds: [200, 400]}\n";

const char* kReason = "CUPTI records CUDA kernels only";

// Every journaled sample: a host time per launch that is the CPU kernel's own wall time.
void check_host_times(const std::vector<nlohmann::json>& samples, bool statistic_min) {
  for (const auto& x : samples) {
    INFO(x.dump());
    REQUIRE(x.contains("host_enqueue_s"));
    CHECK_FALSE(x.contains("kernel_gpu_s"));  // nothing was recorded on the GPU
    const double host = x["host_enqueue_s"].get<double>(), value = x["value"].get<double>();
    const double spin_s = x["instance"] == "cpu_spin[microseconds=200]" ? 200e-6 : 400e-6;
    CHECK(host >= spin_s);
    if (statistic_min) {
      CHECK(host >= value);  // the mean of the launches against the shortest one
    } else {
      CHECK(host == value);  // the same clock over the same launches
    }
  }
}

}  // namespace

TEST_CASE("--record-kernels on the CPU backend: kernels.json says why there are no records; the run goes on") {
  Scratch s("kernel-records");
  const auto sweep = s.write("sweep.yaml", kSweep);
  const Result r = run(bin("orchestrate") + " --device cpu --quiet --format none --record-kernels --out " +
                           s.path("run") + " " + sweep,
                       s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto plan = read_json(s.path("run/plan.json"));
  REQUIRE(plan["instances"].size() == 2);
  for (const auto& instance : plan["instances"]) CHECK(instance["record_kernels"] == true);
  CHECK(plan["settings"]["measure"]["record_kernels"] == true);

  const auto kernels = read_json(s.path("run/kernels.json"));
  CHECK(kernels["schema_version"] == 1);
  REQUIRE(kernels["instances"].size() == 2);
  for (const char* id : {"cpu_spin[microseconds=200]", "cpu_spin[microseconds=400]"}) {
    CAPTURE(id);
    REQUIRE(kernels["instances"].contains(id));
    const auto& sides = kernels["instances"][id];
    REQUIRE(sides.size() == 1);
    CHECK(sides[0] == nlohmann::json{{"reason", kReason}});
  }
  const auto samples = read_jsonl(s.path("run/samples.jsonl"));
  CHECK(samples.size() == 6);
  check_host_times(samples, false);
}

TEST_CASE("without --record-kernels there is no kernels.json, and host_enqueue_s is journaled anyway") {
  Scratch s("kernel-records-off");
  const auto sweep = s.write("sweep.yaml", kSweep);
  const Result r = run(bin("orchestrate") + " --device cpu --quiet --format none --statistic min --out " +
                           s.path("run") + " " + sweep,
                       s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(s.path("run/kernels.json")));
  CHECK(read_json(s.path("run/plan.json"))["instances"][0]["record_kernels"] == false);
  const auto samples = read_jsonl(s.path("run/samples.jsonl"));
  CHECK(samples.size() == 6);
  check_host_times(samples, true);
}

TEST_CASE("ab --record-kernels: each side's workers write their own side's entry") {
  Scratch s("kernel-records-ab");
  const auto sweep = s.write("sweep.yaml", "settings: {samples: 2, warmup: 0, inner: 2}\n"
                                           "benchmarks:\n  - kernel: cpu_spin\n    axes: {microseconds: 100}\n");
  const Result r = run(bin("orchestrate") + " ab --device cpu --quiet --format json --fail-on never --record-kernels --baseline " +
                           bin("isobench-worker") + " --candidate " + bin("isobench-worker") + " --out " +
                           s.path("run") + " " + sweep,
                       s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto kernels = read_json(s.path("run/kernels.json"));
  const auto& sides = kernels["instances"]["cpu_spin[microseconds=100]"];
  // Side 1 is filled only by a worker that knows it is the candidate: the lane tells it.
  REQUIRE(sides.size() == 2);
  CHECK(sides[0] == nlohmann::json{{"reason", kReason}});
  CHECK(sides[1] == nlohmann::json{{"reason", kReason}});
  // No side has kernels, so the verdicts come without a kernel listing.
  const auto verdicts = nlohmann::json::parse(r.out);
  CHECK_FALSE(verdicts.contains("kernels"));
  CHECK_FALSE(verdicts["instances"][0].contains("kernels_differ"));
}

TEST_CASE("a command benchmark: no record, and its host time is unknown (0)") {
  Scratch s("kernel-records-command");
  const auto program = s.write("bench.py", "import json\nprint(json.dumps({\"isobench\": 1, \"value\": 2e-3}))\n");
  const auto sweep = s.write("sweep.yaml", "settings: {samples: 2}\nbenchmarks:\n  - command: [python3, " +
                                               program + "]\n    name: py\n");
  const Result r = run(bin("orchestrate") + " --device cpu --quiet --format none --record-kernels --out " +
                           s.path("run") + " " + sweep,
                       s);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto kernels = read_json(s.path("run/kernels.json"));
  REQUIRE(kernels["instances"].size() == 1);
  CHECK(kernels["instances"].begin().value()[0] == nlohmann::json{{"reason", kReason}});
  for (const auto& x : read_jsonl(s.path("run/samples.jsonl"))) {
    CHECK(x["value"] == 2e-3);
    CHECK(x["host_enqueue_s"] == 0.0);
  }
}
