// --gpus: one schedule per GPU, all at once. On this machine's CPU kernels the "GPUs" are only
// device indices handed to the workers, which is all the orchestrator's side of --gpus is: the
// plan deals the instances, one pipeline per GPU runs concurrently, every worker is told its GPU,
// and every sample is journaled with it; failures and resumes stay on the instance's GPU.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

// Per batch: a worker measures its GPU's two instances per round, 2 x 5 x 2-3 ms: long enough
// that the two pipelines' workers measure at the same time.
const char* kSweep = R"(settings: {samples: 6, warmup: 1, inner: 5, seed: 4, isolation: process, per: batch}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [2000, 2500, 3000, 3500]}
)";

struct Phase {
  int gpu;
  std::uint64_t begin, end;
};

std::vector<Phase> measuring_phases(const Scratch& s) {
  std::vector<Phase> out;
  for (const auto& w : read_jsonl(s.path("run/samples.jsonl"), "worker"))
    if (w["ok"].get<bool>() && w["what"] == "measure")
      out.push_back({w["gpu"].get<int>(), w["measure_begin_ns"].get<std::uint64_t>(),
                     w["measure_end_ns"].get<std::uint64_t>()});
  return out;
}

// Every sample was journaled with the GPU its instance is planned on.
void check_samples_on_their_gpus(const Scratch& s, std::size_t expected) {
  const auto plan = read_json(s.path("run/plan.json"));
  const auto samples = read_jsonl(s.path("run/samples.jsonl"));
  CHECK(samples.size() == expected);
  std::set<std::uint32_t> slots;
  for (const auto& x : samples) {
    const auto i = x["instance_index"].get<std::size_t>();
    CHECK(x["gpu"] == plan["instances"][i]["gpu"]);
    CHECK(slots.insert(x["slot"].get<std::uint32_t>()).second);
  }
}

// A worker wrapper that appends the --device it was given to a file, then becomes the worker.
std::string recording_worker(const Scratch& s) {
  const auto script = s.write("worker.sh", "#!/bin/sh\nprev=\n"
                                           "for a in \"$@\"; do [ \"$prev\" = --device ] && echo \"$a\" >> " +
                                               s.path("devices.txt") + "; prev=\"$a\"; done\n"
                                               "exec " + bin("isobench-worker") + " \"$@\"\n");
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  return script;
}

}  // namespace

