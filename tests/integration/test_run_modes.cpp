// The real orchestrator and real worker processes on the CPU backend, in every isolation mode.

#include <doctest/doctest.h>

#include <map>
#include <set>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

const char* kSweep = R"(name: modes
settings:
  samples: 4
  warmup: 1
  inner: 3
  seed: 5
benchmarks:
  - kernel: cpu_spin
    axes:
      microseconds: [20, 40, 60]
  - kernel: cpu_copy
    axes:
      bytes: 65536
)";

struct ModeRun {
  Result result;
  std::vector<nlohmann::json> samples;
  nlohmann::json plan, run;
};

ModeRun run_mode(const Scratch& s, const std::string& args, const std::string& out) {
  const auto sweep = s.write("modes.yaml", kSweep);
  ModeRun m;
  m.result = run(bin("orchestrate") + " --device cpu --quiet " + args + " --out " + s.path(out) + " " + sweep, s);
  if (m.result.exit_code == 0) {
    m.samples = read_jsonl(s.path(out + "/samples.jsonl"));
    m.plan = read_json(s.path(out + "/plan.json"));
    m.run = read_json(s.path(out + "/run.json"));
  }
  return m;
}

void check_counts(const ModeRun& m) {
  REQUIRE(m.result.exit_code == 0);
  CHECK(m.samples.size() == 16);
  std::map<std::string, int> per_instance;
  std::set<std::uint32_t> slots;
  for (const auto& s : m.samples) {
    per_instance[s["instance"]]++;
    CHECK(s["value"].get<double>() > 0);
    CHECK(s["inner"] == 3);
    CHECK(slots.insert(s["slot"].get<std::uint32_t>()).second);
  }
  CHECK(per_instance.size() == 4);
  for (const auto& [id, n] : per_instance) CHECK(n == 4);
  CHECK(m.run["status"] == "complete");
}

}  // namespace

TEST_CASE("sequential: one worker, samples of an instance back to back") {
  Scratch s("seq");
  const auto m = run_mode(s, "--isolation sequential", "run");
  check_counts(m);
  std::set<std::int64_t> pids;
  for (const auto& x : m.samples) pids.insert(x["worker_pid"].get<std::int64_t>());
  CHECK(pids.size() == 1);
  for (std::size_t i = 1; i < m.samples.size(); ++i)
    if (i % 4 != 0) CHECK(m.samples[i]["instance"] == m.samples[i - 1]["instance"]);
}

TEST_CASE("interleave: one worker, each round holds each instance once, orders differ") {
  Scratch s("interleave");
  const auto m = run_mode(s, "--isolation interleave", "run");
  check_counts(m);
  std::set<std::int64_t> pids;
  std::map<int, std::vector<std::string>> rounds;
  for (const auto& x : m.samples) {
    pids.insert(x["worker_pid"].get<std::int64_t>());
    rounds[x["round"].get<int>()].push_back(x["instance"]);
  }
  CHECK(pids.size() == 1);
  REQUIRE(rounds.size() == 4);
  std::set<std::vector<std::string>> orders;
  for (const auto& [r, order] : rounds) {
    CHECK(std::set<std::string>(order.begin(), order.end()).size() == 4);
    orders.insert(order);
  }
  CHECK(orders.size() > 1);
}

TEST_CASE("process --per sample: a distinct worker pid for every sample") {
  Scratch s("per-sample");
  const auto m = run_mode(s, "--isolation process --per sample", "run");
  check_counts(m);
  std::set<std::int64_t> pids;
  for (const auto& x : m.samples) pids.insert(x["worker_pid"].get<std::int64_t>());
  CHECK(pids.size() == 16);
}

TEST_CASE("process --per batch: one worker per round") {
  Scratch s("per-batch");
  const auto m = run_mode(s, "--isolation process --per batch", "run");
  check_counts(m);
  std::map<std::int64_t, std::set<int>> rounds_of_pid;
  for (const auto& x : m.samples) rounds_of_pid[x["worker_pid"].get<std::int64_t>()].insert(x["round"].get<int>());
  CHECK(rounds_of_pid.size() == 4);
  for (const auto& [pid, rounds] : rounds_of_pid) CHECK(rounds.size() == 1);
}

TEST_CASE("the same seed reproduces the plan; another seed changes the order") {
  Scratch s("seed");
  const auto a = run_mode(s, "--isolation interleave", "a");
  const auto b = run_mode(s, "--isolation interleave", "b");
  const auto c = run_mode(s, "--isolation interleave --seed 6", "c");
  REQUIRE(a.result.exit_code == 0);
  REQUIRE(b.result.exit_code == 0);
  REQUIRE(c.result.exit_code == 0);
  CHECK(a.plan["schedule"] == b.plan["schedule"]);
  CHECK(a.plan["instances"] == b.plan["instances"]);
  CHECK(a.plan["schedule"]["runs"] != c.plan["schedule"]["runs"]);
  std::vector<std::uint32_t> order_a, order_b;
  for (const auto& x : a.samples) order_a.push_back(x["slot"]);
  for (const auto& x : b.samples) order_b.push_back(x["slot"]);
  CHECK(order_a == order_b);
}

