// Pre-started workers: started ahead, released one at a time in plan order, never two measuring
// at once; one that dies before its release is replaced without losing or repeating a sample.
// The context gate: no worker creates its context or exits beside another's measurement.

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

const char* kSweep = R"(settings: {samples: 6, warmup: 1, inner: 5, seed: 8}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [200, 400, 600]}
)";

struct Interval {
  std::uint64_t begin, end;
};

// Measuring phases of the workers, from what each worker wrote into its lane.
std::vector<std::pair<std::uint64_t, Interval>> measuring_phases(const Scratch& s) {
  std::vector<std::pair<std::uint64_t, Interval>> out;
  for (const auto& w : read_jsonl(s.path("run/samples.jsonl"), "worker"))
    if (w["ok"].get<bool>() && w["what"] == "measure")
      out.push_back({w["serial"].get<std::uint64_t>(),
                     {w["measure_begin_ns"].get<std::uint64_t>(), w["measure_end_ns"].get<std::uint64_t>()}});
  return out;
}

// When the orchestrator saw each worker's process gone, by serial.
std::map<std::uint64_t, std::uint64_t> exit_times(const Scratch& s) {
  std::map<std::uint64_t, std::uint64_t> out;
  for (const auto& e : read_jsonl(s.path("run/samples.jsonl"), "worker_exit"))
    out[e["serial"].get<std::uint64_t>()] = e["exited_ns"].get<std::uint64_t>();
  return out;
}

// Workers that began measuring while an earlier worker's process was still exiting.
int measured_beside_an_exit(const Scratch& s) {
  const auto exits = exit_times(s);
  int overlaps = 0;
  for (const auto& [serial, phase] : measuring_phases(s))
    for (const auto& [earlier, exited] : exits)
      if (earlier < serial && exited > phase.begin) ++overlaps;
  return overlaps;
}

}  // namespace

TEST_CASE("prestart: release order is the plan order and measuring phases never overlap") {
  for (const char* per : {"batch", "sample"}) {
    Scratch s(std::string("prestart-") + per);
    const auto sweep = s.write("p.yaml", kSweep);
    const auto r = run(bin("orchestrate") + " --device cpu --quiet --prestart 2 --isolation process --per " + per +
                           " --out " + s.path("run") + " " + sweep,
                       s);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const auto plan = read_json(s.path("run/plan.json"));
    const auto samples = read_jsonl(s.path("run/samples.jsonl"));
    REQUIRE(samples.size() == 18);
    // The journal's order is the order samples were measured: it must be the plan's.
    std::vector<std::uint32_t> planned, measured;
    for (const auto& run : plan["schedule"]["runs"])
      for (const auto& t : run["tasks"]) planned.push_back(t[3].get<std::uint32_t>());
    for (const auto& x : samples) measured.push_back(x["slot"].get<std::uint32_t>());
    CHECK(measured == planned);
    // Workers measured in the order they were started (serials ascending) and one at a time.
    auto phases = measuring_phases(s);
    REQUIRE(phases.size() == (std::string(per) == "batch" ? 6u : 18u));
    for (std::size_t k = 1; k < phases.size(); ++k) {
      CHECK(phases[k].first > phases[k - 1].first);
      CHECK(phases[k].second.begin >= phases[k - 1].second.end);
    }
    // Every sample's timed region lies inside its own worker's measuring phase.
    std::map<std::uint64_t, Interval> by_serial(phases.begin(), phases.end());
    for (const auto& x : samples) {
      const auto& phase = by_serial.at(x["worker_serial"].get<std::uint64_t>());
      CHECK(x["begin_ns"].get<std::uint64_t>() >= phase.begin);
      CHECK(x["end_ns"].get<std::uint64_t>() <= phase.end);
    }
    // Workers really were started ahead: some worker started before the previous one finished.
    const std::string log = slurp(s.path("run/log.txt"));
    CHECK(log.find("(pre-started)") != std::string::npos);

    // The context gate, from the times both sides wrote: no worker created its context while
    // another measured, and none began measuring while an earlier one was still exiting.
    const auto workers = read_jsonl(s.path("run/samples.jsonl"), "worker");
    REQUIRE(workers.size() == phases.size());
    for (const auto& w : workers) {
      const auto context_begin = w["context_begin_ns"].get<std::uint64_t>();
      const auto context_end = w["device_ready_ns"].get<std::uint64_t>();
      CHECK(context_begin > 0);
      CHECK(w["permit_ns"].get<std::uint64_t>() <= context_begin);
      CHECK(context_end >= context_begin);
      CHECK(w["prepared_ns"].get<std::uint64_t>() <= w["measure_permit_ns"].get<std::uint64_t>());
      CHECK(w["measure_permit_ns"].get<std::uint64_t>() <= w["measure_begin_ns"].get<std::uint64_t>());
      for (const auto& [serial, phase] : phases)
        if (serial != w["serial"].get<std::uint64_t>())
          CHECK_MESSAGE((context_end <= phase.begin || context_begin >= phase.end),
                        "worker " << w["serial"] << " created its context while worker " << serial << " measured");
    }
    CHECK(exit_times(s).size() == workers.size());
    CHECK(measured_beside_an_exit(s) == 0);
  }
}