TEST_CASE("--gpus 0,1: each GPU's schedule runs at once, workers told their GPU, samples journaled with it") {
  Scratch s("gpus-two");
  const auto sweep = s.write("g.yaml", kSweep);
  const auto r = run(bin("orchestrate") + " --device cpu --quiet --gpus 0,1 --out " + s.path("run") + " " + sweep, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto plan = read_json(s.path("run/plan.json"));
  CHECK(plan["gpus"] == nlohmann::json::array({0, 1}));
  std::vector<int> gpus;
  for (const auto& p : plan["instances"]) gpus.push_back(p["gpu"].get<int>());
  CHECK(gpus == std::vector<int>{0, 1, 0, 1});
  check_samples_on_their_gpus(s, 24);
  CHECK(read_json(s.path("run/run.json"))["gpus"] == nlohmann::json::array({0, 1}));

  // One GPU measures one worker at a time; the two GPUs measure at the same time.
  const auto phases = measuring_phases(s);
  REQUIRE(phases.size() == 12);  // 6 rounds on each GPU
  int beside_other_gpu = 0;
  for (std::size_t a = 0; a < phases.size(); ++a)
    for (std::size_t b = a + 1; b < phases.size(); ++b) {
      const bool overlap = phases[a].begin < phases[b].end && phases[b].begin < phases[a].end;
      if (phases[a].gpu == phases[b].gpu)
        CHECK_FALSE(overlap);
      else
        beside_other_gpu += overlap ? 1 : 0;
    }
  CHECK(beside_other_gpu > 0);

  // The summary names each instance's GPU.
  const auto summary = read_json(s.path("run/summary.json"));
  REQUIRE(summary["instances"].size() == 4);
  for (const auto& row : summary["instances"]) CHECK(row.contains("gpu"));
}

TEST_CASE("--gpus: every worker is started with --device of its GPU") {
  Scratch s("gpus-device");
  const auto sweep = s.write("g.yaml", kSweep);
  const auto r = run(bin("orchestrate") + " --device cpu --quiet --gpus 3,1 --samples 3 --worker " +
                         recording_worker(s) + " --out " + s.path("run") + " " + sweep,
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::map<std::string, int> told;
  std::istringstream devices(slurp(s.path("devices.txt")));
  for (std::string d; std::getline(devices, d);) ++told[d];
  std::map<std::string, int> journaled;
  for (const auto& w : read_jsonl(s.path("run/samples.jsonl"), "worker")) ++journaled[std::to_string(w["gpu"].get<int>())];
  CHECK(told == journaled);
  CHECK(told.size() == 2);
  CHECK(told.count("3") == 1);
  CHECK(told.count("1") == 1);
  check_samples_on_their_gpus(s, 12);
}

TEST_CASE("--gpus 0 plans and journals what --gpu 0 does") {
  Scratch s("gpus-one");
  const auto sweep = s.write("g.yaml", kSweep);
  const std::string common = bin("orchestrate") + " --device cpu --quiet --samples 3 --format none ";
  REQUIRE(run(common + "--gpus 0 --out " + s.path("run") + " " + sweep, s).exit_code == 0);
  REQUIRE(run(common + "--out " + s.path("plain") + " " + sweep, s).exit_code == 0);
  CHECK(read_json(s.path("run/plan.json"))["schedule"] == read_json(s.path("plain/plan.json"))["schedule"]);
  check_samples_on_their_gpus(s, 12);
  for (const auto& x : read_jsonl(s.path("plain/samples.jsonl"))) CHECK(x["gpu"] == 0);
}

TEST_CASE("--gpus: a worker that crashes is retried on its GPU while the other GPU goes on") {
  Scratch s("gpus-fault");
  const auto sweep = s.write("g.yaml", kSweep);
  const auto r = run("ISOBENCH_TEST_FAULT=segv-after:1 ISOBENCH_TEST_FAULT_ONCE=" + s.path("marker") + " " +
                         bin("orchestrate") + " --device cpu --quiet --gpus 0,1 --worker " +
                         bin("isobench-fault-worker") + " --out " + s.path("run") + " " + sweep,
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto failures = read_jsonl(s.path("run/samples.jsonl"), "worker_failure");
  CHECK(failures.size() == 1);
  check_samples_on_their_gpus(s, 24);
}

TEST_CASE("--gpus: a resumed run measures its missing samples on the GPUs its plan names") {
  Scratch s("gpus-resume");
  const auto sweep = s.write("g.yaml", kSweep);
  REQUIRE(run(bin("orchestrate") + " --device cpu --quiet --format none --gpus 0,1 --out " + s.path("run") + " " + sweep,
              s)
              .exit_code == 0);
  // Keep the first 10 samples (and no later events), as an interrupted run would have them.
  std::istringstream in(slurp(s.path("run/samples.jsonl")));
  std::string kept;
  int samples = 0;
  for (std::string line; std::getline(in, line) && samples < 10;) {
    if (nlohmann::json::parse(line).value("type", "sample") == "sample") ++samples;
    kept += line + "\n";
  }
  s.write("run/samples.jsonl", kept);
  auto info = read_json(s.path("run/run.json"));
  info["status"] = "interrupted";
  s.write("run/run.json", info.dump());

  const auto refused = run(bin("orchestrate") + " --quiet --gpus 1 --resume " + s.path("run"), s);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("--gpu and --gpus are not taken") != std::string::npos);

  const auto r = run(bin("orchestrate") + " --quiet --format none --resume " + s.path("run"), s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  check_samples_on_their_gpus(s, 24);
}

TEST_CASE("--gpus: a note on memory groups only when memory split a GPU's instances, not for the GPUs") {
  Scratch s("gpus-note");
  const auto spin = s.write("g.yaml", kSweep);
  auto r = run(bin("orchestrate") + " --device cpu --format none --gpus 0,1 --samples 2 --out " + s.path("spin") + " " +
                   spin,
               s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("note: --gpus with the CPU kernels runs 2 schedules at once") != std::string::npos);
  CHECK_MESSAGE(r.err.find("do not fit") == std::string::npos, r.err);
  // cpu_copy holds 2 x 4 MiB an instance: GPU 0's three take 24 MiB, more than a 20 MiB budget.
  const auto copy = s.write("copy.yaml", R"(settings: {samples: 2, warmup: 0, inner: 2}
benchmarks:
  - kernel: cpu_copy
    axes: {bytes: [4194304, 4194305, 4194306, 4194307, 4194308]}
)");
  r = run(bin("orchestrate") + " --device cpu --format none --gpus 0,1 --memory-budget 20 --out " + s.path("copy") +
              " " + copy,
          s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK_MESSAGE(r.err.find("note: the instances do not fit in device memory at once (budget 20 MiB): a GPU runs "
                           "its instances in up to 2 groups, one after another") != std::string::npos,
                r.err);
}

TEST_CASE("--gpus: bad lists and combinations get one line and exit 2, and leave no run directory") {
  Scratch s("gpus-bad");
  const auto sweep = s.write("g.yaml", kSweep);
  const std::map<std::string, std::string> cases = {
      {"--gpus 0,0", "GPU 0 is listed twice"},
      {"--gpus 0,x", "'x' is not a GPU index"},
      {"--gpus 0,", "'' is not a GPU index"},
      {"--gpus=-1", "'-1' is not a GPU index"},
      {"--gpus 0,1 --gpu 1", "--gpu and --gpus: give one of them"},
  };
  for (const auto& [flags, message] : cases) {
    CAPTURE(flags);
    const auto r = run(bin("orchestrate") + " --device cpu --quiet " + flags + " --out " + s.path("run") + " " + sweep, s);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(message) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(s.path("run")));
  }
  // A multi-rank instance takes a GPU per rank already: it is not spread.
  const auto ranks = s.write("ranks.yaml", R"(settings: {samples: 2, inner: 1}
benchmarks:
  - kernel: cpu_allgather_matmul
    axes: {m: [48], k: [32], n: [32], ranks: [2]}
)");
  const auto r = run(bin("orchestrate") + " --device cpu --quiet --gpus 0,1 --out " + s.path("run") + " " + ranks, s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("has ranks 2: --gpus spreads single-GPU instances") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(s.path("run")));
}

TEST_CASE("ab --gpus 0,1: both sides of an instance are measured on its GPU") {
  Scratch s("gpus-ab");
  const auto sweep = s.write("g.yaml", kSweep);
  const auto r = run(bin("orchestrate") + " ab --device cpu --quiet --format none --fail-on never --gpus 0,1 --samples 3 --baseline " +
                         bin("isobench-worker") + " --candidate " + bin("isobench-worker") + " --out " + s.path("run") +
                         " " + sweep,
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  check_samples_on_their_gpus(s, 4 * 3 * 2);
  std::map<std::size_t, std::set<std::uint32_t>> sides;
  for (const auto& x : read_jsonl(s.path("run/samples.jsonl")))
    sides[x["instance_index"].get<std::size_t>()].insert(x["side"].get<std::uint32_t>());
  for (const auto& [instance, seen] : sides) CHECK(seen == std::set<std::uint32_t>{0, 1});
}
