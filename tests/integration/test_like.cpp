// Runs that compare across time, end to end on the CPU backend: a run made --like an earlier one
// takes its inner counts, pinned choices, seed and sample-changing settings, so compare joins every
// instance the two share (with its one caveat line); without --like, the inner-count refusal names
// --like as its remedy. Bad earlier runs and flags that contradict one are refused before anything
// runs: one line, exit 2, no run directory.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

// Calibrated inner counts (inner auto), 4 samples: no verdict is asked of these runs.
const char* kEarlier = R"(name: like
settings: {samples: 4, warmup: 1, inner: auto, min_sample_time_ms: 2, seed: 1}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [40, 80]}
)";

// The same sweep a day later: another seed and an idle gap (both give way to the earlier run's),
// and one more instance, which the earlier run lacks.
const char* kLater = R"(name: like
settings: {samples: 4, warmup: 1, inner: auto, min_sample_time_ms: 2, seed: 5, idle_gap_ms: 1}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [40, 80, 160]}
)";

std::string orchestrate(const std::string& args) { return bin("orchestrate") + " --device cpu " + args; }

nlohmann::json plan_instance(const nlohmann::json& plan, const std::string& id) {
  for (const auto& p : plan.at("instances"))
    if (p.at("id") == id) return p;
  FAIL("no instance " << id);
  return {};
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a run --like an earlier one takes its inner counts, choices, seed and settings; compare joins them") {
  Scratch s("like");
  const auto earlier = s.write("earlier.yaml", kEarlier), later = s.write("later.yaml", kLater);
  REQUIRE(run(orchestrate("--quiet --out " + s.path("A") + " " + earlier), s).exit_code == 0);
  // A choice as a GEMM's worker would have pinned it (CPU kernels choose nothing): --like carries
  // plan.json's pin, the one every worker of A replayed.
  auto plan_a = read_json(s.path("A/plan.json"));
  const nlohmann::json choice = {{"library", "test"}, {"choice", 7}};
  plan_a["instances"][0]["replay"] = choice;
  s.write("A/plan.json", plan_a.dump());

  const auto b = run(orchestrate("--out " + s.path("B") + " --like " + s.path("A") + " " + later), s);
  REQUIRE_MESSAGE(b.exit_code == 0, b.err);
  CHECK_MESSAGE(b.err.find("note: --like " + s.path("A") +
                           ": seed 1; 2 instances take its inner counts and choices (its idle_gap_ms over the sweep's); 1 "
                           "calibrated afresh (not in it, or not calibrated there): cpu_spin[microseconds=160]\n") !=
                    std::string::npos,
                b.err);
  const auto plan_b = read_json(s.path("B/plan.json"));
  CHECK(plan_b["schedule"]["seed"] == 1);
  for (const auto* id : {"cpu_spin[microseconds=40]", "cpu_spin[microseconds=80]"}) {
    const auto pa = plan_instance(plan_a, id), pb = plan_instance(plan_b, id);
    CHECK(pb["inner"] == pa["inner"]);
    CHECK(pb["seed"] == pa["seed"]);  // the same inputs
    CHECK(pb["idle_gap_ms"] == 0);
  }
  CHECK(plan_instance(plan_b, "cpu_spin[microseconds=40]")["replay"] == choice);
  CHECK(plan_instance(plan_b, "cpu_spin[microseconds=160]")["inner"].get<int>() > 0);  // calibrated afresh
  CHECK(plan_instance(plan_b, "cpu_spin[microseconds=160]")["idle_gap_ms"] == 1);      // as its sweep says

  // compare joins every shared instance, and says once that runs made at different times carry drift.
  auto c = run(bin("orchestrate") + " compare --json --fail-on never " + s.path("A") + " " + s.path("B"), s);
  CHECK_MESSAGE(c.exit_code == 0, c.err);
  auto compared = nlohmann::json::parse(c.out);
  CHECK(compared["instances"].size() == 2);
  REQUIRE(compared["not_compared"].size() == 1);
  CHECK(compared["not_compared"][0]["reason"] == "only in " + s.path("B"));
  CHECK(occurrences(c.err, "caveat") == 1);
  CHECK(c.err.find("compare: caveat: two runs made at different times: the machine's drift between them is not "
                   "controlled") != std::string::npos);

  // ab --like: both sides measure the earlier run's inner counts.
  const auto ab = run(bin("orchestrate") + " ab --device cpu --quiet --fail-on never --baseline " +
                          bin("isobench-worker") + " --candidate " + bin("isobench-worker") + " --like " + s.path("A") +
                          " --out " + s.path("AB") + " " + earlier,
                      s);
  REQUIRE_MESSAGE(ab.exit_code == 0, ab.err);
  for (const auto* id : {"cpu_spin[microseconds=40]", "cpu_spin[microseconds=80]"})
    CHECK(plan_instance(read_json(s.path("AB/plan.json")), id)["inner"] == plan_instance(plan_a, id)["inner"]);

  // Without --like, a run calibrates (or is given) its own inner counts: the refusal names --like.
  // One count above both of A's, so that no instance of C matches A's (on a loaded machine A's
  // calibration gave the 80 us spin the 40 us spin's count + 1, and C's was compared).
  const int other_inner = std::max(plan_instance(plan_a, "cpu_spin[microseconds=40]")["inner"].get<int>(),
                                   plan_instance(plan_a, "cpu_spin[microseconds=80]")["inner"].get<int>()) +
                          1;
  REQUIRE(run(orchestrate("--quiet --inner " + std::to_string(other_inner) + " --out " + s.path("C") + " " + earlier),
              s)
              .exit_code == 0);
  c = run(bin("orchestrate") + " compare " + s.path("A") + " " + s.path("C"), s);
  CHECK(c.exit_code == 2);
  CHECK_MESSAGE(c.err.find("plans differ in inner): measure " + s.path("C") + " again with --like " + s.path("A")) !=
                    std::string::npos,
                c.err);
}

