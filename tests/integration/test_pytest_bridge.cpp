// The pytest bridge (docs/python.md, "Existing pytest benchmarks") through the real orchestrate,
// its collector and a zygote: a pytest-benchmark file's tests that take the `benchmark` fixture
// become instances with their parametrization as parameters, a test without it is named and left
// out, the test bodies run untimed in forked workers of the zygote that imported the file, and a
// failing test or a file that does not import is one clear line naming file and test.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

// Every import appends "<pid>" to imports.txt, every test body "<pid> <parent pid> <id>" to
// bodies.txt. work() spins `us` microseconds: what the samples time.
const char* kTests = R"(import os, time
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "imports.txt"), "a") as f:
    f.write("%d\n" % os.getpid())


def body(name):
    with open(os.path.join(HERE, "bodies.txt"), "a") as f:
        f.write("%d %d %s\n" % (os.getpid(), os.getppid(), name))


def work(us):
    end = time.perf_counter() + us * 1e-6
    while time.perf_counter() < end:
        pass
    return us


@pytest.mark.parametrize("us", [40, 400])
def test_spin(benchmark, us):
    body("spin%d" % us)
    assert benchmark(work, us) == us


def test_no_fixture():
    pass


def test_wrong(benchmark):
    assert benchmark(work, 1) == 2, "one is not two"
)";

struct Run {
  Result result;
  std::vector<nlohmann::json> samples;
};

Run run_pytest(const Scratch& s, const std::string& entry, const std::string& args = "") {
  s.write("test_bench.py", kTests);
  const auto sweep = s.write("sweep.yaml", "settings: {samples: 4, warmup: 1}\nbenchmarks:\n" + entry);
  Run r;
  r.result = run(bin("orchestrate") + " --device cpu --format none " + args + " --out " + s.path("run") + " " + sweep, s);
  if (std::filesystem::exists(s.path("run/samples.jsonl"))) r.samples = read_jsonl(s.path("run/samples.jsonl"));
  return r;
}

}  // namespace

TEST_CASE("the tests that take the benchmark fixture are instances, timed in workers of one zygote") {
  Scratch s("pytest-bridge");
  const auto r = run_pytest(s, "  - pytest: test_bench.py\n    select: not wrong\n    device: cpu\n", "--per sample");
  REQUIRE_MESSAGE(r.result.exit_code == 0, r.result.err);
  CHECK(r.result.err.find("1 test of " + s.path("test_bench.py") +
                          " without the benchmark fixture, not measured: test_no_fixture") != std::string::npos);
  std::map<std::string, std::vector<double>> values;
  std::set<long long> workers;
  for (const auto& x : r.samples) {
    values[x["instance"]].push_back(x["value"].get<double>());
    workers.insert(x["worker_pid"].get<long long>());
  }
  REQUIRE(values.size() == 2);
  REQUIRE(values["test_spin[us=40]"].size() == 4);
  REQUIRE(values["test_spin[us=400]"].size() == 4);
  // What the test handed over is timed, launch by launch: 400 us of spinning, not the body's work.
  for (double v : values["test_spin[us=400]"]) CHECK(v >= 400e-6);
  for (double v : values["test_spin[us=40]"]) CHECK(v >= 40e-6);
  CHECK(workers.size() == 8);  // --per sample: a fresh worker each
  const auto plan = read_json(s.path("run/plan.json"));
  bool found = false;
  for (const auto& p : plan["instances"])
    if (p["id"] == "test_spin[us=400]") {
      found = true;
      CHECK(p["params"] == nlohmann::json{{"us", 400}});
      CHECK(p["python_function"] == "test_spin[400]");
    }
  CHECK(found);
  // Imported twice: by the collector when the sweep was loaded and by the zygote; every body ran
  // in a worker forked from the zygote, once per worker (its set-up), never in a sample.
  const auto imports = lines(s.path("imports.txt"));
  REQUIRE(imports.size() == 2);
  const auto bodies = lines(s.path("bodies.txt"));
  CHECK(bodies.size() >= 8);
  std::set<long long> body_pids;
  for (const auto& line : bodies) {
    std::istringstream fields(line);
    long long pid = 0, parent = 0;
    fields >> pid >> parent;
    CHECK(std::to_string(parent) == imports[1]);
    body_pids.insert(pid);
  }
  for (long long w : workers) CHECK(body_pids.count(w) == 1);
}

TEST_CASE("a failing test fails its workers with the file, the test and the assertion") {
  Scratch s("pytest-bridge-fails");
  const auto r = run_pytest(s, "  - pytest: test_bench.py\n    select: wrong\n    device: cpu\n", "--retries 0");
  CHECK(r.result.exit_code == 3);
  const std::string log = slurp(s.path("run/log.txt"));
  CHECK(log.find(s.path("test_bench.py") + "::test_wrong failed in its call: AssertionError: one is not two") !=
        std::string::npos);
}

