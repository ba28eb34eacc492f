// A/B runs with real worker builds on the CPU backend: the candidate build with a real 10%
// regression compiled in is called SLOWER; the same build on both sides is not.

#include <doctest/doctest.h>

#include <map>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

// The per-sample minimum of 20 launches: on a loaded 2-core CI machine, preemption inflates means.
const char* kSweep = R"(name: ab
settings: {samples: 20, warmup: 2, inner: 20, statistic: min, seed: 4, per: batch}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [100, 200]}
)";

Result run_ab(const Scratch& s, const std::string& candidate, const std::string& extra = "",
              const std::string& out = "run") {
  const auto sweep = s.write("ab.yaml", kSweep);
  return run(bin("orchestrate") + " ab --device cpu --quiet --baseline " + bin("isobench-worker") + " --candidate " +
                 bin(candidate) + " " + extra + " --out " + s.path(out) + " " + sweep,
             s);
}

}  // namespace

TEST_CASE("ab: both sides in one run, alternating workers, same plan and inner counts") {
  Scratch s("ab-structure");
  const auto r = run_ab(s, "isobench-worker", "--fixed-n");  // every sample, whatever the verdict
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto samples = read_jsonl(s.path("run/samples.jsonl"));
  CHECK(samples.size() == 80);
  std::map<int, int> per_side;
  std::map<std::uint64_t, int> side_of_worker;
  for (const auto& x : samples) {
    per_side[x["side"].get<int>()]++;
    side_of_worker[x["worker_serial"].get<std::uint64_t>()] = x["side"].get<int>();
    CHECK(x["inner"] == 20);
  }
  CHECK(per_side[0] == 40);
  CHECK(per_side[1] == 40);
  // Workers come in pairs, one of each side.
  REQUIRE(side_of_worker.size() == 40);
  for (std::uint64_t k = 0; k < 40; k += 2) CHECK(side_of_worker[k] != side_of_worker[k + 1]);
  const auto plan = read_json(s.path("run/plan.json"));
  CHECK(plan["schedule"]["sides"] == 2);
  CHECK(plan["workers"].size() == 2);
}

TEST_CASE("ab: a build with a real 10% regression is SLOWER; the same build on both sides is not") {
  {
    Scratch s("ab-slow");
    const auto r = run_ab(s, "isobench-worker-slow10");
    CHECK(r.exit_code == 1);  // a SLOWER verdict fails the run for CI gates
    CHECK_MESSAGE(r.out.find("SLOWER") != std::string::npos, r.out);
    // The outcome closes the output, and the verdict does not depend on what is printed.
    CHECK_MESSAGE(r.out.find("\noutcome: 2 compared: 2 SLOWER -> exit 1\n") != std::string::npos, r.out);
    const auto silent = run_ab(s, "isobench-worker-slow10", "--format none", "silent");
    CHECK(silent.exit_code == 1);
    CHECK(silent.out.empty());
    CHECK_MESSAGE(silent.err.find("outcome: 2 compared: 2 SLOWER -> exit 1") != std::string::npos, silent.err);
    // --fail-on as compare takes it: a SLOWER candidate passes a gate on FASTER.
    const auto gate = run_ab(s, "isobench-worker-slow10", "--fail-on faster", "gate");
    CHECK(gate.exit_code == 0);
    CHECK(gate.out.find("-> exit 0") != std::string::npos);
    const auto cmp = run(bin("orchestrate") + " compare --json " + s.path("run"), s);
    CHECK(cmp.exit_code == 1);
    const auto v = verdicts(nlohmann::json::parse(cmp.out));
    REQUIRE(v.size() == 2);  // every instance, so that an empty list cannot pass
    for (const auto& [instance, verdict] : v) CHECK_MESSAGE(verdict == "SLOWER", instance);
  }
  {
    Scratch s("ab-same");
    const auto r = run_ab(s, "isobench-worker");
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    // Neither direction: a wrong FASTER is as false as a wrong SLOWER.
    const auto v = verdicts(nlohmann::json::parse(run(bin("orchestrate") + " compare --json " + s.path("run"), s).out));
    REQUIRE(v.size() == 2);
    for (const auto& [instance, verdict] : v) CHECK_MESSAGE((verdict == "SAME" || verdict == "UNCERTAIN"), instance);
  }
}

TEST_CASE("ab refuses an isolation mode that cannot hold two builds, and a missing worker build") {
  Scratch s("ab-bad");
  auto r = run_ab(s, "isobench-worker", "--isolation interleave");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("fresh worker processes") != std::string::npos);
  r = run_ab(s, "no-such-worker");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("not an executable worker build") != std::string::npos);
}