TEST_CASE("--like refuses what is not a run of this device, and flags that contradict it: one line, exit 2") {
  Scratch s("like-refusals");
  const auto sweep = s.write("earlier.yaml", kEarlier);
  REQUIRE(run(orchestrate("--quiet --out " + s.path("A") + " " + sweep), s).exit_code == 0);
  const int inner = plan_instance(read_json(s.path("A/plan.json")), "cpu_spin[microseconds=40]")["inner"];
  std::filesystem::create_directories(s.path("empty"));
  std::filesystem::create_directories(s.path("imported"));
  s.write("imported/run.json", R"({"schema_version": 1})");
  s.write("imported/plan.json", R"({"schema_version": 1, "imported": {"tool": "nvbench"}})");
  std::filesystem::create_directories(s.path("gpu"));
  for (const auto* file : {"run.json", "plan.json"}) std::filesystem::copy(s.path("A/") + file, s.path("gpu/") + file);
  auto gpu_plan = read_json(s.path("gpu/plan.json"));
  gpu_plan["device"] = "cuda";
  s.write("gpu/plan.json", gpu_plan.dump());
  const std::string A = s.path("A");
  const std::pair<std::string, std::vector<std::string>> cases[] = {
      {"--like " + s.path("nope"), {"--like " + s.path("nope") + ": not a run directory"}},
      {"--like " + s.path("empty"), {"--like " + s.path("empty") + ": no run.json: not a run directory"}},
      {"--like " + s.path("imported"), {"imported from nvbench, not measured by orchestrate"}},
      {"--like " + s.path("gpu"),
       {"--like " + s.path("gpu") + ": it measured on cuda and this run measures on cpu", "--device cuda"}},
      {"--like " + A + " --inner " + std::to_string(inner + 1),
       {"--inner " + std::to_string(inner + 1) + " conflicts with its inner " + std::to_string(inner),
        "leave --inner out to measure like it, or drop --like"}},
      {"--like " + A + " --timer events", {"--timer events conflicts with its timer graph"}},
      {"--like " + A + " --seed 9", {"--seed 9 conflicts with its seed 1"}},
      {"--like " + A + " --replay-from " + A, {"--like replays the choices of the run it is like; give one of them"}},
  };
  for (const auto& [flags, expected] : cases) {
    const auto r = run(orchestrate("--quiet " + flags + " --out " + s.path("run") + " " + sweep), s);
    CHECK_MESSAGE(bad_input_problem(r, expected, s.path("run")).empty(), flags, ": ", bad_input_problem(r, expected, s.path("run")));
  }
  // A flag that agrees with the earlier run is no conflict.
  const auto agree = run(orchestrate("--quiet --like " + A + " --seed 1 --timer graph --out " + s.path("run") + " " + sweep), s);
  CHECK_MESSAGE(agree.exit_code == 0, agree.err);
  // --resume measures its own plan.
  const auto resume = run(orchestrate("--quiet --resume " + A + " --like " + A), s);
  CHECK(bad_input_problem(resume, {"--resume " + A + ": --like is not taken: a resumed run measures its own plan"},
                          s.path("none"))
            .empty());
}