TEST_CASE("context gate: no worker measures while an earlier one is still tearing down; off, they overlap") {
  // Every worker takes 300 ms to exit after reporting, as a slow CUDA teardown would.
  for (const bool gate : {true, false}) {
    Scratch s(std::string("gate-slow-exit-") + (gate ? "on" : "off"));
    const auto sweep = s.write("p.yaml", kSweep);
    const auto r = run("ISOBENCH_TEST_FAULT=slow-exit:300 " + bin("orchestrate") +
                           " --device cpu --quiet --prestart 1 --isolation process --per batch --context-gate " +
                           (gate ? "on" : "off") + " --worker " + bin("isobench-fault-worker") + " --out " +
                           s.path("run") + " " + sweep,
                       s);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(read_jsonl(s.path("run/samples.jsonl")).size() == 18);
    CHECK(read_json(s.path("run/run.json"))["context_gate"] == gate);
    if (gate)
      CHECK(measured_beside_an_exit(s) == 0);
    else
      CHECK(measured_beside_an_exit(s) >= 3);  // 5 hand-offs, each beside a 300 ms exit
  }
}

TEST_CASE("a worker sets up beside an exiting one only when both fit in the memory budget together") {
  // cpu_copy holds 2 x 4 MiB per instance. Every worker takes 300 ms to exit after reporting.
  const char* sweep_text = R"(settings: {samples: 3, warmup: 0, inner: 2, seed: 2}
benchmarks:
  - kernel: cpu_copy
    axes: {bytes: [4194304, 4194305, 4194306, 4194307, 4194308]}
)";
  // The memory two workers held together whenever one was released (allowed to allocate) while
  // the other, earlier one was still exiting; each worker's memory from the instances it sampled.
  auto bytes_released_beside_exits = [](const Scratch& s) {
    const auto plan = read_json(s.path("run/plan.json"));
    std::map<std::uint64_t, std::set<int>> instances_of;
    for (const auto& x : read_jsonl(s.path("run/samples.jsonl")))
      instances_of[x["worker_serial"].get<std::uint64_t>()].insert(x["instance_index"].get<int>());
    auto bytes = [&](std::uint64_t serial) {
      std::uint64_t total = 0;
      for (int i : instances_of[serial]) total += plan["instances"][i]["device_bytes"].get<std::uint64_t>();
      return total;
    };
    std::vector<std::uint64_t> together;
    const auto exits = exit_times(s);
    for (const auto& w : read_jsonl(s.path("run/samples.jsonl"), "worker")) {
      const auto serial = w["serial"].get<std::uint64_t>();
      for (const auto& [earlier, exited] : exits)
        if (earlier < serial && exited > w["released_ns"].get<std::uint64_t>())
          together.push_back(bytes(serial) + bytes(earlier));
    }
    return together;
  };
  for (const int budget_mib : {20, 100}) {
    Scratch s("gate-memory-" + std::to_string(budget_mib));
    const auto sweep = s.write("p.yaml", sweep_text);
    const auto r = run("ISOBENCH_TEST_FAULT=slow-exit:300 " + bin("orchestrate") +
                           " --device cpu --quiet --prestart 1 --isolation process --per batch --memory-budget " +
                           std::to_string(budget_mib) + " --worker " + bin("isobench-fault-worker") + " --out " +
                           s.path("run") + " " + sweep,
                       s);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(read_jsonl(s.path("run/samples.jsonl")).size() == 15);
    const auto together = bytes_released_beside_exits(s);
    for (auto bytes : together) CHECK(bytes <= (std::uint64_t(budget_mib) << 20));
    if (budget_mib == 20)
      // Groups of 16, 16 and 8 MiB: only the last group's workers fit beside each other.
      CHECK(together.size() <= 2);
    else
      // One group of 40 MiB: two fit in 100, so set-up overlapped the 300 ms exits.
      CHECK(together.size() >= 1);
  }
}

