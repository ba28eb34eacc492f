// Python benchmarks (docs/python.md) through the real orchestrate, a real zygote per side and
// the workers it forks (libisobench-worker.so driven through ctypes), on pure-Python CPU
// benchmarks: every isolation mode, fresh state per worker, imports once per side, failures
// (raise, os._exit, hang, a zygote that dies), bad input, resume, and no process left behind.

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

// Spins `us` microseconds per launch. Every import appends the importing pid to imports.txt and
// every set-up a line "<pid> <parent pid> <setups seen so far in this process>" to setups.txt.
// The marker files make a failure happen in the first worker only: FAIL=<mode> in the
// environment picks the failure; the retry in a fresh worker then succeeds.
const char* kModule = R"(import os, signal, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "imports.txt"), "a") as f:
    f.write("%d\n" % os.getpid())
setups_seen = 0


def first_time(what):
    marker = os.path.join(HERE, "failed-" + what)
    if os.path.exists(marker):
        return False
    open(marker, "w").close()
    return True


def spin(us, seed, device, stream):
    global setups_seen
    assert device == "cpu" and stream is None and isinstance(seed, int)
    with open(os.path.join(HERE, "setups.txt"), "a") as f:
        f.write("%d %d %d\n" % (os.getpid(), os.getppid(), setups_seen))
    setups_seen += 1
    fail = os.environ.get("FAIL", "")
    if fail == "setup" and first_time(fail):
        raise ValueError("set-up refused on purpose")
    if fail == "setup-always":
        raise ValueError("this set-up always fails")
    if fail == "crowded":  # fails beside another set-up, as one short of device memory would
        import fcntl
        held = os.open(os.path.join(HERE, "setup.lock"), os.O_CREAT | os.O_RDWR)
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise MemoryError("out of memory beside another set-up, on purpose")
        time.sleep(0.5)
        os.close(held)
    if fail == "zygote" and first_time(fail):
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(60)

    def launch():
        if fail == "launch" and first_time(fail):
            raise RuntimeError("launch failed on purpose")
        if fail == "always":
            raise RuntimeError("this launch always fails")
        if fail == "exit" and first_time(fail):
            os._exit(7)
        if fail == "hang" and first_time(fail):
            with open(os.path.join(HERE, "hung.txt"), "w") as f:
                f.write("%d\n" % os.getpid())
            time.sleep(600)
        end = time.perf_counter() + us * 1e-6
        while time.perf_counter() < end:
            pass
    return launch


class Counter:
    """The object form of the contract: launch(), teardown() and check()."""

    def __init__(self, n):
        self.n, self.total = n, 0

    def launch(self):
        self.total = sum(range(self.n))

    def check(self):
        return None if self.total == self.n * (self.n - 1) // 2 else "wrong sum"

    def teardown(self):
        with open(os.path.join(HERE, "teardowns.txt"), "a") as f:
            f.write("%d\n" % os.getpid())


def counter(n, seed, device, stream):
    return Counter(n)


def not_a_callable(us, seed, device, stream):
    return 3
)";

const char* kSweep = R"(settings: {samples: 4, warmup: 1, seed: 5}
benchmarks:
  - python: bench.py
    function: spin
    device: cpu
    axes: {us: [50, 150]}
  - python: bench.py
    function: counter
    device: cpu
    name: sum_range
    axes: {n: 1000}
)";

struct PythonRun {
  Result result;
  std::vector<nlohmann::json> samples;
};

PythonRun run_sweep(const Scratch& s, const std::string& args, const std::string& sweep = kSweep,
                    const std::string& env = "") {
  s.write("bench.py", kModule);
  const auto path = s.write("sweep.yaml", sweep);
  PythonRun r;
  r.result = run(env + " " + bin("orchestrate") + " --device cpu --quiet --format none " + args + " --out " +
                     s.path("run") + " " + path,
                 s);
  if (std::filesystem::exists(s.path("run/samples.jsonl"))) r.samples = read_jsonl(s.path("run/samples.jsonl"));
  return r;
}

