// Workers that crash, abort, hang or forge samples never take the run down, and what they
// measured before failing is kept.

#include <doctest/doctest.h>

#include <set>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

std::string sweep_text(int microseconds) {
  return "settings: {samples: 3, warmup: 1, inner: 2, seed: 3}\nbenchmarks:\n  - kernel: cpu_spin\n"
         "    axes: {microseconds: [" + std::to_string(microseconds) + ", " + std::to_string(2 * microseconds) + "]}\n";
}

Result run_with_fault(const Scratch& s, const std::string& fault, const std::string& extra, bool once = true,
                      int microseconds = 10) {
  const auto sweep = s.write("faults.yaml", sweep_text(microseconds));
  std::string env = "ISOBENCH_TEST_FAULT=" + fault + " ";
  if (once) env += "ISOBENCH_TEST_FAULT_ONCE=" + s.path("fault-marker") + " ";
  return run(env + bin("orchestrate") + " --device cpu --quiet --worker " + bin("isobench-fault-worker") + " " + extra +
                 " --out " + s.path("run") + " " + sweep,
             s);
}

nlohmann::json first_failure(const Scratch& s) {
  const auto failures = read_jsonl(s.path("run/samples.jsonl"), "worker_failure");
  REQUIRE(!failures.empty());
  return failures.front();
}

}  // namespace

TEST_CASE("a worker killed by SIGSEGV is recorded as such and its samples retried") {
  Scratch s("segv");
  const auto r = run_with_fault(s, "segv", "--isolation process --per batch");
  CHECK(r.exit_code == 0);
  CHECK(read_jsonl(s.path("run/samples.jsonl")).size() == 6);
  const auto f = first_failure(s);
  CHECK(f["reason"].get<std::string>().find("killed by SIGSEGV") == 0);
  CHECK(f["signal"] == 11);
  CHECK(slurp(s.path("run/log.txt")).find("[worker-failed]") != std::string::npos);
  CHECK(read_json(s.path("run/run.json"))["status"] == "complete");
}

TEST_CASE("abort is reported as SIGABRT, a plain failure by its exit code") {
  {
    Scratch s("abort");
    CHECK(run_with_fault(s, "abort", "--isolation interleave").exit_code == 0);
    CHECK(first_failure(s)["reason"].get<std::string>().find("killed by SIGABRT") == 0);
  }
  {
    Scratch s("exit7");
    CHECK(run_with_fault(s, "exit7", "--isolation interleave").exit_code == 0);
    CHECK(first_failure(s)["reason"].get<std::string>().find("exit code 7") == 0);
  }
}

TEST_CASE("samples written before a crash are kept, and only the rest is measured again") {
  Scratch s("partial");
  // Samples of a few milliseconds, so the crash lands in the middle of the task list.
  const auto r = run_with_fault(s, "segv-after:3", "--isolation interleave", true, 3000);
  CHECK(r.exit_code == 0);
  const auto samples = read_jsonl(s.path("run/samples.jsonl"));
  REQUIRE(samples.size() == 6);
  std::set<std::int64_t> pids;
  std::set<std::uint32_t> slots;
  for (const auto& x : samples) {
    pids.insert(x["worker_pid"].get<std::int64_t>());
    CHECK(slots.insert(x["slot"].get<std::uint32_t>()).second);
  }
  CHECK(pids.size() == 2);
  std::size_t from_first = 0;
  for (const auto& x : samples) from_first += x["worker_pid"] == samples.front()["worker_pid"];
  CHECK(from_first >= 3);
}

TEST_CASE("a hung worker is killed after --worker-timeout and the run goes on") {
  Scratch s("hang");
  const auto r = run_with_fault(s, "hang", "--isolation interleave --worker-timeout 1");
  CHECK(r.exit_code == 0);
  const auto f = first_failure(s);
  CHECK(f["reason"].get<std::string>().find("hung: no heartbeat") == 0);
  // Killed and reaped by the orchestrator: journaled as SIGKILL (not Boost's "still active" code).
  CHECK(f["reason"].get<std::string>().find("killed by SIGKILL") != std::string::npos);
  CHECK(f["signal"] == 9);
  CHECK(read_jsonl(s.path("run/samples.jsonl")).size() == 6);
}

TEST_CASE("a worker that always fails before its first sample: the run stops at the second, says why, exit code 3") {
  Scratch s("always");
  const auto r = run_with_fault(s, "abort", "--isolation process --per sample --retries 5", /*once=*/false);
  CHECK(r.exit_code == 3);
  CHECK_MESSAGE(r.err.find("with one cause, not retried: killed by SIGABRT") != std::string::npos, r.err);
  const auto run = read_json(s.path("run/run.json"));
  CHECK(run["status"] == "incomplete");
  CHECK(run["samples_recorded"] == 0);
  CHECK(read_jsonl(s.path("run/samples.jsonl"), "worker_failure").size() == 2);
}

TEST_CASE("a lane moved backwards breaks the lane protocol: its worker is killed and its samples measured again") {
  Scratch s("lane-backwards");
  const auto r = run_with_fault(s, "lane-backwards", "--isolation interleave", true, 3000);
  CHECK(r.exit_code == 0);
  CHECK(read_jsonl(s.path("run/samples.jsonl")).size() == 6);  // every sample, once
  const std::string log = slurp(s.path("run/log.txt"));
  CHECK(log.find("[lane-broken]") != std::string::npos);
  CHECK(log.find("lane protocol broken: its lane went from") != std::string::npos);
  CHECK(read_jsonl(s.path("run/samples.jsonl"), "worker_failure").size() == 1);
}

TEST_CASE("a sample forged with another token never reaches the results") {
  Scratch s("forge");
  const auto r = run_with_fault(s, "forge", "--isolation interleave");
  CHECK(r.exit_code == 0);
  const auto samples = read_jsonl(s.path("run/samples.jsonl"));
  CHECK(samples.size() == 6);
  for (const auto& x : samples) CHECK(x["value"].get<double>() > 1e-6);  // the forged value was 1e-9
  CHECK(slurp(s.path("run/log.txt")).find("[sample-rejected]") != std::string::npos);
}