TEST_CASE("context gate: a worker that never exits after reporting is killed, and the run goes on") {
  Scratch s("gate-hang-exit");
  const auto sweep = s.write("p.yaml", kSweep);
  const auto r = run("ISOBENCH_TEST_FAULT=hang-exit ISOBENCH_TEST_FAULT_ONCE=" + s.path("marker") + " " +
                         bin("orchestrate") + " --device cpu --quiet --prestart 1 --isolation process --per batch " +
                         "--worker-timeout 1 --worker " + bin("isobench-fault-worker") + " --out " + s.path("run") +
                         " " + sweep,
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(read_jsonl(s.path("run/samples.jsonl")).size() == 18);
  CHECK(read_jsonl(s.path("run/samples.jsonl"), "worker_failure").empty());
  CHECK(slurp(s.path("run/log.txt")).find("still exiting after") != std::string::npos);
  const auto exits = read_jsonl(s.path("run/samples.jsonl"), "worker_exit");
  REQUIRE(exits.size() == 6);
  // Exactly one was killed: the worker that took the fault (one of the first two started).
  CHECK(std::count_if(exits.begin(), exits.end(), [](const auto& e) { return e["ok"] == false; }) == 1);
  CHECK(measured_beside_an_exit(s) == 0);
}

TEST_CASE("prestart: a pre-started worker that dies before its release is replaced, nothing lost or repeated") {
  Scratch s("prestart-death");
  const auto sweep = s.write("p.yaml", kSweep);
  const std::string env = "ISOBENCH_TEST_FAULT=segv ISOBENCH_TEST_FAULT_NTH=1 ISOBENCH_TEST_FAULT_COUNTER=" +
                          s.path("counter") + " ";
  const auto r = run(env + bin("orchestrate") + " --device cpu --quiet --prestart 1 --isolation process --per batch " +
                         "--worker " + bin("isobench-fault-worker") + " --out " + s.path("run") + " " + sweep,
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto failures = read_jsonl(s.path("run/samples.jsonl"), "worker_failure");
  REQUIRE(failures.size() == 1);
  CHECK(failures[0]["released"] == false);
  CHECK(failures[0]["reason"].get<std::string>().find("killed by SIGSEGV") == 0);
  const auto samples = read_jsonl(s.path("run/samples.jsonl"));
  CHECK(samples.size() == 18);
  std::set<std::uint32_t> slots;
  for (const auto& x : samples) CHECK(slots.insert(x["slot"].get<std::uint32_t>()).second);
  // Plan order kept despite the replacement.
  const auto plan = read_json(s.path("run/plan.json"));
  std::vector<std::uint32_t> planned, measured;
  for (const auto& run : plan["schedule"]["runs"])
    for (const auto& t : run["tasks"]) planned.push_back(t[3].get<std::uint32_t>());
  for (const auto& x : samples) measured.push_back(x["slot"].get<std::uint32_t>());
  CHECK(measured == planned);
}
