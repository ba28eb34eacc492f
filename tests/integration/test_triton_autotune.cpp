// Triton autotune record and replay (docs/python.md, "Autotuned Triton kernels") through the real
// orchestrate and zygote, with the stand-in autotuner of tests/python/fake_triton on the
// zygote's path (no GPU, no triton on CI): a run records the configuration its set-ups chose in
// instance_reports.json, --replay-from makes a later run use it where its own autotuning would
// pick another, and a side whose kernel lacks the recorded configuration fails with that said.

#include <doctest/doctest.h>

#include <set>
#include <sstream>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

// Every launch appends the BLOCK it ran with to blocks.txt. The set-up launches once, so the
// autotuning happens there, untimed.
std::string module_with(const std::string& configs) {
  return R"(import os
import triton

HERE = os.path.dirname(os.path.abspath(__file__))


@triton.autotune(configs=)" + configs + R"(, key=["n"])
def scale(n, BLOCK, num_warps, num_stages, num_ctas):
    with open(os.path.join(HERE, "blocks.txt"), "a") as f:
        f.write("%d\n" % BLOCK)


def tuned(n, seed, device, stream):
    scale(n)
    return lambda: scale(n)
)";
}

const std::string kConfigs = R"([triton.Config({"BLOCK": 64}, num_warps=4), triton.Config({"BLOCK": 128}, num_warps=8)])";
const char* kSweep = "settings: {samples: 3, warmup: 1}\nbenchmarks:\n  - python: bench.py\n    function: tuned\n"
                     "    device: cpu\n    axes: {n: 1000}\n";

Result run_tuned(const Scratch& s, const std::string& out, const std::string& best, const std::string& args = "") {
  const auto sweep = s.write("sweep.yaml", kSweep);
  const std::string fake = source_dir() + "/tests/python/fake_triton";
  return run(bin("orchestrate") + " --device cpu --quiet --format none --inner 1 --python-path " + fake +
                 " --python-env FAKE_TRITON_BEST=" + best + " " + args + " --out " + s.path(out) + " " + sweep,
             s);
}

std::set<std::string> blocks(const Scratch& s) {
  std::set<std::string> seen;
  for (const auto& line : lines(s.path("blocks.txt"))) seen.insert(line);
  std::filesystem::remove(s.path("blocks.txt"));
  return seen;
}

}  // namespace

TEST_CASE("a run records its autotune choices and --replay-from makes another run use them") {
  Scratch s("triton-autotune");
  s.write("bench.py", module_with(kConfigs));
  auto r = run_tuned(s, "first", "1");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(blocks(s) == std::set<std::string>{"128"});
  const auto reports = read_json(s.path("first/instance_reports.json"));
  const auto& recorded = reports["instances"]["tuned[n=1000]"]["describe"]["triton_autotune"];
  REQUIRE(recorded.size() == 1);
  CHECK(recorded[0]["kernel"] == "bench.scale");
  CHECK(recorded[0]["key"] == nlohmann::json::array({1000}));
  CHECK(recorded[0]["config"] == nlohmann::json::parse(R"({"kwargs": {"BLOCK": 128}, "num_warps": 8, "num_stages": 3,
                                                           "num_ctas": 1})"));

  // Its own autotuning would pick BLOCK 64; the replayed choice is 128, in every launch.
  r = run_tuned(s, "replayed", "0", "--replay-from " + s.path("first"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(blocks(s) == std::set<std::string>{"128"});
  r = run_tuned(s, "afresh", "0");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(blocks(s) == std::set<std::string>{"64"});

  // A kernel without the recorded configuration cannot run the recorded choice.
  s.write("bench.py", module_with(R"([triton.Config({"BLOCK": 64}, num_warps=4), triton.Config({"BLOCK": 256})])"));
  r = run_tuned(s, "lacking", "0", "--retries 0 --replay-from " + s.path("first"));
  CHECK(r.exit_code == 3);
  CHECK(slurp(s.path("lacking/log.txt")).find("bench.scale: the pinned autotune configuration {'kwargs': {'BLOCK': 128}") !=
        std::string::npos);
  CHECK(slurp(s.path("lacking/log.txt")).find("is not among this side's 2 configurations") != std::string::npos);
}
