// orchestrate bisect in a temporary git repository of 9 commits, each of which builds a CPU
// plugin (one small file, c++ -O2 -shared, about a second): one commit makes its spin kernel 30%
// slower (200 us -> 260 us, which no loaded 2-core machine hides), and bisect must name it in at
// most 4 steps after the endpoint check; a range with no regression says so; a commit that does
// not build is skipped and named; --resume after SIGINT finishes with the same answer; bad input
// exits 2 before anything is built; --python-path and --python (Python benchmarks) reach both
// sides of each step.

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"
#include "tests/process_tree.hpp"

using namespace isobench::testing;

namespace {

// The spin kernel: it spins `microseconds` plus SLOWDOWN_PCT(microseconds) percent (cost.h) on
// the monotonic clock; the per-sample minimum of its inner launches hides a preempted launch. C
// headers only: it compiles in a quarter of a second, <chrono> would triple that.
const char* kPluginSource = R"(#include <isobench/plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cost.h"
namespace {
struct Spin { long long ns = 0; };
long long now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}
void* create() { return calloc(1, sizeof(Spin)); }
void destroy(void* self) { free(self); }
int setup(void* self, const char* params, void*, uint64_t, char* error, size_t len) {
  const char* at = strstr(params, "\"microseconds\":");
  if (!at) { snprintf(error, len, "no microseconds in %s", params); return 1; }
  const long long us = atoll(at + 15);
  static_cast<Spin*>(self)->ns = us * (100 + SLOWDOWN_PCT(us)) * 10;
  return 0;
}
int launch(void* self) {
  const long long end = now_ns() + static_cast<Spin*>(self)->ns;
  while (now_ns() < end) {}
  return 0;
}
void teardown(void*) {}
const isobench_axis kAxes[] = {{"microseconds", ISOBENCH_AXIS_INTEGER, nullptr, nullptr, 0, 1, 100000, nullptr}};
const isobench_kernel kKernels[] = {{"bisect_spin", "spin", ISOBENCH_BACKEND_CPU, "spins", kAxes, 1, create, setup,
                                     launch, teardown, destroy, nullptr, nullptr, nullptr}};
const isobench_plugin kPlugin = {"bisect_spin", kKernels, 1};
}  // namespace
extern "C" int isobench_plugin_abi_version(void) { return ISOBENCH_PLUGIN_ABI_VERSION; }
extern "C" const isobench_plugin* isobench_plugin_describe(void) { return &kPlugin; }
)";

std::string build_command() {
  return "c++ -O2 -shared -fPIC -I" + source_dir() + "/include -o {out}/libspin.so {worktree}/spin.cpp";
}

struct Repo {
  std::string dir;
  std::vector<std::string> commits;  // [0] GOOD ... [8] BAD
};

// 9 commits: GOOD and 8 after it, each writing `file` as `content(i)` gives it.
Repo make_repo(const Scratch& s, const std::string& file, const std::function<std::string(int)>& content) {
  Repo repo{s.path("repo"), {}};
  std::filesystem::create_directories(repo.dir);
  s.write("repo/spin.cpp", kPluginSource);
  const std::string git = "git -C " + repo.dir + " -c user.name=t -c user.email=t@example.com ";
  REQUIRE(run("git init -q " + repo.dir, s).exit_code == 0);
  for (int i = 0; i <= 8; ++i) {
    s.write("repo/" + file, content(i));
    s.write("repo/notes.txt", "commit " + std::to_string(i) + "\n");
    const auto r = run(git + "add -A && " + git + "commit -q -m 'commit " + std::to_string(i) + "' && " + git +
                           "rev-parse HEAD",
                       s);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    repo.commits.push_back(r.out.substr(0, 40));
  }
  return repo;
}

// The plugin's repository: commit `slow_at` (0: none) makes both instances 30% slower, commit
// `broken_at` (0: none) does not compile (the next one mends it).
Repo make_repo(const Scratch& s, int slow_at, int broken_at = 0) {
  return make_repo(s, "cost.h", [=](int i) {
    return std::string(i == broken_at && i ? "#error this commit does not build\n" : "") +
           "#define SLOWDOWN_PCT(us) " + (slow_at && i >= slow_at ? "30" : "0") + "\n";
  });
}

