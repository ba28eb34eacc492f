// Side-specific parameters and replayed choices, end to end on the CPU backend: an A/B run whose
// candidate is given another parameter value measures that value (and is called SLOWER), the
// plan records what each side was told, and --replay-from carries an earlier run's recorded
// choices into the plan. Bad values are refused with one line and exit 2.

#include <doctest/doctest.h>

#include <filesystem>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

const char* kSweep = R"(name: pin
settings: {samples: 8, warmup: 1, inner: 10, statistic: min, seed: 3, per: batch}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: 200}
)";

std::string ab_command(const Scratch& s, const std::string& extra) {
  const auto sweep = s.write("pin.yaml", kSweep);
  return bin("orchestrate") + " ab --device cpu --quiet --baseline " + bin("isobench-worker") + " --candidate " +
         bin("isobench-worker") + " " + extra + " --out " + s.path("run") + " " + sweep;
}

}  // namespace

TEST_CASE("ab --candidate-set: the candidate's workers measure the value they were given") {
  Scratch s("candidate-set");
  const auto r = run(ab_command(s, "--candidate-set microseconds=300 --format json"), s);
  // 300 us against 200 us per launch: SLOWER, exit 1.
  CHECK_MESSAGE(r.exit_code == 1, r.err);
  const auto plan = read_json(s.path("run/plan.json"));
  REQUIRE(plan["worker_args"].size() == 2);
  CHECK(plan["worker_args"][0].empty());
  CHECK(plan["worker_args"][1] == nlohmann::json({"--set", "microseconds=300"}));
  // The plan is the same for both sides: the instance still says 200.
  CHECK(plan["instances"][0]["params"]["microseconds"] == 200);
  double side_min[2] = {1e9, 1e9};
  for (const auto& x : read_jsonl(s.path("run/samples.jsonl"))) {
    const int side = x["side"].get<int>();
    side_min[side] = std::min(side_min[side], x["value"].get<double>());
  }
  CHECK(side_min[0] >= 200e-6);
  CHECK(side_min[1] >= 300e-6);
  CHECK(r.out.find("SLOWER") != std::string::npos);
}

TEST_CASE("ab --candidate-set and --replay-from refuse bad values with one line, exit 2, no run") {
  for (const char* extra : {"--candidate-set nosuch=1", "--candidate-set microseconds", "--baseline-set =4",
                            "--replay-from /nonexistent-run-dir"}) {
    Scratch s("set-bad");
    const auto r = run(ab_command(s, extra), s);
    INFO(extra);
    CHECK(r.exit_code == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(s.path("run")));
  }
  Scratch s("set-bad-name");
  const auto r = run(ab_command(s, "--candidate-set nosuch=1"), s);
  CHECK(r.err.find("no instance of the sweep has a parameter 'nosuch'") != std::string::npos);
}

TEST_CASE("--replay-from puts an earlier run's recorded choices into the plan, and they survive the run") {
  Scratch s("replay-from");
  std::filesystem::create_directories(s.path("earlier"));
  const nlohmann::json recorded = {{"library", "test"}, {"choice", 7}};
  s.write("earlier/instance_reports.json",
          nlohmann::json{{"schema_version", 1},
                         {"instances", {{"cpu_spin[microseconds=200]", {{"describe", recorded}}}}}}
              .dump());
  const auto sweep = s.write("pin.yaml", kSweep);
  const auto r = run(bin("orchestrate") + " --device cpu --samples 2 --replay-from " + s.path("earlier") +
                         " --out " + s.path("run") + " " + sweep,
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("1 instances replay its recorded choices") != std::string::npos);
  const auto plan = read_json(s.path("run/plan.json"));
  CHECK(plan["instances"][0]["replay"] == recorded);

  s.write("broken/instance_reports.json", "{not json");
  std::filesystem::create_directories(s.path("broken"));
  s.write("broken/instance_reports.json", "{not json");
  const auto bad = run(bin("orchestrate") + " --device cpu --replay-from " + s.path("broken") + " --out " +
                           s.path("run2") + " " + sweep,
                       s);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("instance_reports.json") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(s.path("run2")));
}
