// A/B across Python environments (docs/python.md): each side's zygote gets its own PYTHONPATH or
// environment variables, and the two sides run interleaved in one run. Two checkouts of a module
// (the candidate spins twice as long) and one setting (the candidate's environment makes it spin
// 1.5 times as long) are SLOWER; the same environment on both sides is not. Differences no loaded
// machine hides, with 20 samples of the minimum of 40 launches (12 of 20 let one instance fall to
// UNCERTAIN at a load average of 11 on the 2 cores), so the verdicts are not about noise.

#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

// `scale` is what this checkout multiplies the spin by; SPIN_FACTOR is a setting over it.
std::string module(const std::string& scale) {
  return "import os, time\n"
         "HERE = os.path.dirname(os.path.abspath(__file__))\n"
         "with open(os.path.join(HERE, '..', 'imports.txt'), 'a') as f:\n"
         "    f.write(HERE + '\\n')\n"
         "FACTOR = " + scale + " * float(os.environ.get('SPIN_FACTOR', '1'))\n"
         "def spin(us, seed, device, stream):\n"
         "    seconds = us * 1e-6 * FACTOR\n"
         "    def launch():\n"
         "        end = time.perf_counter() + seconds\n"
         "        while time.perf_counter() < end:\n"
         "            pass\n"
         "    return launch\n";
}

const char* kSweep = R"(settings: {samples: 20, inner: 40, statistic: min, seed: 3}
benchmarks:
  - python: abmod
    function: spin
    device: cpu
    axes: {us: [100, 200]}
)";

struct AbRun {
  Result result;
  nlohmann::json python;
};

// Triton cache folders under the scratch folder's tc-root unless `environment` says otherwise
// (ISOBENCH_TRITON_CACHE: never the user's ~/.cache from a test).
AbRun run_ab(const Scratch& s, const std::string& args, std::string environment = "") {
  if (environment.empty()) environment = "ISOBENCH_TRITON_CACHE=" + s.path("tc-root");
  std::filesystem::create_directories(s.path("a"));
  std::filesystem::create_directories(s.path("b"));
  s.write("a/abmod.py", module("1"));
  s.write("b/abmod.py", module("2"));
  const auto sweep = s.write("sweep.yaml", kSweep);
  AbRun r;
  r.result = run("cd " + s.dir.string() + " && " + environment + " " + bin("orchestrate") + " ab --device cpu --quiet --format json " +
                     args + " --out " + s.path("run") + " " + sweep,
                 s);
  if (std::filesystem::exists(s.path("run/python.json"))) r.python = read_json(s.path("run/python.json"));
  return r;
}

std::size_t slower(const std::string& json_out) {
  const auto verdicts = nlohmann::json::parse(json_out);
  std::size_t n = 0;
  for (const auto& row : verdicts["instances"]) n += row["verdict"] == "SLOWER";
  return n;
}

}  // namespace

TEST_CASE("ab: two checkouts of a module on two PYTHONPATHs; the slower one is SLOWER") {
  Scratch s("python-ab-paths");
  const auto r = run_ab(s, "--baseline-pythonpath a --candidate-pythonpath b --zygotes per-run");
  REQUIRE_MESSAGE(r.result.exit_code == 1, r.result.err);
  CHECK(r.python["zygotes"]["per"] == "run");
  CHECK(slower(r.result.out) == 2);
  CHECK(r.python["sides"][0]["pythonpath"][0] == s.path("a"));
  CHECK(r.python["sides"][1]["pythonpath"][0] == s.path("b"));
  // One import per side, each from its own checkout (the two zygotes import at once).
  const auto imports = slurp(s.path("imports.txt"));
  CHECK((imports == s.path("a") + "\n" + s.path("b") + "\n" || imports == s.path("b") + "\n" + s.path("a") + "\n"));
}