// The sweep, with a build of the checkout's plugin to describe the kernel (each step replaces it).
std::string write_sweep(const Scratch& s, const Repo& repo, const std::string& microseconds = "[150, 200]") {
  std::filesystem::create_directories(s.path("sweep-plugin"));
  const auto built = run("cd " + repo.dir + " && c++ -O2 -shared -fPIC -I" + source_dir() + "/include -o " +
                             s.path("sweep-plugin/libspin.so") + " spin.cpp",
                         s);
  REQUIRE_MESSAGE(built.exit_code == 0, built.err);
  return s.write("bisect.yaml", "name: bisect\n"
                                "settings: {samples: 24, warmup: 2, inner: 5, statistic: min, seed: 4, per: batch}\n"
                                "benchmarks:\n"
                                "  - plugin: " + s.path("sweep-plugin/libspin.so") + "\n"
                                "    kernel: bisect_spin\n"
                                "    axes: {microseconds: " + microseconds + "}\n");
}

// bisect GOOD..BAD of `repo` with `build` (the build and artifact options), into <scratch>/bisection.
std::string bisect_args(const Scratch& s, const Repo& repo, const std::string& sweep,
                        const std::string& build = "--build '" + build_command() + "' --plugin libspin.so") {
  return " bisect --quiet --device cpu --good " + repo.commits[0] + " --bad " + repo.commits[8] + " " + build +
         " --out " + s.path("bisection") + " " + sweep;
}

Result bisect(const Scratch& s, const Repo& repo, const std::string& sweep, const std::string& extra = "") {
  return run("cd " + repo.dir + " && " + bin("orchestrate") + bisect_args(s, repo, sweep) + extra, s);
}

Result bisect_with(const Scratch& s, const Repo& repo, const std::string& sweep, const std::string& build) {
  return run("cd " + repo.dir + " && " + bin("orchestrate") + bisect_args(s, repo, sweep, build), s);
}

// Every step's run directory is kept, and each visited commit was built once.
void check_record(const Scratch& s, std::size_t most_steps) {
  const auto state = read_json(s.path("bisection/bisect.json"));
  const auto& steps = state.at("steps");
  CHECK(steps.size() <= most_steps);
  for (const auto& step : steps) {
    CHECK(step.at("done") == true);
    CHECK_MESSAGE(std::filesystem::exists(s.path("bisection/" + step.at("run_dir").get<std::string>() + "/run.json")),
                  step.dump());
  }
  for (const auto& [commit, build] : state.at("builds").items())
    CHECK(std::filesystem::exists(s.path("bisection/builds/" + commit + ".log")));
}

}  // namespace

TEST_CASE("bisect names the commit that made the kernel 30% slower, in at most 4 steps after the endpoint check") {
  Scratch s("bisect-found");
  const Repo repo = make_repo(s, 5);
  const auto r = bisect(s, repo, write_sweep(s, repo));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err << r.out);
  CHECK_MESSAGE(r.out.find("first bad commit " + repo.commits[5].substr(0, 10) + " (5 of 8) \"commit 5\": "
                           "bisect_spin[microseconds=150], bisect_spin[microseconds=200]") != std::string::npos,
                r.out);
  CHECK_MESSAGE(r.out.find("\noutcome: first bad commit " + repo.commits[5].substr(0, 10) + " for 2 of 2 instances (") !=
                    std::string::npos,
                r.out);
  CHECK_MESSAGE(r.out.find("-> exit 0\n") != std::string::npos, r.out);
  check_record(s, 1 + 3);
  const auto state = read_json(s.path("bisection/bisect.json"));
  CHECK(state.at("steps")[0].at("index") == 8);  // the endpoint check first
  CHECK(state.at("steps")[0].at("verdicts").at("bisect_spin[microseconds=200]") == "SLOWER");
  CHECK(state.at("tests_per_instance") == 4);
  // The steps' runs judged at their share of the walk's error budget: alpha / (K M) per instance.
  const auto plan = read_json(s.path("bisection/" + state.at("steps")[1].at("run_dir").get<std::string>() + "/plan.json"));
  CHECK(plan.at("sequential").at("alpha").get<double>() == doctest::Approx(0.001 * 2 / 8));
  CHECK(plan.at("sequential").at("confidence").get<double>() == doctest::Approx(1 - 0.05 / 8));
  // Built once each: GOOD and every commit visited.
  CHECK(state.at("builds").size() == state.at("steps").size() + 1);
}

