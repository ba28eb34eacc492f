// The pytest bridge (docs/python.md, "Existing pytest benchmarks") through the real orchestrate,
// its collector and a zygote: a pytest-benchmark file's tests that take the `benchmark` fixture
// become instances with their parametrization as parameters, a test without it is named and left
// out, the test bodies run untimed in forked workers of the zygote that imported the file, and a
// failing test or a file that does not import is one clear line naming file and test.

#include <doctest/doctest.h>
#include <signal.h>

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
  const auto r = run_pytest(s, "  - pytest: test_bench.py\n    select: not wrong\n    device: cpu\n",
                            "--per sample --zygotes per-run");
  REQUIRE_MESSAGE(r.result.exit_code == 0, r.result.err);
  CHECK(r.result.err.find("1 test of " + s.path("test_bench.py") +
                          " without the benchmark fixture or mark, not measured: test_no_fixture") != std::string::npos);
  std::map<std::string, std::vector<double>> values;
  std::set<long long> workers;
  for (const auto& x : r.samples) {
    values[x["instance"]].push_back(x["value"].get<double>());
    workers.insert(x["worker_pid"].get<long long>());
  }
  REQUIRE(values.size() == 2);
  REQUIRE(values["test_spin[40]"].size() == 4);
  REQUIRE(values["test_spin[400]"].size() == 4);
  // What the test handed over is timed, launch by launch: 400 us of spinning, not the body's work.
  for (double v : values["test_spin[400]"]) CHECK(v >= 400e-6);
  for (double v : values["test_spin[40]"]) CHECK(v >= 40e-6);
  CHECK(workers.size() == 8);  // --per sample: a fresh worker each
  const auto plan = read_json(s.path("run/plan.json"));
  bool found = false;
  for (const auto& p : plan["instances"])
    if (p["id"] == "test_spin[400]") {
      found = true;
      CHECK(p["params"] == nlohmann::json{{"us", 400}});
      CHECK(p["python_function"] == "test_spin[400]");
    }
  CHECK(found);
  // Imported twice, at once: by the collector when the sweep was loaded and by the zygote; every
  // body ran in a worker forked from the zygote, once per worker (its set-up), never in a sample.
  const auto imports = lines(s.path("imports.txt"));
  REQUIRE(imports.size() == 2);
  const auto python = read_json(s.path("run/python.json"));
  const auto zygote = std::to_string(python["sides"][0]["zygote"]["pid"].get<long long>());
  CHECK(std::count(imports.begin(), imports.end(), zygote) == 1);
  const auto bodies = lines(s.path("bodies.txt"));
  CHECK(bodies.size() >= 8);
  std::set<long long> body_pids;
  for (const auto& line : bodies) {
    std::istringstream fields(line);
    long long pid = 0, parent = 0;
    fields >> pid >> parent;
    CHECK(std::to_string(parent) == zygote);
    body_pids.insert(pid);
  }
  for (long long w : workers) CHECK(body_pids.count(w) == 1);
}

TEST_CASE("the zygote makes the pytest session its workers set their tests up in, each test's fixtures torn down before the samples") {
  Scratch s("pytest-bridge-session");
  // conftest.py: every pytest configuration (one per session) appends its pid to configures.txt;
  // a module fixture logs its set-up and teardown with the pid.
  s.write("conftest.py", R"(import os
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def pytest_configure(config):
    with open(os.path.join(HERE, "configures.txt"), "a") as f:
        f.write("%d\n" % os.getpid())


@pytest.fixture(scope="module", autouse=True)
def logged():
    with open(os.path.join(HERE, "fixtures.txt"), "a") as f:
        f.write("%d up\n" % os.getpid())
    yield
    with open(os.path.join(HERE, "fixtures.txt"), "a") as f:
        f.write("%d down\n" % os.getpid())
)");
  const auto r = run_pytest(s, "  - pytest: test_bench.py\n    select: spin\n    device: cpu\n");
  REQUIRE_MESSAGE(r.result.exit_code == 0, r.result.err);
  std::map<std::string, int> samples_per_worker;
  for (const auto& x : r.samples) ++samples_per_worker[std::to_string(x["worker_pid"].get<long long>())];
  REQUIRE(samples_per_worker.size() >= 4);
  const auto configures = lines(s.path("configures.txt"));
  std::map<std::string, std::vector<std::string>> fixture_events;
  for (const auto& line : lines(s.path("fixtures.txt"))) {
    const auto space = line.find(' ');
    fixture_events[line.substr(0, space)].push_back(line.substr(space + 1));
  }
  for (const auto& [pid, n] : samples_per_worker) {
    CHECK(n == 2);  // both tests, per batch
    CHECK(std::count(configures.begin(), configures.end(), pid) == 0);  // the zygote's session, not one per test
    CHECK(fixture_events[pid] == std::vector<std::string>{"up", "down", "up", "down"});
  }
  // The zygote configured pytest once: the session of its collection is the one its workers run
  // their tests in, and it ran no test in it.
  const auto python = read_json(s.path("run/python.json"));
  const auto zygote = std::to_string(python["sides"][0]["zygote"]["pid"].get<long long>());
  CHECK(std::count(configures.begin(), configures.end(), zygote) == 1);
  CHECK(fixture_events.count(zygote) == 0);
}

