// --like RUN_DIR without workers: what read_like_run takes from a run directory (the plan's
// instances, seed, and the GPU models of environment.json), which machines it refuses (another
// device, another GPU model: the GPU case cannot run on a CPU-only CI machine end to end), and
// how take_like_choices moves the choices into a new plan.
#include <doctest/doctest.h>

#include "orchestrator/errors.hpp"
#include "orchestrator/run/like_run.hpp"
#include "orchestrator/run/sweep_plan.hpp"
#include "temp_dir.hpp"

using namespace isobench::orchestrator;
using isobench::kernels::Backend;
using isobench::testing::TempDir;
using nlohmann::json;

namespace {

const char* kSweep = R"(
settings: {samples: 3, seed: 5}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [10, 20]}
)";

Plan plan_of(const char* text, const SettingsOverrides& overrides = {}) {
  return make_plan(parse_sweep(text, "like.yaml", overrides), Backend::cpu);
}

// A run directory of `plan`, with environment.json's GPU list when given.
std::string write_run(const TempDir& dir, const std::string& name, const Plan& plan, const json& gpus = nullptr) {
  dir.write(name + "/run.json", json{{"schema_version", 1}, {"status", "complete"}}.dump());
  dir.write(name + "/plan.json", plan.to_json().dump());
  if (!gpus.is_null()) dir.write(name + "/environment.json", json{{"gpu", {{"gpus", gpus}}}}.dump());
  return dir / name;
}

}  // namespace

TEST_CASE("read_like_run: the plan's instances and seed, and the models of the GPUs it ran on") {
  TempDir dir;
  Plan earlier = plan_of(kSweep);
  earlier.device = "cuda";
  earlier.instances[0].inner = 77;
  const json gpus = json::array({{{"index", 0}, {"name", "NVIDIA H100 80GB HBM3"}, {"uuid", "GPU-a"}},
                                 {{"index", 1}, {"name", "NVIDIA H200"}, {"uuid", "GPU-b"}}});
  const LikeRun like = read_like_run(write_run(dir, "A", earlier, gpus));
  CHECK(like.device == "cuda");
  CHECK(like.seed == 5);
  REQUIRE(like.instances.size() == 2);
  CHECK(like.instances.at("cpu_spin[microseconds=10]").inner == 77);
  // The run used GPU 0 only: GPU 1 of the machine is not its model.
  CHECK(like.gpu_models == std::set<std::string>{"NVIDIA H100 80GB HBM3"});

  CHECK(like_machine_problem(like, Backend::cuda, {"NVIDIA H100 80GB HBM3"}).empty());
  CHECK(like_machine_problem(like, Backend::cuda, {}).empty());  // NVML cannot tell: the workers find out
  CHECK(like_machine_problem(like, Backend::cuda, {"NVIDIA H200"}) ==
        "--like " + (dir / "A") + ": it measured on NVIDIA H100 80GB HBM3 and this run measures on NVIDIA H200: inner "
        "counts and algorithms chosen on one GPU model do not hold on another");
  CHECK(like_machine_problem(like, Backend::cpu, {}) ==
        "--like " + (dir / "A") + ": it measured on cuda and this run measures on cpu: inner counts chosen on one "
        "device do not hold on the other (give --device cuda, or --like a run of this device)");

  // A folder without plan.json, and one whose plan.json is damaged, are no run to be like.
  dir.write("B/run.json", json{{"schema_version", 1}}.dump());
  CHECK_THROWS_WITH_AS(read_like_run(dir / "B"), ("--like " + (dir / "B") + ": no plan.json: not a run directory").c_str(),
                       UsageError);
  dir.write("B/plan.json", json{{"schema_version", 1}, {"sweep", "x"}}.dump());
  CHECK_THROWS_AS(read_like_run(dir / "B"), UsageError);
}

TEST_CASE("take_like_choices: inner counts, pins and sample-changing settings move; a flag against them is refused") {
  TempDir dir;
  Plan earlier = plan_of(kSweep);
  earlier.instances[0].inner = 77;
  earlier.instances[0].replay = {{"algo", 3}};
  earlier.instances[0].worker.measure.timer = "events";
  earlier.instances[1].inner = 0;  // interrupted before its calibration
  const LikeRun like = read_like_run(write_run(dir, "A", earlier));

  Plan plan = plan_of(kSweep);
  take_like_choices(plan, like, {}, Log());
  CHECK(plan.instances[0].inner == 77);
  CHECK(plan.instances[0].replay == json{{"algo", 3}});
  CHECK(plan.instances[0].worker.measure.timer == "events");
  CHECK(plan.instances[1].inner == 0);  // calibrated afresh
  CHECK(plan.instances[1].worker.measure.timer == "graph");

  SettingsOverrides timer;
  timer.set("timer", "graph");
  Plan flagged = plan_of(kSweep, timer);
  CHECK_THROWS_WITH_AS(take_like_choices(flagged, like, timer, Log()),
                       ("--like " + (dir / "A") + ": --timer graph conflicts with its timer events "
                        "(cpu_spin[microseconds=10]); leave --timer out to measure like it, or drop --like")
                           .c_str(),
                       UsageError);
  SettingsOverrides inner;
  inner.set("inner", 77);  // agrees with it
  Plan agreeing = plan_of(kSweep, inner);
  take_like_choices(agreeing, like, inner, Log());
  CHECK(agreeing.instances[0].inner == 77);

  // The seed: taken, unless --seed says otherwise.
  CHECK(like_overrides(like, {}).values()["seed"] == 5);
  SettingsOverrides seed;
  seed.set("seed", 6);
  CHECK_THROWS_AS(like_overrides(like, seed), UsageError);
}