TEST_CASE("bisect walks instances that disagree each to its own first bad commit") {
  Scratch s("bisect-split");
  // The 150 us instance is 30% slower from commit 3 on, the 200 us one from commit 6 on.
  const Repo repo = make_repo(s, "cost.h", [](int i) {
    return "#define SLOWDOWN_PCT(us) ((us) == 150 ? " + std::string(i >= 3 ? "30" : "0") + " : " +
           (i >= 6 ? "30" : "0") + ")\n";
  });
  const auto r = bisect(s, repo, write_sweep(s, repo));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err << r.out);
  CHECK_MESSAGE(r.out.find("first bad commit " + repo.commits[3].substr(0, 10) + " (3 of 8) \"commit 3\": "
                           "bisect_spin[microseconds=150]\n") != std::string::npos,
                r.out);
  CHECK_MESSAGE(r.out.find("first bad commit " + repo.commits[6].substr(0, 10) + " (6 of 8) \"commit 6\": "
                           "bisect_spin[microseconds=200]\n") != std::string::npos,
                r.out);
  CHECK_MESSAGE(r.out.find("outcome: first bad commits (2) for 2 of 2 instances (") != std::string::npos, r.out);
  // Each instance in at most K = 4 tests: the endpoint check, commit 4 for both, then two each.
  const auto state = read_json(s.path("bisection/bisect.json"));
  std::map<std::string, int> tests;
  for (const auto& step : state.at("steps"))
    for (const auto& id : step.at("instances")) ++tests[id.get<std::string>()];
  CHECK(tests["bisect_spin[microseconds=150]"] == 4);
  CHECK(tests["bisect_spin[microseconds=200]"] == 4);
  CHECK(state.at("steps").size() == 6);
  check_record(s, 6);
}

TEST_CASE("bisect --worker: what a build leaves is a worker executable, relative to {out}") {
  Scratch s("bisect-worker");
  // The "build" writes a worker that runs every instance of the built-in spin at the commit's
  // microseconds (isobench-worker --set): 200, and 260 from commit 2 on.
  const Repo repo = make_repo(s, "spin_us.txt", [](int i) { return i >= 2 ? "260\n" : "200\n"; });
  const std::string build = s.write("build.sh", "printf '#!/bin/sh\\nexec " + bin("isobench-worker") +
                                                    " --set microseconds=%s \"$@\"\\n' \"$(cat spin_us.txt)\" > "
                                                    "\"$1/worker\" && chmod +x \"$1/worker\"\n");
  const auto sweep = s.write("spin.yaml", "settings: {samples: 24, warmup: 2, inner: 5, statistic: min, seed: 4}\n"
                                          "benchmarks:\n  - kernel: cpu_spin\n    axes: {microseconds: [200]}\n");
  const auto r = bisect_with(s, repo, sweep, "--build 'sh " + build + " {out}' --worker worker");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err << r.out);
  CHECK_MESSAGE(r.out.find("first bad commit " + repo.commits[2].substr(0, 10) + " (2 of 8)") != std::string::npos,
                r.out);
  check_record(s, 1 + 3);
  const auto plan = read_json(s.path("bisection/steps/00-" + repo.commits[8].substr(0, 10) + "/plan.json"));
  CHECK(plan.at("workers")[1] == s.path("bisection/builds/" + repo.commits[8] + "/worker"));
}

#ifdef ISOBENCH_TEST_PYTHON
namespace {

// A Python spin, 30% longer from commit `slow_at` on (0: never); the "build" (kPythonBuild) copies
// the module into {out}/py.
Repo make_python_repo(const Scratch& s, int slow_at) {
  return make_repo(s, "spinmod.py", [=](int i) {
    return std::string("import time\nFACTOR = ") + (slow_at && i >= slow_at ? "1.3" : "1.0") +
           "\ndef spin(us, seed, device, stream):\n"
           "    def launch(clock=time.perf_counter, seconds=us * 1e-6 * FACTOR):\n"
           "        end = clock() + seconds\n"
           "        while clock() < end: pass\n"
           "    return launch\n";
  });
}

const char* kPythonBuild = "--build 'mkdir -p {out}/py && cp spinmod.py {out}/py/' --python-path py";

std::string write_python_sweep(const Scratch& s) {
  return s.write("py.yaml", "settings: {samples: 24, inner: 20, statistic: min, seed: 3}\n"
                            "benchmarks:\n  - python: spinmod\n    function: spin\n    device: cpu\n"
                            "    axes: {us: [200]}\n");
}

}  // namespace

