// SIGINT and SIGKILL of the orchestrator: nothing measured is lost, and --resume finishes the
// run with exactly the planned samples.

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

const char* kSweep = R"(settings: {samples: 30, warmup: 1, inner: 2, seed: 9}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [50, 100]}
)";

// Starts orchestrate in the background, waits until the journal holds `lines` samples, then
// sends `sig`. Returns the wait status; `pid` gets the orchestrator's pid.
int start_and_signal(const Scratch& s, int sig, std::size_t lines, pid_t* orchestrator = nullptr) {
  const auto sweep = s.write("resume.yaml", kSweep);
  const pid_t pid = spawn({bin("orchestrate"), "--device", "cpu", "--quiet", "--isolation", "process", "--per",
                          "sample", "--out", s.path("run"), sweep},
                         s);
  wait_for_samples(s.path("run/samples.jsonl"), lines);
  kill(pid, sig);
  if (orchestrator) *orchestrator = pid;
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

void check_resumed_complete(const Scratch& s) {
  const auto r = run(bin("orchestrate") + " --quiet --resume " + s.path("run"), s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto samples = read_jsonl(s.path("run/samples.jsonl"));
  CHECK(samples.size() == 60);
  std::set<std::uint32_t> slots;
  for (const auto& x : samples) CHECK(slots.insert(x["slot"].get<std::uint32_t>()).second);
  CHECK(slots.size() == 60);
  CHECK(read_json(s.path("run/run.json"))["status"] == "complete");
  // A second resume has nothing to do.
  const auto again = run(bin("orchestrate") + " --quiet --resume " + s.path("run"), s);
  CHECK(again.exit_code == 0);
  CHECK(read_jsonl(s.path("run/samples.jsonl")).size() == 60);
}

}  // namespace

TEST_CASE("SIGINT: workers stopped, segment removed, run marked interrupted, resume completes it") {
  Scratch s("sigint");
  const int status = start_and_signal(s, SIGINT, 5);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(read_json(s.path("run/run.json"))["status"] == "interrupted");
  const auto kept = read_jsonl(s.path("run/samples.jsonl")).size();
  CHECK(kept >= 5);
  CHECK(kept < 60);
  check_resumed_complete(s);
}

TEST_CASE("SIGKILL: the stale segment is removed on the next start and resume completes the run") {
  Scratch s("sigkill");
  pid_t killed = 0;
  const int status = start_and_signal(s, SIGKILL, 5, &killed);
  REQUIRE(WIFSIGNALED(status));
  // The killed orchestrator's segment (its pid is in the name) stays behind until some orchestrator
  // starts (another test running in parallel may be the one that removes it)...
  const std::string prefix = "isobench-" + std::to_string(killed) + "-";
  auto segments_of_killed = [&] {
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator("/dev/shm"))
      if (e.path().filename().string().rfind(prefix, 0) == 0) ++n;
    return n;
  };
  CHECK(segments_of_killed() <= 1);
  // ...until the next start removes it, and the resume completes the run.
  check_resumed_complete(s);
  CHECK(segments_of_killed() == 0);
}