TEST_CASE("inner: auto is calibrated once and pinned for every sample") {
  Scratch s("auto");
  const auto sweep = s.write("auto.yaml", R"(settings: {samples: 3, inner: auto, min_sample_time_ms: 2}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: 50}
)");
  const auto r = run(bin("orchestrate") + " --device cpu --quiet --out " + s.path("run") + " " + sweep, s);
  REQUIRE(r.exit_code == 0);
  const auto cal = read_json(s.path("run/calibration.json"));
  REQUIRE(cal["instances"].size() == 1);
  const int inner = cal["instances"][0]["inner"];
  const double per_launch = cal["instances"][0]["seconds_per_launch"];
  // The count is the fewest launches that last min_sample_time at the measured time per launch,
  // and a 50 us spin cannot take less than 50 us: so the count is at most 40 on any machine.
  // Preemption on a loaded machine stretches launches (seen: 7 beside a parallel build), which
  // lowers the count without breaking either rule.
  CHECK(per_launch >= 50e-6);
  CHECK(inner * per_launch >= 0.002 * (1 - 1e-12));
  CHECK((inner - 1) * per_launch < 0.002);
  CHECK(inner <= 40);
  const auto plan = read_json(s.path("run/plan.json"));
  CHECK(plan["instances"][0]["inner"] == inner);
  const auto samples = read_jsonl(s.path("run/samples.jsonl"));
  REQUIRE(samples.size() == 3);
  for (const auto& x : samples) {
    CHECK(x["inner"] == inner);
    CHECK(x["value"].get<double>() >= 50e-6);
  }
}

TEST_CASE("the run directory holds every documented file and a summary per instance") {
  Scratch s("rundir");
  const auto m = run_mode(s, "--isolation interleave --json", "run");
  REQUIRE(m.result.exit_code == 0);
  for (const char* f : {"run.json", "plan.json", "sweep.yaml", "environment.json", "samples.jsonl", "summary.json",
                        "log.txt"})
    CHECK_MESSAGE(std::filesystem::exists(s.path(std::string("run/") + f)), f);
  const auto summary = read_json(s.path("run/summary.json"));
  CHECK(summary["instances"].size() == 4);
  const auto printed = nlohmann::json::parse(m.result.out);
  CHECK(printed == summary);
  const auto env = read_json(s.path("run/environment.json"));
  CHECK(env["cpu"]["logical_cores"].get<int>() >= 1);
  CHECK(slurp(s.path("run/log.txt")).find("[worker-start]") != std::string::npos);
}

TEST_CASE("a sweep larger than --memory-budget runs in groups that each fit, one worker per group") {
  Scratch s("groups");
  // cpu_copy holds a source and a destination: 2 x 4 MiB per instance; 20 MiB fit two at a time.
  const auto sweep = s.write("groups.yaml", R"(settings: {samples: 3, warmup: 0, inner: 2, seed: 2}
benchmarks:
  - kernel: cpu_copy
    axes: {bytes: [4194304, 4194305, 4194306, 4194307, 4194308]}
)");
  const auto r = run(bin("orchestrate") + " --device cpu --quiet --isolation interleave --memory-budget 20 --out " +
                         s.path("run") + " " + sweep,
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto plan = read_json(s.path("run/plan.json"));
  const auto& groups = plan["schedule"]["groups"];
  REQUIRE(groups.size() == 3);
  for (const auto& g : groups) {
    std::uint64_t bytes = 0;
    for (const auto& i : g) bytes += plan["instances"][i.get<int>()]["device_bytes"].get<std::uint64_t>();
    CHECK(bytes <= (20u << 20));
  }
  // One worker per group, each taking only its group's instances, every round holding each once.
  const auto samples = read_jsonl(s.path("run/samples.jsonl"));
  CHECK(samples.size() == 15);
  std::map<std::int64_t, std::map<int, std::multiset<int>>> rounds_of_worker;
  for (const auto& x : samples)
    rounds_of_worker[x["worker_pid"].get<std::int64_t>()][x["round"].get<int>()].insert(x["instance_index"].get<int>());
  REQUIRE(rounds_of_worker.size() == 3);
  std::size_t k = 0;
  for (const auto& [pid, rounds] : rounds_of_worker) {
    std::multiset<int> group;
    for (const auto& i : groups[k]) group.insert(i.get<int>());
    CHECK(rounds.size() == 3);
    for (const auto& [round, instances] : rounds) CHECK(instances == group);
    ++k;
  }
}

TEST_CASE("calibration over --memory-budget groups: one calibration worker per group, holding only its group") {
  Scratch s("groups-calibration");
  const auto sweep = s.write("groups.yaml", R"(settings: {samples: 2, warmup: 0, inner: auto, min_sample_time_ms: 1, seed: 2}
benchmarks:
  - kernel: cpu_copy
    axes: {bytes: [4194304, 4194305, 4194306, 4194307, 4194308]}
)");
  const auto r = run(bin("orchestrate") + " --device cpu --quiet --memory-budget 20 --out " + s.path("run") + " " + sweep,
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto plan = read_json(s.path("run/plan.json"));
  const auto& groups = plan["schedule"]["groups"];
  REQUIRE(groups.size() == 3);
  std::vector<std::size_t> calibration_tasks;
  for (const auto& w : read_jsonl(s.path("run/samples.jsonl"), "worker"))
    if (w["what"] == "calibration") calibration_tasks.push_back(w["tasks"].get<std::size_t>());
  std::vector<std::size_t> group_sizes;
  for (const auto& g : groups) group_sizes.push_back(g.size());
  CHECK(calibration_tasks == group_sizes);
  REQUIRE(plan["instances"].size() == 5);
  for (const auto& p : plan["instances"]) CHECK(p["inner"].get<int>() > 0);
}

TEST_CASE("an instance that alone exceeds --memory-budget is refused before anything runs, by name") {
  Scratch s("toobig");
  const auto sweep = s.write("big.yaml", "benchmarks:\n  - kernel: cpu_copy\n    axes: {bytes: 4194304}\n");
  const auto r = run(bin("orchestrate") + " --device cpu --quiet --memory-budget 1 --out " + s.path("run") + " " + sweep, s);
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.find("cpu_copy[bytes=4194304]") != std::string::npos, r.err);
  CHECK_FALSE(std::filesystem::exists(s.path("run")));
}