TEST_CASE("bisect --python-path: what a build leaves is a folder on each side's Python path") {
  Scratch s("bisect-python");
  const Repo repo = make_python_repo(s, 6);
  const auto r = bisect_with(s, repo, write_python_sweep(s), kPythonBuild);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err << r.out);
  CHECK_MESSAGE(r.out.find("first bad commit " + repo.commits[6].substr(0, 10) + " (6 of 8)") != std::string::npos,
                r.out);
  check_record(s, 1 + 3);
  const auto python = read_json(s.path("bisection/steps/00-" + repo.commits[8].substr(0, 10) + "/python.json"));
  CHECK(python["sides"][1]["pythonpath"][0] == s.path("bisection/builds/" + repo.commits[8] + "/py"));
}

TEST_CASE("bisect --python: both sides of every step run that interpreter") {
  Scratch s("bisect-python-interpreter");
  const Repo repo = make_python_repo(s, 0);
  const std::string sweep = write_python_sweep(s);
  // A venv's python as a user would name it, relative to the checkout: it records every start,
  // then is python3.
  std::filesystem::create_directories(s.path("venv/bin"));
  const std::string python = s.write("venv/bin/python", "#!/bin/sh\necho \"$*\" >> " + s.path("starts.log") +
                                                            "\nexec python3 \"$@\"\n");
  std::filesystem::permissions(python, std::filesystem::perms::owner_exec, std::filesystem::perm_options::add);
  const auto r = bisect_with(s, repo, sweep, std::string(kPythonBuild) + " --python ../venv/bin/python");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err << r.out);
  CHECK_MESSAGE(r.out.find("outcome: no regression between GOOD and BAD") != std::string::npos, r.out);
  CHECK(read_json(s.path("bisection/bisect.json")).at("python") == python);
  const auto sides = read_json(s.path("bisection/steps/00-" + repo.commits[8].substr(0, 10) + "/python.json"))["sides"];
  CHECK(sides[0]["interpreter"] == python);
  CHECK(sides[1]["interpreter"] == python);
  const std::string starts = slurp(s.path("starts.log"));
  CHECK_MESSAGE(std::count(starts.begin(), starts.end(), '\n') >= 2, starts);  // a zygote per side at least
  // An interpreter that is not there is bad input, found before anything is built.
  std::filesystem::remove_all(s.path("bisection"));
  const auto missing = bisect_with(s, repo, sweep, std::string(kPythonBuild) + " --python ../venv/bin/pyhton");
  CHECK_MESSAGE(bad_input_problem(missing, {"--python ../venv/bin/pyhton: not an executable"}, s.path("bisection")).empty(),
                bad_input_problem(missing, {"--python ../venv/bin/pyhton: not an executable"}, s.path("bisection")));
}
#endif

TEST_CASE("bisect of a range without a regression says so after the endpoint check") {
  Scratch s("bisect-none");
  const Repo repo = make_repo(s, 0);
  const auto r = bisect(s, repo, write_sweep(s, repo), " --instances microseconds=200");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err << r.out);
  CHECK_MESSAGE(r.out.find("outcome: no regression between GOOD and BAD") != std::string::npos, r.out);
  check_record(s, 1);
  const auto state = read_json(s.path("bisection/bisect.json"));
  CHECK(state.at("instances") == nlohmann::json::array({"bisect_spin[microseconds=200]"}));
}