TEST_CASE("a pytest file that does not import, or an entry that mixes kinds, is refused before anything runs") {
  Scratch s("pytest-bridge-bad");
  s.write("test_broken.py", "import no_such_module_for_isobench\n\ndef test_a(benchmark):\n    benchmark(len, '')\n");
  auto r = run_pytest(s, "  - pytest: test_broken.py\n    device: cpu\n");
  CHECK(r.result.exit_code == 2);
  CHECK(r.result.err.find("benchmarks[0].pytest: " + s.path("test_broken.py") + " does not collect") != std::string::npos);
  CHECK(r.result.err.find("No module named 'no_such_module_for_isobench'") != std::string::npos);
  CHECK(!std::filesystem::exists(s.path("run")));
  r = run_pytest(s, "  - pytest: test_bench.py\n    axes: {us: 3}\n");
  CHECK(r.result.exit_code == 2);
  CHECK(r.result.err.find("a pytest benchmark takes its instances from the file's tests") != std::string::npos);
  r = run_pytest(s, "  - pytest: test_bench.py\n    select: no_such_test\n");
  CHECK(r.result.exit_code == 2);
  CHECK(r.result.err.find("no collected test takes the benchmark fixture (0 collected with -k no_such_test)") !=
        std::string::npos);
  r = run_pytest(s, "  - pytest: missing.py\n");
  CHECK(r.result.exit_code == 2);
  CHECK(r.result.err.find(s.path("missing.py") + ": no such file") != std::string::npos);
}

TEST_CASE("the tests are collected by the run's --python, not by python3 from PATH") {
  // A wrapper interpreter that notes each start and hands over to python3: the collector and the
  // zygote both start it.
  Scratch s("pytest-bridge-python");
  s.write("mypython", "#!/bin/sh\necho \"$@\" | cut -c1-40 >> \"$(dirname \"$0\")/started.txt\"\nexec python3 \"$@\"\n");
  std::filesystem::permissions(s.path("mypython"), std::filesystem::perms::owner_all);
  const auto r = run_pytest(s, "  - pytest: test_bench.py\n    select: spin\n    device: cpu\n", "--python " + s.path("mypython"));
  REQUIRE_MESSAGE(r.result.exit_code == 0, r.result.err);
  const auto started = lines(s.path("started.txt"));
  CHECK(started.size() == 2);  // the collector, then the zygote
  CHECK(std::count_if(started.begin(), started.end(), [](const std::string& l) { return l.rfind("-c ", 0) == 0; }) == 1);
  // An interpreter that is not there: the collector says so, before anything runs.
  const auto missing = run_pytest(s, "  - pytest: test_bench.py\n    device: cpu\n", "--python " + s.path("nopython"));
  CHECK(missing.result.exit_code == 2);
  CHECK(missing.result.err.find(s.path("nopython") + ": not found, or not executable") != std::string::npos);
}

TEST_CASE("the tests are collected with the run's --python-env and --python-path, as its zygote imports them") {
  // A test file that imports only with a module found on --python-path and a variable given by
  // --python-env: the collector must see both, as the zygote does.
  Scratch s("pytest-bridge-env");
  std::filesystem::create_directories(s.path("lib"));
  s.write("lib/bench_helpers.py", "def work(us):\n    return us\n");
  s.write("test_env.py", R"(import os
import bench_helpers
if os.environ.get("ISOBENCH_TEST_MARK") != "on":
    raise ImportError("ISOBENCH_TEST_MARK is not on")


def test_helper(benchmark):
    assert benchmark(bench_helpers.work, 3) == 3
)");
  const std::string entry = "  - pytest: test_env.py\n    device: cpu\n";
  auto r = run_pytest(s, entry, "--python-path " + s.path("lib") + " --python-env ISOBENCH_TEST_MARK=on");
  REQUIRE_MESSAGE(r.result.exit_code == 0, r.result.err);
  CHECK(r.samples.size() == 4);
  for (const auto& x : r.samples) CHECK(x["instance"] == "test_helper[]");  // no parametrization
  // Without the folder, or without the variable, the file does not collect: it names why.
  r = run_pytest(s, entry, "--python-env ISOBENCH_TEST_MARK=on");
  CHECK(r.result.exit_code == 2);
  CHECK(r.result.err.find("No module named 'bench_helpers'") != std::string::npos);
  r = run_pytest(s, entry, "--python-path " + s.path("lib"));
  CHECK(r.result.exit_code == 2);
  CHECK(r.result.err.find("ISOBENCH_TEST_MARK is not on") != std::string::npos);
  // A malformed variable is refused naming its option, before anything is collected.
  r = run_pytest(s, entry, "--python-env ISOBENCH_TEST_MARK");
  CHECK(r.result.exit_code == 2);
  CHECK(r.result.err.find("--python-env ISOBENCH_TEST_MARK: expected NAME=VALUE") != std::string::npos);
}
