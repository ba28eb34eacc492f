// Multi-rank instances on CPU ranks (docs/multi-rank.md): N worker processes started together per
// job, meeting in the run's segment; the sample is the slowest rank's; a rank that dies or hangs
// fails its whole group, the other ranks are stopped, and the samples are measured again.

#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <set>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

// ranks 2 and 3 beside an instance of one process, so jobs of several world sizes alternate.
const char* kMixedSweep = R"(settings: {samples: 3, warmup: 1, inner: 2, seed: 5}
benchmarks:
  - kernel: cpu_allgather_matmul
    axes: {m: [48], k: [32], n: [32], ranks: [2, 3]}
  - kernel: cpu_spin
    axes: {microseconds: [20]}
)";

// One 2-rank instance whose samples last a few milliseconds, so a fault lands mid-job.
const char* kFaultSweep = R"(settings: {samples: 4, warmup: 1, inner: 2, seed: 5, idle_gap_ms: 20}
benchmarks:
  - kernel: cpu_allgather_matmul
    axes: {m: [64], k: [128], n: [128], ranks: [2]}
)";

// Pids of every worker process the run started (rank 0s and the other ranks), from log.txt.
std::vector<int> started_pids(const Scratch& s) {
  std::vector<int> pids;
  const std::string log = slurp(s.path("run/log.txt"));
  // "[worker-start] worker N pid P ..." (scanned rather than with <regex>, whose libstdc++ code
  // draws -Wmaybe-uninitialized false positives from GCC 12 in the sanitizer build)
  const std::string tag = "[worker-start] worker ";
  for (auto at = log.find(tag); at != std::string::npos; at = log.find(tag, at + 1)) {
    const auto pid = log.find(" pid ", at + tag.size());
    if (pid == std::string::npos || log.find_first_not_of("0123456789", at + tag.size()) != pid) continue;
    pids.push_back(std::stoi(log.substr(pid + 5)));
  }
  return pids;
}

// A process that still runs (a zombie or a vanished pid does not).
bool running(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return false;
  const char state = text[close + 2];
  return state != 'Z' && state != 'X';
}

void check_no_worker_left(const Scratch& s) {
  const auto pids = started_pids(s);
  CHECK(!pids.empty());
  for (int pid : pids) CHECK_MESSAGE(!running(pid), "worker pid " << pid << " outlived the run");
}

// Every sample once; a multi-rank instance's value is the largest of its ranks' times.
void check_samples(const Scratch& s, std::size_t expected) {
  const auto samples = read_jsonl(s.path("run/samples.jsonl"));
  CHECK(samples.size() == expected);
  std::set<std::uint32_t> slots;
  for (const auto& x : samples) {
    CHECK(slots.insert(x["slot"].get<std::uint32_t>()).second);
    const std::string id = x["instance"];
    if (id.rfind("cpu_allgather_matmul", 0) != 0) {
      CHECK_FALSE(x.contains("rank_values"));
      continue;
    }
    const std::size_t world = id.find("ranks=3") != std::string::npos ? 3 : 2;
    REQUIRE(x.contains("rank_values"));
    const auto values = x["rank_values"].get<std::vector<double>>();
    CHECK(values.size() == world);
    CHECK(x["value"].get<double>() == *std::max_element(values.begin(), values.end()));
    for (double v : values) CHECK(v > 0);
  }
}

Result run_faulty(const Scratch& s, const std::string& env, const std::string& extra) {
  const auto sweep = s.write("ranks.yaml", kFaultSweep);
  return run(env + " ISOBENCH_TEST_FAULT_RANK=1 ISOBENCH_TEST_FAULT_ONCE=" + s.path("fault-marker") + " " +
                 bin("orchestrate") + " --device cpu --quiet --isolation interleave --worker " +
                 bin("isobench-fault-worker") + " " + extra + " --out " + s.path("run") + " " + sweep,
             s);
}

nlohmann::json only_failure(const Scratch& s) {
  const auto failures = read_jsonl(s.path("run/samples.jsonl"), "worker_failure");
  REQUIRE(failures.size() == 1);
  return failures.front();
}

}  // namespace

TEST_CASE("2 and 3 CPU ranks run a sweep end to end: every sample once, each the slowest rank's") {
  for (const char* mode : {"--isolation process", "--isolation interleave", "--isolation process --per sample",
                           "--isolation process --prestart 2"}) {
    CAPTURE(mode);
    Scratch s("ranks");
    const auto sweep = s.write("ranks.yaml", kMixedSweep);
    const auto r = run(bin("orchestrate") + " --device cpu --quiet " + mode + " --out " + s.path("run") + " " + sweep, s);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    CHECK(read_json(s.path("run/run.json"))["status"] == "complete");
    check_samples(s, 9);
    const auto failures = read_jsonl(s.path("run/samples.jsonl"), "worker_failure");
    CHECK_MESSAGE(failures.empty(), nlohmann::json(failures).dump() << "\n" << slurp(s.path("run/log.txt")));
    // Each multi-rank job started its other ranks beside rank 0.
    const std::string log = slurp(s.path("run/log.txt"));
    CHECK(log.find("(rank 1 of group") != std::string::npos);
    CHECK(log.find("(rank 2 of group") != std::string::npos);
    CHECK(log.find("(rank 3 of group") == std::string::npos);
    check_no_worker_left(s);
  }
}