TEST_CASE("bisect skips a commit that does not build and names it") {
  Scratch s("bisect-skip");
  const Repo repo = make_repo(s, 6, 4);
  const auto r = bisect(s, repo, write_sweep(s, repo, "[200]"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err << r.out);
  CHECK_MESSAGE(r.out.find("skipped " + repo.commits[4].substr(0, 10) + " (4 of 8) \"commit 4\": `") != std::string::npos,
                r.out);
  CHECK_MESSAGE(r.out.find("first bad commit " + repo.commits[6].substr(0, 10) + " (6 of 8)") != std::string::npos,
                r.out);
  const auto state = read_json(s.path("bisection/bisect.json"));
  CHECK(state.at("builds").at(repo.commits[4]).at("built") == false);
  CHECK(slurp(s.path("bisection/builds/" + repo.commits[4] + ".log")).find("this commit does not build") !=
        std::string::npos);
}

TEST_CASE("bisect that cannot decide says so, with the range left, and exits 3") {
  Scratch s("bisect-undecided");
  // The slowdown comes with commit 4, which does not build: 4 or 5 is the first bad commit.
  const Repo repo = make_repo(s, 4, 4);
  const auto r = bisect(s, repo, write_sweep(s, repo, "[200]"));
  CHECK_MESSAGE(r.exit_code == 3, r.err << r.out);
  CHECK_MESSAGE(r.out.find("could not decide: only skipped commits are left; the first bad commit is any of " +
                           repo.commits[4].substr(0, 10) + " (did not build), " + repo.commits[5].substr(0, 10) +
                           " (5 of 8): ") != std::string::npos,
                r.out);
  CHECK_MESSAGE(r.out.find("outcome: could not decide for 1 of 1 instances (") !=
                    std::string::npos,
                r.out);
  check_record(s, 4);
}

TEST_CASE("bisect --resume after SIGINT finishes with the same answer, every step's run directory kept") {
  Scratch s("bisect-resume");
  become_subreaper();
  const Repo repo = make_repo(s, 3);
  const std::string sweep = write_sweep(s, repo, "[200]");
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(repo.dir.c_str()) != 0) _exit(127);
    execl("/bin/sh", "sh", "-c", ("exec " + bin("orchestrate") + bisect_args(s, repo, sweep) + " >" +
                                  s.path("first.out") + " 2>" + s.path("first.err")).c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Interrupted while the second step (after the endpoint check) measures.
  const std::string second_run = s.path("bisection/steps/01-" + repo.commits[4].substr(0, 10) + "/samples.jsonl");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && !std::filesystem::exists(second_run))
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  REQUIRE_MESSAGE(std::filesystem::exists(second_run), slurp(s.path("first.err")));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK_MESSAGE(WEXITSTATUS(status) == 130, slurp(s.path("first.err")));
  CHECK_MESSAGE(slurp(s.path("first.err")).find("--resume " + s.path("bisection")) != std::string::npos,
                slurp(s.path("first.err")));
  const auto left = wait_for_no_descendants(std::chrono::milliseconds(3000));
  CHECK_MESSAGE(left.empty(), "left behind by the interrupted bisect:\n" << describe(left));
  auto state = read_json(s.path("bisection/bisect.json"));
  REQUIRE(state.at("steps").size() == 2);
  // Cut off while it measured (unless its last sample came before the signal was looked at).
  const bool cut_off = state.at("steps")[1].at("done") == false;

  const auto r = run("cd /tmp && " + bin("orchestrate") + " bisect --quiet --resume " + s.path("bisection"), s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err << r.out);
  CHECK_MESSAGE(r.out.find("first bad commit " + repo.commits[3].substr(0, 10) + " (3 of 8)") != std::string::npos,
                r.out);
  state = read_json(s.path("bisection/bisect.json"));
  CHECK(state.at("steps")[1].at("run_dir") == "steps/01-" + repo.commits[4].substr(0, 10));  // finished, not redone
  if (cut_off)
    CHECK(read_json(s.path("bisection/steps/01-" + repo.commits[4].substr(0, 10) + "/run.json")).at("resumed").size() == 1);
  check_record(s, 1 + 3);
  // Resuming a finished bisection measures nothing and gives the answer again.
  const auto again = run(bin("orchestrate") + " bisect --quiet --resume " + s.path("bisection"), s);
  CHECK(again.exit_code == 0);
  CHECK(again.out == r.out);
}

