// Pre-started workers: started ahead, released one at a time in plan order, never two measuring
// at once; one that dies before its release is replaced without losing or repeating a sample.

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
  }
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
