// pytest suites as projects write them (docs/python.md, "pytest suites in the wild"), through the
// real orchestrate ab --pytest: tests/python/data/wild_suite (pytest-benchmark's options and
// --doctest-modules in addopts, --strict-markers, filterwarnings = error, doctest_optionflags,
// group marks, parametrize and fixture ids, the codspeed decorator style, benchmark.pedantic,
// marker-only tests) runs unchanged where pytest-benchmark and pytest-codspeed are installed and
// where pytest-codspeed alone is: an A/A exits 0, every benchmark test an instance named by its
// pytest id, --json carrying pytest's node id. The venvs are scripts/install-deps.sh's. And
// pytest's refusal, one line naming the file and pytest's reason, with no place in the sweep
// ab --pytest made.

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

// Where scripts/install-deps.sh makes the plugin venvs (the same rule there and in
// tests/python/test_pytest_suites.py).
std::string venv_python(const std::string& name) {
  std::string root;
  if (const char* given = std::getenv("ISOBENCH_TEST_VENVS"); given && *given) {
    root = given;
  } else {
    const char* cache = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    root = (cache && *cache ? std::string(cache) : std::string(home ? home : "") + "/.cache") + "/isobench/test-venvs";
  }
  return root + "/" + name + "/bin/python";
}

const std::set<std::string> kBenchmarks = {
    "test_url_join", "test_reduce[sum-small]", "test_reduce[sum-large]", "test_reduce[max-small]",
    "test_reduce[max-large]", "test_getall[Before]", "test_getall[After]", "test_marker_only_with_fixture[Before-3]",
    "test_marker_only_with_fixture[Before-30]", "test_marker_only_with_fixture[After-3]",
    "test_marker_only_with_fixture[After-30]", "test_load_records", "test_decorated", "test_pedantic",
    "test_marker_only", "TestEncode::test_dumps"};

// The suite, copied as it is into the scratch folder (its pycache and data files stay there).
std::string copy_suite(const Scratch& s) {
  const auto from = std::filesystem::path(source_dir()) / "tests/python/data/wild_suite";
  const auto to = std::filesystem::path(s.path("wild_suite"));
  std::filesystem::create_directories(to);
  for (const char* name : {"pytest.ini", "conftest.py", "test_wild_benchmarks.py"})
    std::filesystem::copy_file(from / name, to / name, std::filesystem::copy_options::overwrite_existing);
  return (to / "test_wild_benchmarks.py").string();
}

void check_a_a(const std::string& venv) {
  const std::string python = venv_python(venv);
  REQUIRE_MESSAGE(std::filesystem::exists(python), python << ": no such interpreter: scripts/install-deps.sh makes it");
  Scratch s("pytest-suites-" + venv);
  const std::string suite = copy_suite(s);
  const auto r = run(bin("orchestrate") + " ab --format json --pytest " + suite + " --baseline-python " + python +
                         " --candidate-python " + python + " --samples 10 --warmup 1 --seed 5 --out " + s.path("run"),
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto verdicts = nlohmann::json::parse(r.out);
  std::set<std::string> ids;
  for (const auto& row : verdicts["instances"]) {
    const std::string id = row["instance"].get<std::string>();
    ids.insert(id);
    // pytest's own node id, from the suite's rootdir (its pytest.ini's folder).
    CHECK(row["pytest_node_id"] == "test_wild_benchmarks.py::" + id);
  }
  CHECK(ids == kBenchmarks);
  CHECK(verdicts["not_compared"].empty());
  // The test that is no benchmark and the doctest --doctest-modules collects are named, not measured.
  CHECK(r.err.find("note: 1 test of " + suite + " without the benchmark fixture or mark, not measured: "
                   "test_not_a_benchmark") != std::string::npos);
  CHECK(r.err.find("note: 1 doctest of " + suite + ", not measured: test_wild_benchmarks.join_url") !=
        std::string::npos);
}

}  // namespace

TEST_CASE("a suite configured as projects configure theirs: A/A with pytest-benchmark and pytest-codspeed installed") {
  check_a_a("benchmark-codspeed");
}

TEST_CASE("a suite configured as projects configure theirs: A/A with pytest-codspeed alone") { check_a_a("codspeed"); }

TEST_CASE("ab --pytest: pytest's refusal is one line naming the file and pytest's reason, with no place in the made sweep") {
  Scratch s("pytest-suites-refusal");
  s.write("pytest.ini", "[pytest]\naddopts = -ra --no-such-option\n");
  const auto suite = s.write("test_refused.py", "def test_x(benchmark):\n    benchmark(int)\n");
  const auto r = run(bin("orchestrate") + " ab --pytest " + suite + " --candidate-env X=1 --out " + s.path("run"), s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("orchestrate: " + suite + ": pytest refused its arguments: unrecognized arguments: "
                    "--no-such-option (in addopts of " + s.path("pytest.ini") + "): no plugin installed in ", 0) == 0);
  CHECK(r.err.find("--pytest-arg=--override-ini=addopts=") != std::string::npos);
  CHECK(r.err.find('\n') == r.err.size() - 1);  // one line
  CHECK(r.err.find("benchmarks[0]") == std::string::npos);  // no key, line or column of the sweep ab made
  CHECK(r.err.find("--pytest " + suite + ":") == std::string::npos);
  CHECK(!std::filesystem::exists(s.path("run")));
}