TEST_CASE("bisect refuses bad input with one line and exit 2, before anything is built") {
  Scratch s("bisect-bad");
  const Repo repo = make_repo(s, 5);
  const std::string sweep = write_sweep(s, repo);
  const std::string in_repo = "cd " + repo.dir + " && " + bin("orchestrate") + " bisect --quiet --device cpu ";
  const std::string build = " --build 'true' --plugin libspin.so --out " + s.path("bisection") + " ";
  const std::string good = repo.commits[0], bad = repo.commits[8];
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"cd " + s.path("") + " && " + bin("orchestrate") + " bisect --good " + good + " --bad " + bad + build + sweep,
       {"is not in a git checkout"}},
      {in_repo + "--good nosuchrev --bad " + bad + build + sweep, {"--good nosuchrev: no such commit"}},
      {in_repo + "--good " + bad + " --bad " + good + build + sweep, {"is not an ancestor of --bad"}},
      {in_repo + "--good " + good + " --bad " + good + build + sweep, {"are one commit"}},
      {in_repo + "--good " + good + " --bad " + bad + build + s.path("missing.yaml"), {"missing.yaml"}},
      {in_repo + "--good " + good + " --bad " + bad + " --plugin libspin.so " + sweep, {"--build is required"}},
      {in_repo + "--good " + good + " --bad " + bad + " --build true --plugin a.so --worker w " + sweep,
       {"give one of --worker, --plugin or --python-path"}},
      {in_repo + "--good " + good + " --bad " + bad + build + "--instances nothing-like-it " + sweep,
       {"--instances nothing-like-it", "bisect_spin[microseconds=150]"}},
      {in_repo + "--good " + good + " --bad " + bad + build + "--max-samples 4 " + sweep, {"give --max-samples"}},
      {in_repo + "--good " + good + " --bad " + bad + build + "--python python3 " + sweep,
       {"--python python3: the interpreter of Python benchmarks, and the instances bisected have none"}},
      // GOOD does not build: found by the first build, and the bisection is removed again.
      {in_repo + "--good " + good + " --bad " + bad + " --build 'exit 3' --plugin libspin.so --out " +
           s.path("bisection") + " " + sweep,
       {"--good " + good + " (" + good.substr(0, 10) + ") does not build: `exit 3` exited 3"}},
      {bin("orchestrate") + " bisect --resume " + s.path("nowhere"), {"nowhere: not a bisection directory"}},
  };
  for (const auto& [command, expected] : cases) {
    const auto r = run(command, s);
    CHECK_MESSAGE(bad_input_problem(r, expected, s.path("bisection")).empty(),
                  command << ": " << bad_input_problem(r, expected, s.path("bisection")));
  }
  // --resume takes nothing a new bisection chooses (refused before bisect.json is read).
  std::filesystem::create_directories(s.path("bisection"));
  s.write("bisection/bisect.json", "{}");
  const auto r = run(bin("orchestrate") + " bisect --resume " + s.path("bisection") + " --alpha 0.01", s);
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.find("--alpha is not taken") != std::string::npos, r.err);
  // A damaged record is named.
  const auto damaged = run(bin("orchestrate") + " bisect --resume " + s.path("bisection"), s);
  CHECK_MESSAGE(bad_input_problem(damaged, {s.path("bisection/bisect.json") + ": schema_version"}, s.path("none")).empty(),
                bad_input_problem(damaged, {s.path("bisection/bisect.json") + ": schema_version"}, s.path("none")));
}

TEST_CASE("bisect has one writer: a second --resume is refused while the first builds; SIGKILL leaves no build, and "
          "--resume prunes its worktree") {
  Scratch s("bisect-one-writer");
  become_subreaper();
  const Repo repo = make_repo(s, 3);
  const std::string sweep = write_sweep(s, repo, "[200]");
  // The build of GOOD waits (a build that takes minutes) while `slow` exists; fails while `broken` does.
  const std::string build = "--build '[ -e " + s.path("broken") + " ] && exit 1; [ -e " + s.path("slow") +
                            " ] && { touch " + s.path("started") + "; sleep 60; }; " + build_command() +
                            "' --plugin libspin.so";
  s.write("slow", "");
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(repo.dir.c_str()) != 0) _exit(127);
    execl("/bin/sh", "sh", "-c", ("exec " + bin("orchestrate") + bisect_args(s, repo, sweep, build) + " >" +
                                  s.path("first.out") + " 2>" + s.path("first.err")).c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && !std::filesystem::exists(s.path("started")))
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  REQUIRE_MESSAGE(std::filesystem::exists(s.path("started")), slurp(s.path("first.err")));
  const std::string before = slurp(s.path("bisection/bisect.json"));

  // A second hand: refused in one line, bisect.json as the first wrote it.
  auto r = run(bin("orchestrate") + " bisect --quiet --resume " + s.path("bisection"), s);
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.find("another orchestrate bisect is working in") != std::string::npos, r.err);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(slurp(s.path("bisection/bisect.json")) == before);

  // SIGKILL mid-build: the build's whole process group goes with it.
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  const auto left = wait_for_no_descendants(std::chrono::milliseconds(3000));
  CHECK_MESSAGE(left.empty(), "left behind by the killed bisect:\n" << describe(left));
  CHECK(slurp(s.path("bisection/bisect.json")) == before);

  // The resume cleans the worktree the kill left (here GOOD no longer builds: it stops there).
  std::filesystem::remove(s.path("slow"));
  s.write("broken", "");
  r = run(bin("orchestrate") + " bisect --quiet --resume " + s.path("bisection"), s);
  CHECK_MESSAGE(r.exit_code == 2, r.err);
  CHECK_MESSAGE(r.err.find("does not build") != std::string::npos, r.err);
  const auto worktrees = run("git -C " + repo.dir + " worktree list --porcelain", s);
  CHECK_MESSAGE(std::count(worktrees.out.begin(), worktrees.out.end(), '\n') <= 4, worktrees.out);
  CHECK(worktrees.out.find(".worktree") == std::string::npos);
}