// Whether a process runs (a zombie or no process at all does not).
bool running(pid_t pid) {
  const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return false;
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

bool gone_within(pid_t pid, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (running(pid) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return !running(pid);
}

// Starts a run of spin over `us` in the background and returns once `samples` are journaled.
pid_t start_in_background(const Scratch& s, const std::string& settings, const std::string& us,
                          std::vector<std::string> args, std::size_t samples) {
  s.write("bench.py", kModule);
  const auto sweep = s.write("sweep.yaml", settings + "\nbenchmarks:\n  - python: bench.py\n    function: spin\n"
                                                      "    device: cpu\n    axes: {us: " + us + "}\n");
  args.insert(args.begin(), bin("orchestrate"));
  args.insert(args.end(), {"--device", "cpu", "--quiet", "--out", s.path("run"), sweep});
  const pid_t pid = spawn(args, s);
  wait_for_samples(s.path("run/samples.jsonl"), samples);
  return pid;
}

}  // namespace

TEST_CASE("Python benchmarks run in workers forked by one zygote, in every isolation mode") {
  for (const std::string mode : {"--isolation process --per sample", "--isolation process --per batch",
                                 "--isolation interleave", "--isolation sequential"}) {
    CAPTURE(mode);
    Scratch s("python-modes");
    const auto r = run_sweep(s, mode + " --zygotes per-run");
    REQUIRE_MESSAGE(r.result.exit_code == 0, r.result.err);
    REQUIRE(r.samples.size() == 12);
    const auto imports = lines(s.path("imports.txt"));
    REQUIRE(imports.size() == 1);  // imported once, by the zygote
    const pid_t zygote = std::stoi(imports[0]);
    std::map<std::string, int> per_instance;
    std::set<long long> pids;
    for (const auto& x : r.samples) {
      per_instance[x["instance"]]++;
      pids.insert(x["worker_pid"].get<long long>());
      CHECK(x["worker_pid"].get<long long>() != zygote);
      if (x["instance"] == "spin[us=150]") CHECK(x["value"].get<double>() >= 150e-6);
      if (x["instance"] == "spin[us=50]") CHECK(x["value"].get<double>() >= 50e-6);
    }
    CHECK(per_instance["spin[us=50]"] == 4);
    CHECK(per_instance["spin[us=150]"] == 4);
    CHECK(per_instance["sum_range[n=1000]"] == 4);
    if (mode.find("sample") != std::string::npos) CHECK(pids.size() == 12);
    if (mode.find("batch") != std::string::npos) CHECK(pids.size() == 4);
    if (mode.find("process") == std::string::npos) CHECK(pids.size() == 1);
    // Every set-up ran in a child of the zygote.
    for (const auto& line : lines(s.path("setups.txt"))) {
      std::istringstream fields(line);
      long long pid = 0, parent = 0;
      fields >> pid >> parent;
      CHECK(parent == zygote);
      CHECK(pid != zygote);
    }
    const auto plan = read_json(s.path("run/plan.json"));
    CHECK(plan["instances"][0]["python_function"] == "spin");
    CHECK(plan["instances"][0]["family"] == "python");
    CHECK(plan["instances"][2]["kernel"] == "sum_range");
    const auto python = read_json(s.path("run/python.json"));
    CHECK(python["sides"].size() == 1);
    CHECK(python["sides"][0]["zygote"]["pid"] == zygote);
    CHECK(slurp(s.path("run/log.txt")).find("[zygote-start] side 0: pid " + std::to_string(zygote)) !=
          std::string::npos);
    CHECK_MESSAGE(gone_within(zygote, std::chrono::seconds(5)), "the zygote outlived its run");
    // The object form's teardown ran once per worker that set it up.
    CHECK(!lines(s.path("teardowns.txt")).empty());
  }
}

TEST_CASE("with bytecode writing off, the zygote keeps its imports' bytecode in isobench's cache only") {
  // PYTHONDONTWRITEBYTECODE (set on the H200, whose venv holds no .pyc): every zygote compiled
  // torch's sources again. The zygote keeps the bytecode under ISOBENCH_BYTECODE_CACHE instead,
  // at the source's own path, and writes none beside the source.
  Scratch s("python-bytecode");
  const std::string cache = s.path("bytecode");
  // The module's bytecode, wherever under the cache: the source's folder mirrored there.
  const auto kept = [&] {
    std::vector<std::filesystem::path> found;
    if (std::filesystem::exists(cache))
      for (const auto& e : std::filesystem::recursive_directory_iterator(cache))
        if (e.path().filename().string().rfind("bench.", 0) == 0 && e.path().extension() == ".pyc")
          found.push_back(e.path());
    return found;
  };
  auto r = run_sweep(s, "--samples 2", kSweep, "PYTHONDONTWRITEBYTECODE=1 ISOBENCH_BYTECODE_CACHE=" + cache);
  REQUIRE_MESSAGE(r.result.exit_code == 0, r.result.err);
  CHECK(read_json(s.path("run/python.json"))["sides"][0]["zygote"]["bytecode"] == cache);
  CHECK(slurp(s.path("run/log.txt")).find(", bytecode kept in " + cache + "\n") != std::string::npos);
  const auto first = kept();
  REQUIRE(first.size() == 1);
  CHECK(first[0].parent_path().lexically_relative(cache).string() ==
        std::filesystem::canonical(s.dir).relative_path().string());
  CHECK_FALSE(std::filesystem::exists(s.path("__pycache__")));
  // The next run's zygote reads it: the file is not written again. The module stays as it is
  // (run_sweep would write it anew: a source with another mtime is compiled again, as it should).
  const auto stamp = std::filesystem::last_write_time(first[0]);
  std::filesystem::remove_all(s.path("run"));
  const auto again = run("PYTHONDONTWRITEBYTECODE=1 ISOBENCH_BYTECODE_CACHE=" + cache + " " + bin("orchestrate") +
                             " --device cpu --quiet --format none --samples 2 --out " + s.path("run") + " " +
                             s.path("sweep.yaml"),
                         s);
  REQUIRE_MESSAGE(again.exit_code == 0, again.err);
  CHECK(kept() == first);
  CHECK(std::filesystem::last_write_time(first[0]) == stamp);
  // "off", or bytecode writing on: nothing kept, and the zygote says so.
  std::filesystem::remove_all(cache);
  std::filesystem::remove_all(s.path("run"));
  r = run_sweep(s, "--samples 2", kSweep, "PYTHONDONTWRITEBYTECODE=1 ISOBENCH_BYTECODE_CACHE=off");
  REQUIRE_MESSAGE(r.result.exit_code == 0, r.result.err);
  CHECK(read_json(s.path("run/python.json"))["sides"][0]["zygote"]["bytecode"].is_null());
  CHECK(slurp(s.path("run/log.txt")).find("bytecode kept") == std::string::npos);
  CHECK_FALSE(std::filesystem::exists(cache));
  CHECK_FALSE(std::filesystem::exists(s.path("__pycache__")));
  std::filesystem::remove_all(s.path("run"));
  r = run_sweep(s, "--samples 2", kSweep, "env -u PYTHONDONTWRITEBYTECODE ISOBENCH_BYTECODE_CACHE=" + cache);
  REQUIRE_MESSAGE(r.result.exit_code == 0, r.result.err);
  CHECK(read_json(s.path("run/python.json"))["sides"][0]["zygote"]["bytecode"].is_null());
  CHECK_FALSE(std::filesystem::exists(cache));
}

TEST_CASE("every worker starts from the zygote's state, not from what an earlier worker did") {
  Scratch s("python-fresh");
  const auto r = run_sweep(s, "--isolation process --per sample");
  REQUIRE_MESSAGE(r.result.exit_code == 0, r.result.err);
  // setups_seen is a module global the set-up increments: a worker forked from the zygote sees 0
  // for its first set-up, whatever earlier workers did.
  std::map<long long, std::vector<int>> seen;
  for (const auto& line : lines(s.path("setups.txt"))) {
    std::istringstream fields(line);
    long long pid = 0, parent = 0;
    int count = 0;
    fields >> pid >> parent >> count;
    seen[pid].push_back(count);
  }
  REQUIRE(seen.size() >= 9);  // 8 samples of spin, each in its own worker, and the calibration worker
  for (const auto& [pid, counts] : seen) CHECK(counts.front() == 0);
}

TEST_CASE("a Python benchmark that fails: recorded with module, function and instance, retried") {
  struct Case {
    std::string fail, reason;
  };
  const std::vector<Case> cases = {
      {"setup", "setup of spin[us=50] failed: " },
      {"launch", "spin[us=50]: "},
      {"exit", "exit code 7"},
      {"hang", "hung: no heartbeat"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.fail);
    Scratch s("python-fail");
    const std::string timeout = c.fail == "hang" ? " --worker-timeout 2" : "";
    const auto r = run_sweep(s, "--isolation process --per batch --inner 2" + timeout, kSweep, "FAIL=" + c.fail);
    REQUIRE_MESSAGE(r.result.exit_code == 0, r.result.err);  // the retry in a fresh worker measured it
    CHECK(r.samples.size() == 12);
    const auto log = slurp(s.path("run/log.txt"));
    CHECK_MESSAGE(log.find("worker-failed") != std::string::npos, log);
    CHECK_MESSAGE(log.find(c.reason) != std::string::npos, log);
    if (c.fail == "setup") {
      CHECK_MESSAGE(log.find("bench.py:spin setup: ValueError: set-up refused on purpose (at ") != std::string::npos, log);
    }
    if (c.fail == "launch") {
      CHECK_MESSAGE(log.find("bench.py:spin launch failed: RuntimeError: launch failed on purpose (at ") !=
                        std::string::npos,
                    log);
      // The traceback is in workers.log.
      CHECK(slurp(s.path("run/workers.log")).find("Traceback") != std::string::npos);
    }
    if (c.fail == "hang") {
      const auto hung = lines(s.path("hung.txt"));
      REQUIRE(hung.size() == 1);
      CHECK_MESSAGE(!running(std::stoi(hung[0])), "the hung worker is still running");
    }
    const auto failures = read_jsonl(s.path("run/samples.jsonl"), "worker_failure");
    CHECK(failures.size() == 1);
  }
}

TEST_CASE("a Python benchmark that always fails before its first sample: said once with its cause, not retried, exit 3") {
  Scratch s("python-always");
  const auto r = run_sweep(s, "--isolation process --per batch --inner 2 --retries 5", kSweep, "FAIL=always");
  CHECK(r.result.exit_code == 3);
  const auto log = slurp(s.path("run/log.txt"));
  CHECK_MESSAGE(log.find("RuntimeError: this launch always fails") != std::string::npos, log);
  CHECK_MESSAGE(log.find("[deterministic-failure]") != std::string::npos, log);
  CHECK_MESSAGE(r.result.err.find("with one cause, not retried: ") != std::string::npos, r.result.err);
  CHECK(read_jsonl(s.path("run/samples.jsonl"), "worker_failure").size() == 2);
}

TEST_CASE("set-ups that fail beside their batch-mates are retried one at a time, not taken for a deterministic "
          "failure; one that fails alone too still is") {
  // Four workers released into their set-ups at once (--setup-batch 4, no calibration worker):
  // every set-up that begins while another holds the lock fails, as set-ups short of device memory
  // together would, with the same cause, before any worker of the side has reported. Alone (the
  // rest of the run sets up one worker at a time) they succeed.
  {
    Scratch s("python-crowded");
    const auto r = run_sweep(s, "--isolation process --per batch --inner 2 --setup-batch 4", kSweep, "FAIL=crowded");
    REQUIRE_MESSAGE(r.result.exit_code == 0, r.result.err);
    CHECK(r.samples.size() == 12);
    const auto log = slurp(s.path("run/log.txt"));
    CHECK_MESSAGE(log.find("failed in its set-up batch, before it measured") != std::string::npos, log);
    CHECK_MESSAGE(log.find("[deterministic-failure]") == std::string::npos, log);
    const auto failures = read_jsonl(s.path("run/samples.jsonl"), "worker_failure");
    CHECK(failures.size() >= 2);  // at least two of one side with one cause: once, the run stopped there
    for (const auto& f : failures)
      CHECK_MESSAGE(f["reason"].get<std::string>().find("MemoryError: out of memory beside another set-up") !=
                        std::string::npos,
                    f.dump());
  }
  {
    Scratch s("python-setup-always");
    const auto r = run_sweep(s, "--isolation process --per batch --inner 2 --setup-batch 4 --retries 5", kSweep,
                             "FAIL=setup-always");
    CHECK(r.result.exit_code == 3);
    const auto log = slurp(s.path("run/log.txt"));
    CHECK_MESSAGE(log.find("[deterministic-failure]") != std::string::npos, log);
    CHECK(r.samples.empty());
    // The batch's four, then two alone with the same cause; the workers started behind them are
    // dropped before their set-ups.
    CHECK(read_jsonl(s.path("run/samples.jsonl"), "worker_failure").size() == 6);
    CHECK_MESSAGE(log.find("not released: the run stopped on a failure not retried") != std::string::npos, log);
  }
}

TEST_CASE("a set-up that returns neither a callable nor an object with launch() fails its worker") {
  Scratch s("python-not-callable");
  const auto r = run_sweep(s, "--inner 2 --retries 0",
                           "settings: {samples: 2}\nbenchmarks:\n  - python: bench.py\n    function: not_a_callable\n"
                           "    device: cpu\n    axes: {us: 1}\n");
  CHECK(r.result.exit_code == 3);
  const auto log = slurp(s.path("run/log.txt"));
  CHECK_MESSAGE(log.find("setup of not_a_callable[us=1] failed") != std::string::npos, log);
  CHECK_MESSAGE(log.find("returned int: expected the timed callable, or an object with launch()") != std::string::npos,
                log);
}

TEST_CASE("a zygote that dies is started again, imports and all, and the run goes on") {
  Scratch s("python-zygote-dies");
  const auto r = run_sweep(s, "--isolation process --per batch --inner 2 --zygotes per-run", kSweep, "FAIL=zygote");
  REQUIRE_MESSAGE(r.result.exit_code == 0, r.result.err);
  CHECK(r.samples.size() == 12);
  const auto log = slurp(s.path("run/log.txt"));
  CHECK_MESSAGE(log.find("[zygote-died] side 0") != std::string::npos, log);
  CHECK_MESSAGE(log.find("[zygote-restart] side 0") != std::string::npos, log);
  CHECK_MESSAGE(log.find("killed by SIGKILL") != std::string::npos, log);
  const auto imports = lines(s.path("imports.txt"));
  REQUIRE(imports.size() == 2);  // the first zygote's and its successor's
  for (const auto& pid : imports) CHECK(!running(std::stoi(pid)));
}

TEST_CASE("Python benchmarks are checked before anything runs: one line, exit code 2, no run directory") {
  struct Case {
    std::string module, sweep, args, message;
  };
  const std::string entry = "benchmarks:\n  - python: mod.py\n    function: f\n    device: cpu\n    axes: {n: 3}\n";
  const std::string good = "def f(n, seed, device, stream):\n    return lambda: None\n";
  const std::vector<Case> cases = {
      {"import nonexistent_module_xyz\n", entry, "",
       "f[n=3]: python " + std::string("@/mod.py function f: cannot import @/mod.py: ModuleNotFoundError: No module named "
                                       "'nonexistent_module_xyz' (at @/mod.py:1)")},
      {"raise RuntimeError('broken at import')\n", entry, "", "RuntimeError: broken at import"},
      {"def g(n, seed, device, stream):\n    pass\n", entry, "", "@/mod.py has no function f"},
      {"def ff(n, seed, device, stream):\n    pass\n", entry, "", "has no function f (did you mean ff?)"},
      {"def f(m, seed, device, stream):\n    pass\n", entry, "",
       "f[n=3]: python @/mod.py function f: f() cannot take the instance's parameters and seed, device, stream: "},
      {"import sys, types\ntorch = types.ModuleType('torch')\n"
       "torch.cuda = types.SimpleNamespace(is_initialized=lambda: True)\nsys.modules['torch'] = torch\n" + good,
       entry, "", "importing it initialised CUDA (torch.cuda.is_initialized())"},
      {good, "benchmarks:\n  - python: mod.py\n    device: cpu\n", "", "benchmarks[0].function: missing"},
      {good, "benchmarks:\n  - python: nope.py\n    function: f\n", "", "benchmarks[0].python: @/nope.py: no such file"},
      {good, "benchmarks:\n  - python: 'not a module'\n    function: f\n", "",
       "is neither a .py file nor a module name"},
      {good, "benchmarks:\n  - python: mod.py\n    function: f\n    device: gpu\n", "",
       "benchmarks[0].device: must be cpu or cuda"},
      {good, "benchmarks:\n  - python: mod.py\n    function: f\n    device: cpu\n    axes: {seed: 1}\n", "",
       "benchmarks[0].axes.seed: \"seed\" is passed by the worker itself"},
      {good, "benchmarks:\n  - python: mod.py\n    function: f\n    kernel: cpu_copy\n", "",
       "a benchmark is a kernel, a command or a Python function, not several"},
      {good, "benchmarks:\n  - kernel: cpu_copy\n    function: f\n", "", "only Python benchmarks (python:, pytest:, script:) take"},
      {good, entry, "--python /nonexistent/python3", "--python /nonexistent/python3: not an executable"},
      {good, entry, "--python-env 1BAD=x", "--python-env 1BAD=x: expected NAME=VALUE"},
      {good, "benchmarks:\n  - kernel: cpu_copy\n", "--python python3", "this sweep has none"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.sweep);
    CAPTURE(c.module);
    Scratch s("python-bad");
    s.write("mod.py", c.module);
    const auto sweep = s.write("sweep.yaml", c.sweep);
    const auto r = run(bin("orchestrate") + " --device cpu --quiet " + c.args + " --out " + s.path("run") + " " + sweep, s);
    std::string message = c.message;
    for (std::size_t at; (at = message.find('@')) != std::string::npos;) message.replace(at, 1, s.dir.string());
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.err.find(message) != std::string::npos, r.err);
    CHECK_MESSAGE(std::count(r.err.begin(), r.err.end(), '\n') == 1, r.err);
    CHECK(!std::filesystem::exists(s.path("run")));
  }
}