TEST_CASE("an inner count calibrated by a group of ranks: the ranks agree, rank 0 reports it") {
  Scratch s("ranks-calibrate");
  const auto sweep = s.write("ranks.yaml", R"(settings: {samples: 2, warmup: 1, inner: auto, min_sample_time_ms: 20, seed: 5}
benchmarks:
  - kernel: cpu_allgather_matmul
    axes: {m: [48], k: [32], n: [32], ranks: [3]}
)");
  const auto r = run(bin("orchestrate") + " --device cpu --quiet --out " + s.path("run") + " " + sweep, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto calibration = read_json(s.path("run/calibration.json"))["instances"];
  REQUIRE(calibration.size() == 1);
  CHECK(calibration[0]["inner"].get<int>() > 1);
  for (const auto& x : read_jsonl(s.path("run/samples.jsonl"))) CHECK(x["inner"] == calibration[0]["inner"]);
  check_samples(s, 2);
}

TEST_CASE("a rank killed by SIGSEGV fails its group: the other rank is stopped, the samples are retried") {
  Scratch s("ranks-segv");
  const auto begin = std::chrono::steady_clock::now();
  const auto r = run_faulty(s, "ISOBENCH_TEST_FAULT=segv-after:1", "--worker-timeout 60");
  // Far below --worker-timeout: the surviving rank was stopped, not left waiting to time out.
  CHECK(std::chrono::steady_clock::now() - begin < std::chrono::seconds(30));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(read_json(s.path("run/run.json"))["status"] == "complete");
  const auto f = only_failure(s);
  const std::string reason = f["reason"];
  CHECK_MESSAGE(reason.rfind("rank 1 (pid ", 0) == 0, reason);
  CHECK_MESSAGE(reason.find("killed by SIGSEGV") != std::string::npos, reason);
  CHECK(f["signal"] == 11);  // the failed rank's end, not rank 0's (which the orchestrator killed)
  CHECK(slurp(s.path("run/log.txt")).find("[rank-stopped]") != std::string::npos);
  check_samples(s, 4);
  // The first group's samples published before the crash are kept and the retry measured only the
  // rest (each slot once: check_samples). On a loaded machine rank 0 may not have published its
  // first sample before the group was stopped; then the retry measured them all (one pid, not 2).
  std::set<std::int64_t> rank0_pids;
  for (const auto& x : read_jsonl(s.path("run/samples.jsonl"))) rank0_pids.insert(x["worker_pid"].get<std::int64_t>());
  CHECK((rank0_pids.size() == 1 || rank0_pids.size() == 2));
  check_no_worker_left(s);
}

TEST_CASE("a rank that never reaches the barrier is killed after --worker-timeout with its group") {
  Scratch s("ranks-hang");
  const auto r = run_faulty(s, "ISOBENCH_TEST_FAULT=hang", "--worker-timeout 1");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string reason = only_failure(s)["reason"];
  CHECK_MESSAGE(reason.rfind("rank 1 (pid ", 0) == 0, reason);
  CHECK_MESSAGE(reason.find("hung: no heartbeat") != std::string::npos, reason);
  CHECK(read_json(s.path("run/run.json"))["status"] == "complete");
  check_samples(s, 4);
  check_no_worker_left(s);
}

TEST_CASE("ranks waiting at the barrier leave by themselves when another rank aborts the group") {
  Scratch s("ranks-abort");
  // Rank 1 aborts the group, then stays alive and silent: rank 0 must not wait for it.
  const auto begin = std::chrono::steady_clock::now();
  const auto r = run_faulty(s, "ISOBENCH_TEST_FAULT=abort-group", "--worker-timeout 60");
  CHECK(std::chrono::steady_clock::now() - begin < std::chrono::seconds(30));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string reason = only_failure(s)["reason"];
  CHECK_MESSAGE(reason == "exit code 3: the rank group was aborted: rank 1 failed", reason);
  CHECK(slurp(s.path("run/log.txt")).find("[rank-stopped]") != std::string::npos);
  check_samples(s, 4);
  check_no_worker_left(s);
}

TEST_CASE("ranks out of range: one line naming the file and the field") {
  Scratch s("ranks-bad");
  const auto sweep = s.write("bad.yaml", "benchmarks:\n  - kernel: cpu_allgather_matmul\n    axes: {ranks: [9]}\n");
  const auto r = run(bin("orchestrate") + " --device cpu --quiet --out " + s.path("run") + " " + sweep, s);
  CHECK(r.exit_code != 0);
  CHECK_MESSAGE(r.err.find("bad.yaml") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("ranks") != std::string::npos, r.err);
}