TEST_CASE("a failing test fails its workers with the file, the test and the assertion") {
  Scratch s("pytest-bridge-fails");
  const auto r = run_pytest(s, "  - pytest: test_bench.py\n    select: wrong\n    device: cpu\n", "--retries 0");
  CHECK(r.result.exit_code == 3);
  const std::string log = slurp(s.path("run/log.txt"));
  CHECK(log.find(s.path("test_bench.py") + "::test_wrong failed in its call: AssertionError: one is not two") !=
        std::string::npos);
}

TEST_CASE("tests that their skip or skipif marks skip are named in a note and left out; the others are measured") {
  // Before, each was an instance whose set-up met the skip: every worker exited 3, and the run
  // stopped with nothing measured.
  Scratch s("pytest-bridge-skips");
  s.write("test_marks.py", R"PY(import sys
import pytest


def test_kept(benchmark):
    benchmark(sum, range(10))


@pytest.mark.skipif(sys.platform == "linux", reason="not on this platform")
def test_skipif(benchmark):
    benchmark(sum, range(10))


@pytest.mark.skipif("sys.version_info < (3, 0)", reason="needs Python 3")
def test_kept_by_its_condition(benchmark):
    benchmark(sum, range(10))


@pytest.mark.skip
def test_skip(benchmark):
    benchmark(sum, range(10))
)PY");
  const auto sweep = s.write("sweep.yaml", "settings: {samples: 3, warmup: 1}\nbenchmarks:\n  - pytest: test_marks.py\n    device: cpu\n");
  const auto r = run(bin("orchestrate") + " --device cpu --format none --out " + s.path("run") + " " + sweep, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("2 tests of " + s.path("test_marks.py") + " that a skip or skipif mark skips here, not measured: "
                   "test_skipif (not on this platform), test_skip (unconditional skip)") != std::string::npos);
  std::map<std::string, int> counts;
  for (const auto& x : read_jsonl(s.path("run/samples.jsonl"))) ++counts[x["instance"].get<std::string>()];
  CHECK(counts == std::map<std::string, int>{{"test_kept", 3}, {"test_kept_by_its_condition", 3}});
  // Every test skipped: refused before anything runs, saying so. (-k matches the names of the
  // test's parents too, the scratch folder's among them: "test_skip" is in no other name.)
  const auto all = s.write("all.yaml", "benchmarks:\n  - pytest: test_marks.py\n    select: test_skip\n    device: cpu\n");
  const auto refused = run(bin("orchestrate") + " --device cpu --format none --out " + s.path("run2") + " " + all, s);
  CHECK(refused.exit_code == 2);
  CHECK_MESSAGE(refused.err.find("(2 collected with -k test_skip, 2 skipped by their marks)") != std::string::npos,
                refused.err);
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
  CHECK(r.result.err.find("no collected test takes the benchmark fixture or is marked benchmark (0 collected with -k no_such_test)") !=
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
  const auto r = run_pytest(s, "  - pytest: test_bench.py\n    select: spin\n    device: cpu\n", "--python " + s.path("mypython") + " --zygotes per-run");
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
  for (const auto& x : r.samples) CHECK(x["instance"] == "test_helper");  // pytest's id: no brackets
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

namespace {

// A test file whose import waits for another process importing it at the same time, a barrier
// over imports.txt: each importer writes "start PID ROLE", waits until another live process has
// started, writes "saw PID ROLE" and waits until another has seen it, then writes "met PID ROLE"
// (or "alone" after 30 s). The collector meets a zygote only when the zygote imports the file
// while it is collected; one after the other, the collector waits the 30 s out alone.
const char* kMeetingTests = R"(import os, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
LOG = os.path.join(HERE, "imports.txt")
ROLE = "collector" if "collect" in sys.argv else "zygote"
ME = os.getpid()


def note(what):
    with open(LOG, "a") as f:
        f.write("%s %d %s\n" % (what, ME, ROLE))


def others(what):
    with open(LOG) as f:
        return [int(w[1]) for w in (line.split() for line in f) if w and w[0] == what and int(w[1]) != ME]


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def within(seconds, condition):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


note("start")
met = within(30, lambda: any(alive(pid) for pid in others("start")))
if met:
    note("saw")
    met = within(30, lambda: others("saw"))
note("met" if met else "alone")


def test_len(benchmark):
    assert benchmark(len, "abc") == 3
)";

// The importers' last words in imports.txt: pid -> "met ROLE" or "alone ROLE".
std::map<long long, std::string> meetings(const Scratch& s) {
  std::map<long long, std::string> out;
  for (const auto& line : lines(s.path("imports.txt"))) {
    std::istringstream fields(line);
    std::string what, role;
    long long pid = 0;
    fields >> what >> pid >> role;
    if (what == "met" || what == "alone") out[pid] = what + " " + role;
  }
  return out;
}

bool process_alive(long long pid) { return ::kill(static_cast<pid_t>(pid), 0) == 0; }

}  // namespace

TEST_CASE("each side's zygote imports a pytest file while the sweep's collection does, not after it") {
  Scratch s("pytest-bridge-early");
  s.write("test_meeting.py", kMeetingTests);
  std::filesystem::create_directories(s.path("a"));
  std::filesystem::create_directories(s.path("c"));
  const std::string ab = bin("orchestrate") + " ab --quiet --format none --device cpu --pytest " +
                         s.path("test_meeting.py") + " --baseline-pythonpath " + s.path("a") +
                         " --candidate-pythonpath " + s.path("c") + " --samples 20 --inner 10 --zygotes per-run ";
  auto r = run(ab + "--out " + s.path("run"), s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // Three imports at once: the collector's and both zygotes'. Each met another importer, the
  // collector too, and the zygotes are the run's.
  const auto met = meetings(s);
  REQUIRE(met.size() == 3);
  CHECK(std::count_if(met.begin(), met.end(), [](const auto& m) { return m.second == "met collector"; }) == 1);
  CHECK(std::count_if(met.begin(), met.end(), [](const auto& m) { return m.second == "met zygote"; }) == 2);
  const auto python = read_json(s.path("run/python.json"));
  for (const auto& side : python["sides"]) {
    CHECK(met.at(side["zygote"]["pid"].get<long long>()) == "met zygote");
    CHECK(side["zygote"]["imports"][0]["early"] == true);
  }
  // The run log says so, with the times it happened: each zygote was started and given the file
  // before the collection ended, then the run started.
  const std::string log = slurp(s.path("run/log.txt"));
  const auto collected = log.find("[pytest-collection] " + s.path("test_meeting.py") + ": 1 tests collected by ");
  REQUIRE(collected != std::string::npos);
  for (int side = 0; side < 2; ++side) {
    const std::string pid = std::to_string(python["sides"][side]["zygote"]["pid"].get<long long>());
    const auto early = log.find("[zygote-early] side " + std::to_string(side) + ": pid " + pid +
                                ", started ahead of the plan, imports " + s.path("test_meeting.py"));
    CHECK(early < collected);
    CHECK(log.find("[zygote-start] side " + std::to_string(side) + ": pid " + pid) > log.find("[run-start]"));
  }
  CHECK(collected < log.find("[run-start]"));
  CHECK(log.find("stopped: the plan did not take it") == std::string::npos);

  // Refused once collected (no test left by -k): exit 2 before anything runs, no run directory,
  // and no process left of those that imported the file (the collector and a zygote at least:
  // they met).
  std::filesystem::remove(s.path("imports.txt"));
  r = run(ab + "-k no_such_test --out " + s.path("refused"), s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("no collected test takes the benchmark fixture or is marked benchmark (0 collected with -k no_such_test)") !=
        std::string::npos);
  CHECK(!std::filesystem::exists(s.path("refused")));
  std::set<long long> importers;
  for (const auto& line : lines(s.path("imports.txt"))) {
    std::istringstream fields(line);
    std::string what;
    long long pid = 0;
    fields >> what >> pid;
    importers.insert(pid);
  }
  CHECK(importers.size() >= 2);
  for (long long pid : importers) CHECK_MESSAGE(!process_alive(pid), "pid " << pid << " is left");
}

TEST_CASE("a zygote started early does Triton's per-process work while the file is collected") {
  Scratch s("pytest-bridge-early-warm-up");
  s.write("test_triton.py", "import triton\n\n\ndef test_len(benchmark):\n    assert benchmark(len, 'abc') == 3\n");
  const std::string fake = source_dir() + "/tests/python/fake_triton";  // the stand-in Triton
  const auto r = run(bin("orchestrate") + " ab --quiet --format none --device cpu --pytest " + s.path("test_triton.py") +
                         " --baseline-pythonpath " + fake + " --candidate-pythonpath " + fake +
                         " --samples 8 --inner 10 --out " + s.path("run"),
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto python = read_json(s.path("run/python.json"));
  for (const auto& side : python["sides"]) {
    const auto& steps = side["zygote"]["warm_up"];
    REQUIRE(steps.size() >= 1);
    CHECK(steps[0]["step"] == "triton.runtime.cache.triton_key()");
    // Triton's steps none left to the load (the workers' pytest session is the early collection's).
    for (const auto& step : steps) CHECK(step.value("early", false));
  }
}

// The do_bench route (docs/python.md, "do_bench suites"): a file whose tests time through
// triton.testing.do_bench (tests/python/data/do_bench_suite.py, with the stand-in triton.testing)
// A/B'd with a slowdown planted in one operation on the candidate: each timing call an instance,
// SLOWER only where the slowdown is; bad input is one line, exit 2, before anything is measured.
TEST_CASE("a do_bench suite: each timing call an instance, SLOWER only where the slowdown is planted") {
  Scratch s("pytest-bridge-do-bench");
  const std::string fake = source_dir() + "/tests/python/fake_triton";
  const std::string suite = source_dir() + "/tests/python/data/do_bench_suite.py";
  const std::string ab = bin("orchestrate") + " ab --quiet --format json --device cpu --pytest " + suite +
                         " --python-path " + fake + " ";
  // Sequential with the extension, as the controls' case below (why: there).
  const auto r = run(
      ab + "-k plain --candidate-env DO_BENCH_SLOW=mul --max-samples 20 --extend-to 60 --inner 5 --out " + s.path("run"),
      s);
  REQUIRE_MESSAGE(r.exit_code == 1, r.err);
  std::map<std::string, std::string> verdicts;
  const auto comparison = nlohmann::json::parse(r.out);
  for (const auto& row : comparison["instances"])
    verdicts[row["instance"].get<std::string>()] = row["verdict"].get<std::string>();
  std::string seen;
  for (const auto& [instance, verdict] : verdicts) seen += instance + " " + verdict + "; ";
  INFO(seen);
  // The planted slowdown doubles the work of `mul`, the second call: SLOWER there, and nowhere
  // else (SAME, or UNCERTAIN on a loaded machine).
  REQUIRE(verdicts.size() == 4);
  for (const auto& [instance, verdict] : verdicts)
    if (instance.ends_with("bench_op#2"))
      CHECK(verdict == "SLOWER");
    else
      CHECK((verdict == "SAME" || verdict == "UNCERTAIN"));
  CHECK(read_json(s.path("run/python.json")).dump().find("FLAGGEMS_CACHE_DIR=" + s.path("run/flaggems-cache/side-1")) !=
        std::string::npos);

  auto bad = run(ab + "--pytest-timing fast --out " + s.path("bad1"), s);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--pytest-timing: fast not in {auto,fixture,do_bench}") != std::string::npos);
  const std::string none = source_dir() + "/tests/python/data/do_bench_none.py";
  bad = run(bin("orchestrate") + " ab --quiet --format none --device cpu --pytest " + none + " --pytest-timing do_bench "
                "--python-path " + fake + " --candidate-env X=1" + " --out " + s.path("bad2"), s);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "orchestrate: " + none + ": no collected test times through triton.testing.do_bench or do_bench_cudagraph "
                   "(1 collected)\n");
}

// One pass through a test per worker (docs/python.md, "do_bench suites"): a test of 30 timing
// calls (tests/python/data/do_bench_softmax.py, shaped like FlagGems' test_softmax at --level
// core) is one call chain in plan.json, and every worker runs it once, timing each call as the
// test reaches it, where each instance used to run it three times; the candidate's 8th call,
// twice as slow, is SLOWER, and no other call is.
TEST_CASE("a do_bench test's calls are timed in one pass through the test per worker, SLOWER at the planted call only") {
  Scratch s("pytest-bridge-do-bench-chain");
  const std::string tests = source_dir() + "/tests/python";
  // Sequential with the extension, as the cases above (why: the controls' case).
  const auto r = run("DO_BENCH_RUNS=" + s.path("runs.txt") + " " + bin("orchestrate") +
                         " ab --quiet --format json --device cpu --pytest " + tests + "/data/do_bench_softmax.py" +
                         " --python-path " + tests + "/fake_triton --candidate-env DO_BENCH_SLOW_CALL=8" +
                         " --max-samples 20 --extend-to 60 --inner 5 --out " + s.path("run"),
                     s);
  REQUIRE_MESSAGE(r.exit_code == 1, r.err);
  const auto comparison = nlohmann::json::parse(r.out);
  REQUIRE(comparison["instances"].size() == 30);
  for (const auto& row : comparison["instances"]) {
    const std::string seen = row["instance"].get<std::string>() + " " + row["verdict"].get<std::string>();
    INFO(seen);
    if (row["instance"] == "test_softmax::softmax/gems/float16/64x65536")  // the 8th call
      CHECK(row["verdict"] == "SLOWER");
    else
      CHECK((row["verdict"] == "SAME" || row["verdict"] == "UNCERTAIN"));
  }
  const auto plan = read_json(s.path("run/plan.json"));
  nlohmann::json chain = nlohmann::json::array();
  for (int i = 0; i < 30; ++i) chain.push_back(i);
  CHECK(plan["call_chains"] == nlohmann::json::array({chain}));
  CHECK(plan["schedule"]["keep_call_order"] == true);
  for (const auto& instance : plan["instances"]) CHECK(instance["realloc"] == false);
  // The test's runs: one in the collector and one in each worker, none more.
  std::set<long long> workers;
  for (const auto& sample : read_jsonl(s.path("run/samples.jsonl"))) workers.insert(sample["worker_pid"].get<long long>());
  std::map<std::string, int> runs;
  std::istringstream lines(slurp(s.path("runs.txt")));
  for (std::string pid; std::getline(lines, pid);) ++runs[pid];
  CHECK(runs.size() == workers.size() + 1);
  for (const auto& [pid, times] : runs) CHECK_MESSAGE(times == 1, pid);
  for (const auto pid : workers) CHECK(runs.count(std::to_string(pid)) == 1);
}

// The torch-operator calls of a FlagGems-style test are controls: an A/B whose candidate moves
// them (here the torch operator's work doubled) marks them in the JSON, counts them in the
// outcome as suspect, and the table shows them apart with a warning each.
namespace {

// An A/B on the CPU of tests/python/data/do_bench_suite.py with the stand-in Triton, into
// <scratch>/run: `options` picks the tests, the candidate's environment and the samples.
Result ab_do_bench_suite(const Scratch& s, const std::string& format, const std::string& options) {
  return run(bin("orchestrate") + " ab --quiet --format " + format + " --device cpu --pytest " + source_dir() +
                 "/tests/python/data/do_bench_suite.py --python-path " + source_dir() + "/tests/python/fake_triton " +
                 options + " --out " + s.path("run"),
             s);
}

}  // namespace

TEST_CASE("a do_bench suite's controls: marked in the JSON and the table, a control that is not SAME warned of") {
  Scratch s("pytest-bridge-do-bench-controls");
  // Sequential, as ab samples by default, with the extension explicit: a baseline sample that the
  // scheduler preempted past the doubled control is an outlier the rank test pays for (at a fixed
  // 12 per side one such sample left a control's p after Holm at 0.005, UNCERTAIN); a control with
  // one goes on to later looks, up to 60 per side, instead of stopping short of SLOWER.
  const auto r = ab_do_bench_suite(
      s, "json", "-k flaggems --candidate-env DO_BENCH_SLOW=torch_softmax --max-samples 20 --extend-to 60 --inner 3");
  REQUIRE_MESSAGE(r.exit_code == 1, r.err);
  const auto comparison = nlohmann::json::parse(r.out);
  std::set<std::string> controls;
  for (const auto& row : comparison["instances"]) {
    const std::string id = row["instance"];
    const std::string seen = id + " " + row["verdict"].get<std::string>();
    INFO(seen);
    CHECK(row.value("control", false) == (id.find("/torch/") != std::string::npos));
    if (row.value("control", false)) {
      controls.insert(id);
      CHECK(row["verdict"] == "SLOWER");
    }
  }
  CHECK(controls.size() == 4);
  CHECK(comparison["controls"]["n"] == 4);
  CHECK(comparison["controls"]["changed"] == 4);
  CHECK(comparison["controls"]["suspect"] == true);
  CHECK(comparison["outcome"].get<std::string>().find("; controls 0 of 4 SAME (4 changed: suspect)") != std::string::npos);
  // compare on the run: the table marks each control and warns of each that is not SAME
  const auto table = run(bin("orchestrate") + " compare " + s.path("run"), s);
  CHECK(table.out.find("controls: 0 of 4 SAME (the reference calls: FlagGems tests' torch operator") != std::string::npos);
  for (const auto& id : controls) {
    CHECK(table.out.find(id + " (control)") != std::string::npos);
    CHECK(table.out.find("warning: control " + id + " is SLOWER") != std::string::npos);
  }
}

// What each side's autotuners chose (the stand-in's pick follows FAKE_TRITON_BEST, 1 on the
// candidate): a plain @autotune kernel (a global: pinned from the baseline where the instance is
// CUDA's, not on --device cpu) and one behind a wrapper (as FlagGems' LibEntry holds its
// LibTuner: never pinned) are both recorded. Each side's first worker writes the instance's
// triton_autotune.json, and compare lists it among the artifacts that differ; python.json says
// which FlagGems tuner database each side used.
TEST_CASE("a do_bench suite's autotune choices: recorded per side, an instance whose sides chose differently listed") {
  Scratch s("pytest-bridge-do-bench-autotune");
  const auto r = ab_do_bench_suite(s, "none", "-k autotuned --candidate-env FAKE_TRITON_BEST=1 --samples 4 --inner 2 --fail-on never");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::map<std::string, std::string> chosen;  // "side kernel" -> BLOCK
  std::string seen;
  for (const std::string side : {"side-0", "side-1"})
    for (const auto& folder : std::filesystem::directory_iterator(s.path("run/artifacts/" + side))) {
      const auto file = folder.path() / "triton_autotune.json";
      REQUIRE_MESSAGE(std::filesystem::exists(file), file.string());
      const auto recorded = read_json(file.string());
      for (const auto& choice : recorded["choices"]) {
        const std::string kernel = choice["kernel"];
        chosen[side + " " + kernel.substr(kernel.rfind('.') + 1)] = choice["config"]["kwargs"]["BLOCK"].dump();
        seen += side + " " + kernel + "; ";
      }
    }
  INFO(seen);
  CHECK(chosen.size() == 4);
  CHECK(chosen["side-0 _plain"] == "1");
  CHECK(chosen["side-1 _plain"] == "2");
  CHECK(chosen["side-0 _wrapped"] == "1");
  CHECK(chosen["side-1 _wrapped"] == "2");
  const auto compared = run(bin("orchestrate") + " compare " + s.path("run"), s);
  CHECK(compared.out.find("test_autotuned::test_autotuned#1: triton_autotune.json") != std::string::npos);
  CHECK(compared.out.find("autotune choices differ for 1 instance: test_autotuned::test_autotuned#1 (") != std::string::npos);
  const auto json = run(bin("orchestrate") + " compare --json " + s.path("run"), s);
  CHECK(nlohmann::json::parse(json.out)["artifacts"]["autotune_differ"] == nlohmann::json::array({"test_autotuned::test_autotuned#1"}));
  const auto python = read_json(s.path("run/python.json"));
  for (std::size_t side = 0; side < 2; ++side) {
    const auto& cache = python["sides"][side]["flaggems_cache"];
    CHECK(cache["dir"] == s.path("run/flaggems-cache/side-" + std::to_string(side)));
    CHECK(cache["chosen_by"] == "per side");
    CHECK(cache["existed"] == false);
  }
}

// The IR of what a do_bench call launches (docs/python.md, "do_bench suites"), through the run's
// archive, compare and ir-diff. A worker records it for CUDA instances only, and this A/B runs on
// --device cpu, so tests/python/data/do_bench_kernels.py's test_ir_on_the_cpu records its call's
// launches itself (isobench.triton_ir), in its instance's set-up; the worker's own record is
// tests/python/test_do_bench.py's. The candidate compiles softmax_kernel without FP fusion, which
// the stand-in Triton's TTGIR shows ("nocontract"); norm_kernel is the same on both sides.
TEST_CASE("a do_bench instance's TTGIR: archived per side, the instance whose TTGIR differs named by compare, ir-diff prints it") {
  Scratch s("pytest-bridge-do-bench-ir");
  const std::string id = "test_ir_on_the_cpu::test_ir_on_the_cpu#1";
  const auto r = run(bin("orchestrate") + " ab --quiet --format none --device cpu --pytest " + source_dir() +
                         "/tests/python/data/do_bench_kernels.py -k ir_on_the_cpu --python-path " + source_dir() +
                         "/tests/python/fake_triton --candidate-env DO_BENCH_IR_FUSION=0 --samples 4 --inner 2"
                         " --fail-on never --out " + s.path("run"),
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto archived = read_json(s.path("run/artifacts.json"));
  for (std::size_t side = 0; side < 2; ++side) {
    std::set<std::string> paths;
    for (const auto& file : archived["sides"][side]["instances"][id]["files"]) paths.insert(file["path"].get<std::string>());
    INFO("side " << side);
    CHECK(paths.count("triton/kernels.json") == 1);
    CHECK(paths.count("triton/0-softmax_kernel-w4-s3-BLOCK128/softmax_kernel.ttgir") == 1);
    CHECK(paths.count("triton/1-norm_kernel-w8-s3-BLOCK32/norm_kernel.ttgir") == 1);
  }
  const auto compared = run(bin("orchestrate") + " compare " + s.path("run"), s);
  CHECK(compared.out.find(id + ": triton/0-softmax_kernel-w4-s3-BLOCK128/softmax_kernel.ttgir differs") != std::string::npos);
  CHECK(compared.out.find("norm_kernel.ttgir differs") == std::string::npos);
  CHECK(compared.out.find("TTGIR differs for 1 instance: " + id + " (") != std::string::npos);
  const auto json = run(bin("orchestrate") + " compare --json " + s.path("run"), s);
  CHECK(nlohmann::json::parse(json.out)["artifacts"]["ttgir_differ"] == nlohmann::json::array({id}));
  const auto diff = run(bin("orchestrate") + " ir-diff " + s.path("run") + " '" + id + "'", s);
  CHECK(diff.exit_code == 0);
  CHECK(diff.out.find("-// ttgir softmax_kernel BLOCK=128 contract\n+// ttgir softmax_kernel BLOCK=128 nocontract") !=
        std::string::npos);
  CHECK(diff.out.find("== launch 1: norm_kernel") != std::string::npos);
}

// FlagGems' tuner choices replayed (docs/python.md, "do_bench suites"): the stand-in LibEntry
// and LibTuner (tests/python/fake_flaggems) of tests/python/data/do_bench_libtuner.py. A run whose
// baseline picks TILE 128 (FAKE_TRITON_BEST=1) records it per key in instance_reports.json (on the
// CPU nothing is pinned within a run; --replay-from hands the record to every worker, as a GPU
// run's pins do). A run replaying it whose own tuners would pick TILE 64 runs 128 on both sides,
// but for the candidate's softmax, whose configurations lack 128: it falls back to its own tuning,
// said in its tuner_replay.json, python.json, a warning and compare's artifact lines.
// ISOBENCH_TUNER_REPLAY=0 leaves each side to its own tuning.
namespace {

Result ab_libtuner(const Scratch& s, const std::string& out, const std::string& options) {
  const std::string tests = source_dir() + "/tests/python";
  return run(bin("orchestrate") + " ab --quiet --format none --device cpu --pytest " + tests +
                 "/data/do_bench_libtuner.py --python-path " + tests + "/fake_triton:" + tests + "/fake_flaggems " +
                 options + " --samples 3 --inner 2 --fail-on never --out " + s.path(out),
             s);
}

// "side test" -> the TILE its triton_autotune.json says the set-up used.
std::map<std::string, std::string> tiles_used(const Scratch& s, const std::string& run_dir) {
  std::map<std::string, std::string> tiles;
  for (const std::string side : {"side-0", "side-1"})
    for (const auto& folder : std::filesystem::directory_iterator(s.path(run_dir + "/artifacts/" + side))) {
      const auto choices = read_json((folder.path() / "triton_autotune.json").string())["choices"];
      const std::string name = folder.path().filename().string();
      tiles[side + " " + name.substr(0, name.find('_', 5))] = choices.at(0)["config"]["kwargs"]["TILE"].dump();
    }
  return tiles;
}

}  // namespace

TEST_CASE("FlagGems' tuner choices: recorded per key, replayed on both sides, a fallback marked with its reason") {
  Scratch s("pytest-bridge-do-bench-libtuner");
  auto r = ab_libtuner(s, "recorded", "--baseline-env FAKE_TRITON_BEST=1 --candidate-env FAKE_TRITON_BEST=0");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto reports = read_json(s.path("recorded/instance_reports.json"));
  for (const std::string id : {"test_softmax::test_softmax#1", "test_layernorm::test_layernorm#1"}) {
    const auto& recorded = reports["instances"][id]["describe"]["tuner_cache"];
    REQUIRE_MESSAGE(recorded.size() == 1, id);
    CHECK(recorded[0]["key"] == nlohmann::json::parse(R"([1024, "torch.float16"])"));
    CHECK(recorded[0]["config"]["kwargs"]["TILE"] == 128);
  }

  r = ab_libtuner(s, "replayed", "--python-env FAKE_TRITON_BEST=0 --candidate-env DO_BENCH_TILES=64,256 --replay-from " +
                                     s.path("recorded"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  auto tiles = tiles_used(s, "replayed");
  CHECK(tiles["side-0 test_softmax"] == "128");
  CHECK(tiles["side-0 test_layernorm"] == "128");
  CHECK(tiles["side-1 test_layernorm"] == "128");
  CHECK(tiles["side-1 test_softmax"] == "64");  // fell back: its own tuning
  const std::string reason = "the recorded configuration {\"kwargs\": {\"TILE\": 128}, \"num_ctas\": 1, "
                             "\"num_stages\": 3, \"num_warps\": 4} is not among this side's 2 configurations";
  const auto python = read_json(s.path("replayed/python.json"));
  CHECK(python["sides"][0]["tuner_replay"]["on"] == true);
  CHECK(python["sides"][0]["tuner_replay"]["chosen_by"] == "default");
  CHECK(python["sides"][0]["tuner_replay"]["instances_replayed"] == 2);
  CHECK(python["sides"][0]["tuner_replay"]["fallbacks"].empty());
  CHECK(python["sides"][1]["tuner_replay"]["instances_replayed"] == 1);
  const auto& fallbacks = python["sides"][1]["tuner_replay"]["fallbacks"];
  REQUIRE(fallbacks.size() == 1);
  CHECK(fallbacks[0]["instance"] == "test_softmax::test_softmax#1");
  CHECK(fallbacks[0]["folder"].get<std::string>().rfind("test_softmax_test_softmax_1-", 0) == 0);
  CHECK(fallbacks[0]["kernel"] == "do_bench_libtuner._softmax");
  CHECK(fallbacks[0]["reason"] == reason);
  CHECK(r.err.find("warning: side 1: FlagGems' tuner replay fell back for 1 key, which ran with the side's own tuning: "
                   "test_softmax::test_softmax#1 (do_bench_libtuner._softmax: ") != std::string::npos);
  const auto compared = run(bin("orchestrate") + " compare " + s.path("replayed"), s);
  CHECK(compared.out.find("test_softmax::test_softmax#1: tuner_replay.json differs") != std::string::npos);
  CHECK(compared.out.find("test_layernorm::test_layernorm#1: tuner_replay.json") == std::string::npos);

  r = ab_libtuner(s, "own", "--python-env FAKE_TRITON_BEST=0 --python-env ISOBENCH_TUNER_REPLAY=0 --candidate-env "
                            "DO_BENCH_TILES=64,128 --replay-from " + s.path("recorded"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  tiles = tiles_used(s, "own");
  for (const auto& [where, tile] : tiles) CHECK_MESSAGE(tile == "64", where);
  const auto own = read_json(s.path("own/python.json"));
  CHECK(own["sides"][1]["tuner_replay"]["on"] == false);
  CHECK(own["sides"][1]["tuner_replay"]["chosen_by"] == "the side's options");
  CHECK(own["sides"][1]["tuner_replay"]["instances_replayed"] == 0);
}

// A do_bench file whose import needs a CUDA context (it reaches torch.cuda._lazy_init; here the
// stand-in torch of tests/python/fake_torch): the run's zygotes try it with CUDA deferred and leave
// it (tests/python/test_deferred_cuda.py), every worker imports it and says so in workers.log, and
// the run's note gives the collector's cost.
TEST_CASE("a do_bench file that initialises CUDA when imported is imported in the workers, not the zygotes") {
  Scratch s("pytest-bridge-do-bench-cuda-import");
  const std::string tests = source_dir() + "/tests/python";
  const auto r = run("DO_BENCH_IMPORTS=" + s.path("imports.txt") + " " + bin("orchestrate") +
                         " ab --format none --device cpu --pytest " + tests + "/data/do_bench_cuda_import.py" +
                         " --python-path " + tests + "/fake_triton --python-path " + tests + "/fake_torch" +
                         " --candidate-env X=1 --samples 8 --inner 5 --out " + s.path("run"),
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("times through triton.testing.do_bench: 2 timing calls in 1 tests, each an instance (importing it "
                   "initialises CUDA, so the zygotes import it with CUDA deferred, or each worker does: ") !=
        std::string::npos);
  std::set<std::string> importers;
  {
    std::istringstream lines(slurp(s.path("imports.txt")));
    for (std::string pid; std::getline(lines, pid);) importers.insert(pid);
  }
  for (const auto& side : read_json(s.path("run/python.json"))["sides"])
    CHECK(importers.count(std::to_string(side["zygote"]["pid"].get<long long>())) == 0);
  std::istringstream log(slurp(s.path("run/workers.log")));
  std::size_t said = 0;
  for (std::string line; std::getline(log, line);) {
    const auto at = line.find(" imported in worker ");
    if (at == std::string::npos) continue;
    ++said;
    const auto pid = line.substr(at + 20, line.find(' ', at + 20) - at - 20);
    CHECK_MESSAGE(importers.count(pid) == 1, line);
  }
  CHECK(said >= 2);  // a worker per round and side at least
}
