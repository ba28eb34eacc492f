// Benchmark scripts through the do_bench route (docs/python.md, "do_bench scripts"): `orchestrate ab
// --script FILE --script-arg ARG...` and the sweep key `script:` on the stand-in scripts of
// tests/python/fake_liger (in the style of Liger-Kernel's benchmark/scripts) with the stand-in
// triton.testing. Each timing call of the script's run is an instance, KERNEL/PROVIDER/MODE/X (the
// reference provider's the controls); a slowdown planted in one provider's forward is SLOWER there only; every worker runs the script
// once and ends it inside its last call, and nothing the script writes lands beside it; bad input
// is one line, exit 2, before anything runs.

#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

std::string scripts() { return source_dir() + "/tests/python/fake_liger/scripts"; }

std::string ab_script(const std::string& script, const std::string& options) {
  return bin("orchestrate") + " ab --quiet --device cpu --script " + scripts() + "/" + script + " --python-path " +
         source_dir() + "/tests/python/fake_triton " + options;
}

}  // namespace

TEST_CASE("a benchmark script: each timing call an instance, SLOWER only where planted, one run of the script per worker") {
  Scratch s("script-route");
  const std::string log = s.path("log.txt");
  // Sequential with the extension, as the do_bench suites' A/B (tests/integration/test_pytest_bridge.cpp).
  const auto r = run("FAKE_LIGER_LOG=" + log + " " +
                         ab_script("benchmark_norm.py",
                                   "--script-arg=--x-values --script-arg=128 --script-arg=256 --format json "
                                   "--candidate-env FAKE_LIGER_SLOW=liger/forward --max-samples 20 --extend-to 60 "
                                   "--inner 5 --out " + s.path("run")),
                     s);
  REQUIRE_MESSAGE(r.exit_code == 1, r.err);
  const auto found = verdicts(nlohmann::json::parse(r.out));
  std::string seen;
  for (const auto& [instance, verdict] : found) seen += instance + " " + verdict + "; ";
  INFO(seen);
  REQUIRE(found.size() == 8);
  for (const auto& [instance, verdict] : found) {
    CHECK(instance.starts_with("benchmark_norm::norm/"));
    if (instance.find("/liger/forward/") != std::string::npos)
      CHECK(verdict == "SLOWER");
    else
      CHECK((verdict == "SAME" || verdict == "UNCERTAIN"));
  }
  CHECK(found.count("benchmark_norm::norm/reference/full/256") == 1);
  // The reference provider's calls are the controls (Liger's huggingface and torch references).
  for (const auto& row : nlohmann::json::parse(r.out)["instances"])
    CHECK(row.value("control", false) == (row["instance"].get<std::string>().find("/reference/") != std::string::npos));
  const auto plan = read_json(s.path("run/plan.json"));
  CHECK(plan["call_chains"] == nlohmann::json::parse("[[0, 1, 2, 3, 4, 5, 6, 7]]"));
  const auto sweep = slurp(s.path("run/sweep.yaml"));
  CHECK(sweep.find("\"script\": \"" + scripts() + "/benchmark_norm.py\"") != std::string::npos);
  CHECK(sweep.find("\"name\": \"script-benchmark_norm\"") != std::string::npos);

  // The log: "call KERNEL PROVIDER MODE X KIND PID" per call returned, "csv PATH PID" and "end PID"
  // where the script ran to its end: only in the collector, whose CSV went to a temporary folder.
  std::set<long long> workers;
  for (const auto& sample : read_jsonl(s.path("run/samples.jsonl"))) workers.insert(sample["worker_pid"].get<long long>());
  std::map<std::string, std::set<std::string>> returned;  // pid -> calls returned in it
  std::map<std::string, int> ends;
  std::istringstream in(slurp(log));
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    REQUIRE(!w.empty());
    if (w[0] == "call") {
      INFO(line);
      CHECK_MESSAGE(returned[w.back()].insert(w[2] + "/" + w[3] + "/" + w[4]).second, "a call returned twice in one process");
      CHECK(w[5] == "list3");  // do_bench's kind with quantiles=
    } else {
      ++ends[w.back()];
      if (w[0] == "csv") CHECK_MESSAGE(!w[1].starts_with(source_dir()), line);
    }
  }
  CHECK(ends.size() == 1);  // the collector's run, to its end (csv and end)
  for (const auto& [pid, n] : ends) {
    CHECK(n == 2);
    CHECK(workers.count(std::stoll(pid)) == 0);
  }
  for (const auto pid : workers) CHECK(returned[std::to_string(pid)].size() < 8);  // the last call never returns
  CHECK(!std::filesystem::exists(source_dir() + "/tests/python/fake_liger/data"));
}

TEST_CASE("a benchmark script that is missing, times nothing or refuses its arguments is one line, exit 2") {
  Scratch s("script-route-bad");
  const std::string options = "--format none --candidate-env X=1 --out " + s.path("run");
  auto r = run(bin("orchestrate") + " ab --quiet --script " + s.path("missing.py") + " " + options, s);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "orchestrate: --script: File does not exist: " + s.path("missing.py") + "\n");
  r = run(ab_script("benchmark_untimed.py", options), s);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "orchestrate: " + scripts() + "/benchmark_untimed.py: the script made no timing call through "
                 "triton.testing.do_bench or do_bench_cudagraph (run as __main__ without arguments)\n");
  r = run(ab_script("benchmark_norm.py", "--script-arg=--modes --script-arg=sideways " + options), s);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "orchestrate: " + scripts() + "/benchmark_norm.py exited with code 2 while its timing calls were "
                 "listed with arguments --modes sideways: benchmark_norm.py: error: argument --modes: invalid choice: "
                 "'sideways' (choose from 'forward', 'backward', 'full')\n");
  r = run(ab_script("benchmark_norm.py", "--pytest " + scripts() + "/benchmark_norm.py " + options), s);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "orchestrate: --pytest excludes --script\n");
  CHECK(!std::filesystem::exists(s.path("run")));
}

TEST_CASE("a sweep's script: entry takes args and a device, and refuses the keys of other kinds") {
  Scratch s("script-route-sweep");
  const auto sweep = [&](const std::string& entry) {
    return s.write("sweep.yaml", "settings: {samples: 3, warmup: 1}\nbenchmarks:\n" + entry);
  };
  const std::string orchestrate = bin("orchestrate") + " --quiet --format none --device cpu --python-path " +
                                  source_dir() + "/tests/python/fake_triton --out " + s.path("run") + " ";
  auto r = run(orchestrate + sweep("  - script: " + scripts() + "/benchmark_norm.py\n    args: [--x-values, '64', "
                                   "--modes, forward]\n    device: cpu\n"),
               s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::set<std::string> ids;
  const auto plan = read_json(s.path("run/plan.json"));
  for (const auto& instance : plan["instances"]) ids.insert(instance["id"].get<std::string>());
  CHECK(ids == std::set<std::string>{"benchmark_norm::norm/reference/forward/64", "benchmark_norm::norm/liger/forward/64"});
  r = run(orchestrate + sweep("  - script: " + scripts() + "/benchmark_norm.py\n    select: norm\n"), s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("sweep.yaml:4:13: benchmarks[0]: a benchmark script is run as it is, with its args: no pytest, "
                   "select or timing") != std::string::npos);
  r = run(orchestrate + sweep("  - script: missing.py\n"), s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("benchmarks[0].script: " + s.path("missing.py") + ": no such file") != std::string::npos);
}