TEST_CASE("a CUDA Python benchmark is left out of a CPU run") {
  Scratch s("python-cuda-skipped");
  const auto r = run_sweep(s, "", "benchmarks:\n  - python: bench.py\n    function: spin\n    axes: {us: 1}\n");
  CHECK(r.result.exit_code == 2);
  CHECK_MESSAGE(r.result.err.find("no instance runs on cpu (1 need another device)") != std::string::npos, r.result.err);
}

TEST_CASE("SIGINT stops a Python run; --resume finishes it with a new zygote") {
  Scratch s("python-resume");
  const pid_t pid = start_in_background(s, "settings: {samples: 30, inner: 2, seed: 9}", "[200, 400]",
                                        {"--isolation", "process", "--per", "sample", "--zygotes", "per-run"}, 5);
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  const auto kept = read_jsonl(s.path("run/samples.jsonl")).size();
  CHECK(kept >= 5);
  CHECK(kept < 60);
  const pid_t first_zygote = read_json(s.path("run/python.json"))["sides"][0]["zygote"]["pid"].get<pid_t>();
  CHECK(gone_within(first_zygote, std::chrono::seconds(5)));

  // Python options on a resume are refused: the run keeps the environments it started with.
  const auto refused = run(bin("orchestrate") + " --quiet --python python3 --resume " + s.path("run"), s);
  CHECK(refused.exit_code == 2);
  CHECK_MESSAGE(refused.err.find("the run measures with the Python environments its python.json records") != std::string::npos,
                refused.err);

  const auto r = run(bin("orchestrate") + " --quiet --format none --resume " + s.path("run"), s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto samples = read_jsonl(s.path("run/samples.jsonl"));
  CHECK(samples.size() == 60);
  std::set<std::uint32_t> slots;
  for (const auto& x : samples) CHECK(slots.insert(x["slot"].get<std::uint32_t>()).second);
  CHECK(lines(s.path("imports.txt")).size() == 2);  // one zygote per start
  CHECK(read_json(s.path("run/python.json"))["sides"][0]["zygote"]["pid"].get<pid_t>() != first_zygote);
}

TEST_CASE("--resume measures with the interpreter the run started with: another named, or it gone, is refused") {
  Scratch s("python-resume-interpreter");
  // An interpreter of the run's own path (as a venv's bin/python3 is), to take away later.
  const std::string python = s.path("venv/bin/python3");
  std::filesystem::create_directories(s.path("venv/bin"));
  const auto found = run("command -v python3", s);
  REQUIRE(found.exit_code == 0);
  const std::string system_python = found.out.substr(0, found.out.find('\n'));
  std::filesystem::create_symlink(system_python, python);
  auto r = run_sweep(s, "--python " + python).result;
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(read_json(s.path("run/python.json"))["sides"][0]["interpreter"] == python);
  // The run as an interrupt leaves it: its first two samples.
  const std::string journal = s.path("run/samples.jsonl");
  std::string kept;
  std::size_t samples = 0;
  for (const auto& line : lines(journal)) {
    if (nlohmann::json::parse(line).value("type", "sample") == "sample" && ++samples > 2) break;
    kept += line + "\n";
  }
  std::ofstream(journal, std::ios::trunc) << kept;
  auto info = read_json(s.path("run/run.json"));
  info["status"] = "interrupted";
  std::ofstream(s.path("run/run.json"), std::ios::trunc) << info.dump();
  const std::string resume = bin("orchestrate") + " --quiet --format none --resume " + s.path("run");

  // Another interpreter named: one line naming both, nothing measured.
  r = run(resume + " --python " + system_python, s);
  CHECK(bad_input_problem(r, {"--python " + system_python + " is not taken", "(" + python + ")"}, s.path("none")) == "");
  // The recorded one gone (a venv removed): refused before anything is measured, not failed per worker.
  std::filesystem::remove(python);
  r = run(resume, s);
  CHECK(bad_input_problem(r, {"the interpreter the run was started with, " + python + ", is gone (no such file)"},
                          s.path("none")) == "");
  CHECK(read_jsonl(journal).size() == 2);
  CHECK(read_json(s.path("run/run.json"))["status"] == "interrupted");
  // Back in place but another Python behind it (the venv rebuilt): refused once its zygote says so.
  std::filesystem::create_symlink(system_python, python);
  const auto recorded = read_json(s.path("run/python.json"));
  auto other = recorded;
  other["sides"][0]["zygote"]["python"] = "2.7.18";
  std::ofstream(s.path("run/python.json"), std::ios::trunc) << other.dump();
  r = run(resume, s);
  CHECK(bad_input_problem(r, {"the interpreter " + python + " now runs Python 3.", "started with 2.7.18"}, s.path("none")) == "");
  CHECK(read_jsonl(journal).size() == 2);
  // The same Python: the run is finished with it.
  std::ofstream(s.path("run/python.json"), std::ios::trunc) << recorded.dump();
  r = run(resume, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(read_jsonl(journal).size() == 12);
}

TEST_CASE("SIGKILL of the orchestrator: its zygote and the zygote's worker die with it") {
  Scratch s("python-orphans");
  const pid_t pid = start_in_background(s, "settings: {samples: 200, inner: 1, seed: 9}", "20000",
                                        {"--isolation", "interleave"}, 3);
  // Interleave: one worker takes all 200 samples (4 s); it set up last.
  const auto setups = lines(s.path("setups.txt"));
  REQUIRE(!setups.empty());
  const pid_t worker = std::stoi(setups.back());
  const pid_t zygote = read_json(s.path("run/python.json"))["sides"][0]["zygote"]["pid"].get<pid_t>();
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK_MESSAGE(gone_within(zygote, std::chrono::seconds(5)), "the zygote outlived its orchestrator");
  CHECK_MESSAGE(gone_within(worker, std::chrono::seconds(5)), "a forked worker outlived its orchestrator");
}

TEST_CASE("the shipped CPU example sweep runs through the zygote") {
  Scratch s("python-example");
  const auto r = run(bin("orchestrate") + " --device cpu --quiet --format none --samples 3 --out " + s.path("run") + " " +
                         source_dir() + "/examples/python/cpu.yaml",
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto samples = read_jsonl(s.path("run/samples.jsonl"));
  CHECK(samples.size() == 9);
  for (const auto& x : samples) CHECK(x["value"].get<double>() > 0);
}

TEST_CASE("calibrate runs a Python sweep in process and ab modes, fresh zygotes per round and side") {
  Scratch s("python-calibrate");
  s.write("bench.py", kModule);
  // A module name: calibrate runs from its own copy of the sweep, beside which no bench.py lies.
  const auto sweep = s.write("sweep.yaml", "benchmarks:\n  - python: bench\n    function: spin\n    device: cpu\n"
                                           "    axes: {us: 100}\n");
  const auto r = run("PYTHONPATH=" + s.dir.string() + " " + bin("orchestrate") +
                         " calibrate --device cpu --quiet --runs 2 --modes process,ab --samples 8 --inner 2 "
                         "--power-repetitions 20 --max-n 16 --out " + s.path("cal") + " " + sweep,
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto calibration = read_json(s.path("cal/calibration.json"));
  std::map<std::string, int> trials;
  for (const auto& mode : calibration["modes"]) trials[mode["mode"]] = mode["fpr"][0]["trials"].get<int>();
  CHECK(trials["process"] == 1);  // one instance, C(2, 2) pairs of runs
  CHECK(trials["ab"] == 2);       // one instance, side against side in each of 2 runs
  // Timed on the CPU: per round (docs/python.md, "What a worker inherits"), each side's first
  // zygote and one per round of 8: 2 process runs of one side, 2 ab runs of 2 sides.
  CHECK(lines(s.path("imports.txt")).size() == (2 + 2 * 2) * (1 + 8));
}
