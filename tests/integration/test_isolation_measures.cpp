// The isolation measures idle_gap_ms and realloc through the real orchestrate and worker (CPU
// backend): the pause shows between the journaled sample timestamps, and realloc's re-setups are
// counted by a plugin that logs every setup() and teardown() (setup_counter_plugin.cpp).

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

std::string counter_plugin() { return binary_dir() + "/lib/libisobench_test_setup_counter.so"; }

struct LogLine {
  std::string what;  // setup | teardown
  long pid = 0;
  unsigned long long seed = 0;  // setup only
};

std::vector<LogLine> read_setup_log(const std::string& path) {
  std::vector<LogLine> lines;
  std::istringstream in(slurp(path));
  for (std::string text; std::getline(in, text);) {
    std::istringstream fields(text);
    LogLine l;
    fields >> l.what >> l.pid;
    if (l.what == "setup") fields >> l.seed;
    lines.push_back(l);
  }
  return lines;
}

std::size_t count(const std::vector<LogLine>& lines, const std::string& what) {
  return static_cast<std::size_t>(
      std::count_if(lines.begin(), lines.end(), [&](const LogLine& l) { return l.what == what; }));
}

}  // namespace

TEST_CASE("idle_gap_ms: consecutive samples of one worker lie at least the gap apart") {
  Scratch s("idle-gap");
  // One worker (sequential) takes all 3 samples; cpu_spin of 200 us x 5 keeps each sample short,
  // so the pause between samples is the gap, not the kernel.
  const auto sweep = s.write("gap.yaml",
                             "settings: {samples: 3, warmup: 1, inner: 5, isolation: sequential, idle_gap_ms: 30}\n"
                             "benchmarks:\n"
                             "  - kernel: cpu_spin\n"
                             "    axes: {microseconds: 200}\n");
  const std::string orchestrate = bin("orchestrate") + " --device cpu --quiet --format none";
  const auto r = run(orchestrate + " --out " + s.path("run") + " " + sweep, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  auto samples = read_jsonl(s.path("run/samples.jsonl"));
  REQUIRE(samples.size() == 3);
  std::sort(samples.begin(), samples.end(), [](const auto& a, const auto& b) { return a["begin_ns"] < b["begin_ns"]; });
  for (std::size_t i = 1; i < samples.size(); ++i) {
    CHECK(samples[i]["worker_pid"] == samples[0]["worker_pid"]);
    const auto gap_ns = samples[i]["begin_ns"].get<std::uint64_t>() - samples[i - 1]["end_ns"].get<std::uint64_t>();
    CHECK_MESSAGE(gap_ns >= 30'000'000u, gap_ns);
  }
  // The sample itself stays the kernel's time: the pause is outside the timed region.
  for (const auto& x : samples) CHECK(x["value"].get<double>() < 0.010);
  const auto plan = read_json(s.path("run/plan.json"));
  CHECK(plan["instances"][0]["idle_gap_ms"] == 30.0);
  CHECK(plan["instances"][0]["realloc"] == false);

  // The command line overrides the file, as for every measurement setting.
  const auto off = run(orchestrate + " --idle-gap-ms 0 --out " + s.path("off") + " " + sweep, s);
  REQUIRE_MESSAGE(off.exit_code == 0, off.err);
  CHECK(read_json(s.path("off/plan.json"))["instances"][0]["idle_gap_ms"] == 0.0);
}

TEST_CASE("realloc: the worker sets the instance up again, with the same seed, before every sample") {
  Scratch s("realloc");
  const std::string log = s.path("setups.log");
  const auto sweep = s.write("realloc.yaml",
                             "settings: {samples: 3, warmup: 1, inner: 2, isolation: sequential, realloc: true}\n"
                             "benchmarks:\n"
                             "  - plugin: " + counter_plugin() + "\n"
                             "    kernel: setup_counter\n"
                             "  - kernel: cpu_copy\n"
                             "    axes: {bytes: 65536}\n");
  const std::string orchestrate =
      "ISOBENCH_TEST_SETUP_LOG=" + log + " " + bin("orchestrate") + " --device cpu --quiet --format none";
  auto r = run(orchestrate + " --out " + s.path("run") + " " + sweep, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto samples = read_jsonl(s.path("run/samples.jsonl"));
  CHECK(samples.size() == 6);  // both instances, built-in and plugin, measured under realloc
  for (const auto& x : samples) CHECK(x["value"].get<double>() > 0);

  // One worker: the first setup, then one more before each of the 3 samples; every instance made
  // is torn down (3 before their successors, the last one at exit); always the plan's seed.
  const auto lines = read_setup_log(log);
  CHECK(count(lines, "setup") == 4);
  CHECK(count(lines, "teardown") == 4);
  const auto plan = read_json(s.path("run/plan.json"));
  REQUIRE(plan["instances"][0]["kernel"] == "setup_counter");
  CHECK(plan["instances"][0]["realloc"] == true);
  const auto seed = plan["instances"][0]["seed"].get<unsigned long long>();
  for (const auto& l : lines) {
    CHECK(l.pid == lines.front().pid);
    if (l.what == "setup") CHECK(l.seed == seed);
  }
  // setup, teardown, setup, ...: the old instance goes before the new one is made.
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) CHECK(lines[i].what != lines[i + 1].what);

  // Without realloc the worker sets the instance up once.
  std::filesystem::remove(log);
  r = run(orchestrate + " --realloc false --out " + s.path("once") + " " + sweep, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(count(read_setup_log(log), "setup") == 1);
}

TEST_CASE("realloc on a command benchmark is refused before anything runs") {
  Scratch s("realloc-command");
  const auto sweep = s.write("command.yaml",
                             "settings: {samples: 2}\n"
                             "benchmarks:\n"
                             "  - command: [true]\n"
                             "    name: noop\n"
                             "    settings: {realloc: true}\n");
  const auto r = run(bin("orchestrate") + " --device cpu --quiet --out " + s.path("run") + " " + sweep, s);
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.find("command.yaml:5:16: benchmarks[0].settings.realloc: realloc does not apply to a command "
                           "benchmark") != std::string::npos,
                r.err);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(!std::filesystem::exists(s.path("run")));
}