TEST_CASE("ab: one module, the candidate's environment sets it slower: SLOWER") {
  Scratch s("python-ab-env");
  const auto r = run_ab(s, "--python-path a --candidate-env SPIN_FACTOR=1.5");
  REQUIRE_MESSAGE(r.result.exit_code == 1, r.result.err);
  CHECK(slower(r.result.out) == 2);
  // Each side's Triton cache is the folder of its compile environment (docs/python.md, "Two
  // compilers in one A/B"), recorded beside the side's own variables: the candidate's setting
  // gives it another folder than the baseline's.
  const auto cache_of = [&](int side) {
    const std::string last = r.python["sides"][side]["variables"].back().get<std::string>();
    REQUIRE(last.rfind("TRITON_CACHE_DIR=" + s.path("tc-root") + "/", 0) == 0);
    return last.substr(last.rfind('/') + 1);
  };
  CHECK(cache_of(0).size() == 16);
  CHECK(cache_of(1).size() == 16);
  CHECK(cache_of(0) != cache_of(1));
  CHECK(r.python["sides"][0]["variables"].size() == 1);
  CHECK(r.python["sides"][1]["variables"][0] == "SPIN_FACTOR=1.5");
  CHECK(r.result.err.find("TRITON_CACHE_DIR") == std::string::npos);
}

TEST_CASE("ab: a Triton cache folder the user gives is kept, and two sides sharing one are warned") {
  Scratch s("python-ab-cache");
  const auto r = run_ab(s, "--python-path a --baseline-env TRITON_CACHE_DIR=" + s.path("tc") + " --candidate-env TRITON_CACHE_DIR=" + s.path("tc"));
  REQUIRE_MESSAGE(r.result.exit_code == 0, r.result.err);
  for (int side = 0; side < 2; ++side)
    CHECK(r.python["sides"][side]["variables"] == nlohmann::json::array({"TRITON_CACHE_DIR=" + s.path("tc")}));
  CHECK(r.result.err.find("warning: both sides compile Triton kernels into " + s.path("tc") + " (TRITON_CACHE_DIR)") !=
        std::string::npos);
  Scratch t("python-ab-cache-one");
  // ISOBENCH_TRITON_CACHE=run: a folder per side in the run directory, as before caches were kept.
  const auto own = run_ab(t, "--python-path a --candidate-env TRITON_CACHE_DIR=" + t.path("tc"), "ISOBENCH_TRITON_CACHE=run");
  REQUIRE_MESSAGE(own.result.exit_code == 0, own.result.err);
  CHECK(own.python["sides"][0]["variables"] == nlohmann::json::array({"TRITON_CACHE_DIR=" + t.path("run/triton-cache/side-0")}));
  CHECK(own.python["sides"][1]["variables"] == nlohmann::json::array({"TRITON_CACHE_DIR=" + t.path("tc")}));
  CHECK(own.result.err.find("warning: both sides") == std::string::npos);
}

TEST_CASE("ab: the same environment on both sides is not SLOWER") {
  Scratch s("python-ab-same");
  const auto r = run_ab(s, "--python-path a --baseline-env SPIN_FACTOR=1 --candidate-env SPIN_FACTOR=1");
  REQUIRE_MESSAGE(r.result.exit_code == 0, r.result.err);
  CHECK(slower(r.result.out) == 0);
  // One compile environment: one Triton cache folder, shared without a warning.
  CHECK(r.python["sides"][0]["variables"] == r.python["sides"][1]["variables"]);
  CHECK(r.result.err.find("warning: both sides") == std::string::npos);
}

// --zygotes per-round: the zygote each round's workers are forked from is fresh, and both sides'
// zygotes of a round share one drawn hash seed. The module records, at each import, the seed it
// was given and the hash of a string under it. Three rounds (fixed n, no verdict asked for) keep
// the test short: nine zygotes per side's first and rounds.
TEST_CASE("ab --zygotes per-round: each round's zygotes are fresh and the two sides share its drawn hash seed") {
  Scratch s("python-ab-rounds");
  s.write("seedmod.py",
          "import os\n"
          "HERE = os.path.dirname(os.path.abspath(__file__))\n"
          "with open(os.path.join(HERE, 'seeds.txt'), 'a') as f:\n"
          "    f.write('%s %d\\n' % (os.environ.get('PYTHONHASHSEED', '-'), hash('isobench')))\n"
          "def nothing(seed, device, stream):\n"
          "    return lambda: None\n");
  const auto sweep = s.write("sweep.yaml", "benchmarks:\n  - python: seedmod.py\n    function: nothing\n    device: cpu\n");
  const std::string ab = "cd " + s.dir.string() + " && " + bin("orchestrate") +
                         " ab --device cpu --quiet --fixed-n --samples 3 --fail-on never --baseline " +
                         bin("isobench-worker") + " --candidate " + bin("isobench-worker") + " ";
  // No --zygotes: a benchmark timed on the CPU gets per-round by default.
  auto r = run(ab + "--out " + s.path("run") + " " + sweep, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto zygotes = read_json(s.path("run/python.json"))["zygotes"];
  CHECK(zygotes["per"] == "round");
  CHECK(zygotes["chosen_by"] == "default: every Python benchmark is timed on the CPU");
  REQUIRE(zygotes["hash_seeds"].size() == 3);
  std::set<std::string> drawn;
  for (const auto& seed : zygotes["hash_seeds"]) drawn.insert(std::to_string(seed.get<std::uint64_t>()));
  CHECK(drawn.size() == 3);  // a seed per round
  // What the imports saw: the first zygote of each side (no seed of ours), then each round's on
  // both sides, with the round's seed and so the same hash.
  std::map<std::string, std::set<std::string>> hashes;
  std::map<std::string, int> imports;
  std::size_t lines = 0;
  std::istringstream seen(slurp(s.path("seeds.txt")));
  for (std::string seed, hash; seen >> seed >> hash; ++lines) hashes[seed].insert(hash), ++imports[seed];
  CHECK(lines == 2 + 2 * 3);
  for (const auto& seed : drawn) {
    CHECK_MESSAGE(imports[seed] == 2, seed);  // one zygote of each side
    CHECK(hashes[seed].size() == 1);
  }
  const std::string log = slurp(s.path("run/log.txt"));
  CHECK(log.find("[zygote-round] side 1: round 2, pid ") != std::string::npos);
  // A PYTHONHASHSEED the user gives is kept: fresh zygotes per round, all with that seed.
  std::filesystem::remove(s.path("seeds.txt"));
  r = run(ab + "--python-env PYTHONHASHSEED=7 --out " + s.path("run-kept") + " " + sweep, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(slurp(s.path("seeds.txt")).find("7 ") == 0);
  hashes.clear();
  lines = 0;
  std::istringstream kept(slurp(s.path("seeds.txt")));
  for (std::string seed, hash; kept >> seed >> hash; ++lines) hashes[seed].insert(hash);
  CHECK(lines == 8);
  CHECK(hashes.size() == 1);
  CHECK(read_json(s.path("run-kept/python.json"))["zygotes"]["environment_hash_seed"][0] == "7");
  CHECK(slurp(s.path("run-kept/log.txt")).find("PYTHONHASHSEED 7 (the environment's)") != std::string::npos);
}

// ab --pytest: a pytest-benchmark file compared between two environments with no sweep file. The
// candidate's environment makes the spin 1.5 times as long; the test without the fixture and the
// one -k leaves out are not measured. No --device: auto measures on the CPU of a machine without a GPU.
TEST_CASE("ab --pytest FILE -k EXPR: the suite without a sweep file, the same verdicts, exit code and run directory") {
  Scratch s("python-ab-pytest");
  s.write("test_suite.py", R"(import os, time
import pytest

FACTOR = float(os.environ.get("SPIN_FACTOR", "1"))


def spin(us):
    end = time.perf_counter() + us * 1e-6 * FACTOR
    while time.perf_counter() < end:
        pass


@pytest.mark.parametrize("us", [100, 200])
def test_spin(benchmark, us):
    benchmark(spin, us)


def test_left_out(benchmark):
    benchmark(spin, 1)


def test_no_fixture():
    pass
)");
  const std::string ab = "cd " + s.dir.string() + " && " + bin("orchestrate") + " ab --quiet --format json ";
  auto r = run(ab + "--pytest test_suite.py -k spin --samples 20 --inner 40 --statistic min --seed 3 "
                    "--candidate-env SPIN_FACTOR=1.5 --out " + s.path("run"),
               s);
  REQUIRE_MESSAGE(r.exit_code == 1, r.err);
  CHECK(slower(r.out) == 2);
  const auto verdicts = nlohmann::json::parse(r.out);
  std::set<std::string> instances;
  for (const auto& row : verdicts["instances"]) instances.insert(row["instance"].get<std::string>());
  CHECK(instances == std::set<std::string>{"test_spin[100]", "test_spin[200]"});
  // The run directory is an ab run's, its sweep the one entry --pytest made, on the run's device.
  const auto sweep = read_json(s.path("run/sweep.yaml"));
  CHECK(sweep["name"] == "pytest-test_suite");
  CHECK(sweep["benchmarks"][0]["pytest"] == s.path("test_suite.py"));
  CHECK(sweep["benchmarks"][0]["select"] == "spin");
  const auto device = sweep["benchmarks"][0]["device"];
  CHECK((device == "cpu" || device == "cuda"));
  CHECK(std::filesystem::exists(s.path("run/samples.jsonl")));
  CHECK(read_json(s.path("run/python.json"))["sides"][1]["variables"][0] == "SPIN_FACTOR=1.5");
  // Bad input: exit 2, one line naming what is wrong, no run directory.
  r = run(ab + "--pytest test_suite.py --candidate-env SPIN_FACTOR=1 --out " + s.path("both") + " " + s.path("test_suite.py"), s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("--pytest " + s.path("test_suite.py") + " and a sweep file") != std::string::npos);
  CHECK(!std::filesystem::exists(s.path("both")));
  r = run(ab + "-k spin --candidate-env SPIN_FACTOR=1 " + s.path("test_suite.py"), s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("-k requires --pytest") != std::string::npos);
  r = run(ab + "--pytest missing_suite.py --candidate-env SPIN_FACTOR=1", s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("missing_suite.py") != std::string::npos);
}

TEST_CASE("ab: the SASS of the kernels the first workers left is made beside the measurement") {
  Scratch s("python-ab-sass");
  // A set-up that leaves what a Triton kernel's first set-up leaves in its instance's artifact
  // folder (isobench.triton_ir with defer_sass): the IR index and a cubin whose SASS is still to
  // make. A stand-in cuobjdump on PATH makes the SASS.
  const std::string mod =
      "import json, os, time\n"
      "from isobench import triton_ir\n"
      "def spin(us, seed, device, stream):\n"
      "    folder = triton_ir.artifact_folder()\n"
      "    root = os.path.join(folder, 'triton')\n"
      "    if not os.path.exists(os.path.join(root, 'kernels.json')):\n"
      "        os.makedirs(os.path.join(root, '0-k'), exist_ok=True)\n"
      "        with open(os.path.join(root, '0-k', 'k.cubin'), 'wb') as f:\n"
      "            f.write(b'cubin')\n"
      "        with open(os.path.join(root, 'kernels.json'), 'w') as f:\n"
      "            json.dump({'schema_version': 1, 'launches': [{'order': 0, 'name': 'k', 'cubin': '0-k/k.cubin'}]}, f)\n"
      "    def launch():\n"
      "        end = time.perf_counter() + us * 1e-6\n"
      "        while time.perf_counter() < end:\n"
      "            pass\n"
      "    return launch\n";
  std::filesystem::create_directories(s.path("m"));
  s.write("m/sassmod.py", mod);
  std::filesystem::create_directories(s.path("bin"));
  s.write("bin/cuobjdump", "#!/bin/sh\necho \"Fatbin elf code: $2\"\necho '  MOV R1 ;'\n");
  std::filesystem::permissions(s.path("bin/cuobjdump"), std::filesystem::perms::owner_all);
  const auto sweep = s.write("sweep.yaml", R"(settings: {samples: 12, inner: 10, seed: 3}
benchmarks:
  - python: sassmod
    function: spin
    device: cpu
    axes: {us: [50, 100]}
)");
  const auto r = run("cd " + s.dir.string() + " && PATH=" + s.path("bin") + ":$PATH ISOBENCH_TRITON_CACHE=" +
                         s.path("tc-root") + " " + bin("orchestrate") +
                         " ab --device cpu --quiet --format none --fixed-n --baseline-pythonpath m --candidate-pythonpath m"
                         " --out " + s.path("run") + " " + sweep,
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string log = slurp(s.path("run/log.txt"));
  // Started once a worker of each side had ended, so before the last sample.
  const auto sass = log.find("[sass] 4 kernels disassembled in ");
  REQUIRE_MESSAGE(sass != std::string::npos, log);
  CHECK(log.find("beside the measurement", sass) != std::string::npos);
  CHECK(log.find("[sass]", sass + 1) == std::string::npos);  // nothing left for after the run
  std::size_t made = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(s.path("run/artifacts"))) {
    CHECK(entry.path().extension() != ".cubin");
    made += entry.path().extension() == ".sass";
  }
  CHECK(made == 4);  // 2 instances x 2 sides
}
