// plan.json: a plan survives the trip through its JSON text (what --resume reads), every
// instance field included; fields newer than a plan file take their defaults; the instance fields
// are the instance table's own (one writer and reader in ipc/instance_table.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>

#include "ipc/instance_table.hpp"
#include "orchestrator/compare/sequential_verdict.hpp"
#include "orchestrator/errors.hpp"
#include "orchestrator/plan.hpp"
#include "orchestrator/run/plan_run.hpp"
#include "orchestrator/run/sweep_plan.hpp"
#include "orchestrator/sequential_plan.hpp"
#include "orchestrator/sweep.hpp"

using namespace isobench::orchestrator;
using nlohmann::json;

namespace {

Plan plan_of(const std::string& text) {
  return make_plan(parse_sweep(text, "plan.yaml"), isobench::kernels::Backend::cpu);
}

const char* kSweep = R"(
settings: {samples: 3, seed: 5, idle_gap_ms: 12.5}
benchmarks:
  - kernel: cpu_copy
    axes: {bytes: 4096}
    settings: {realloc: true, rotate_buffers: 2}
  - kernel: cpu_spin
    settings: {idle_gap_ms: 0, inner: 7}
)";

}  // namespace

TEST_CASE("plan.json round-trips every instance field, idle_gap_ms and realloc included") {
  const Plan plan = plan_of(kSweep);
  REQUIRE(plan.instances.size() == 2);
  CHECK(plan.instances[0].worker.measure.idle_gap_ms == 12.5);
  CHECK(plan.instances[0].worker.measure.realloc);
  CHECK(plan.instances[0].worker.measure.rotate_buffers == 2);
  CHECK(plan.instances[1].worker.measure.idle_gap_ms == 0);
  CHECK_FALSE(plan.instances[1].worker.measure.realloc);

  const json written = plan.to_json();
  const Plan read = Plan::from_json(json::parse(written.dump()));
  CHECK(read.to_json() == written);
  CHECK(read.instances[0].worker.measure.idle_gap_ms == 12.5);
  CHECK(read.instances[0].worker.measure.realloc);
  CHECK(read.instances[1].fixed_inner == 7u);

  // Every field of the instance table is in plan.json, under the same name and value.
  for (std::size_t i = 0; i < plan.instances.size(); ++i) {
    const json table_entry = isobench::ipc::to_json(plan.instances[i].worker);
    for (const auto& [key, value] : table_entry.items()) {
      CAPTURE(key);
      CHECK(written["instances"][i].at(key) == value);
    }
  }
}

TEST_CASE("plan.json written before idle_gap_ms and realloc existed reads with their defaults") {
  json j = plan_of(kSweep).to_json();
  for (auto& instance : j["instances"]) {
    instance.erase("idle_gap_ms");
    instance.erase("realloc");
  }
  const Plan read = Plan::from_json(j);
  for (const auto& p : read.instances) {
    CHECK(p.worker.measure.idle_gap_ms == 0);
    CHECK_FALSE(p.worker.measure.realloc);
  }
}

TEST_CASE("plan.json records graph_chunk; one written before it existed reads as one graph of all launches") {
  const Plan plan = plan_of(R"(
settings: {graph_chunk: 64}
benchmarks:
  - kernel: cpu_copy
  - kernel: cpu_spin
    settings: {graph_chunk: 0}
)");
  json j = plan.to_json();
  CHECK(j["instances"][0]["graph_chunk"] == 64);
  CHECK(j["instances"][1]["graph_chunk"] == 0);
  CHECK(Plan::from_json(j).instances[0].worker.measure.graph_chunk == 64);
  // A plan from before the setting measured with one graph of all inner launches: a resumed
  // run measures on so, not with the new default.
  for (auto& instance : j["instances"]) instance.erase("graph_chunk");
  for (const auto& p : Plan::from_json(j).instances) CHECK(p.worker.measure.graph_chunk == 0);
  j = plan.to_json();
  j["instances"][0]["graph_chunk"] = -3;
  CHECK_THROWS_WITH(Plan::from_json(j), doctest::Contains("plan.json: instance 0: graph_chunk"));
}

TEST_CASE("cold_cache pins one launch per sample; cold_launches, a flush before every launch, does not") {
  const Plan plan = plan_of(R"(
benchmarks:
  - kernel: cpu_copy
    settings: {cold_cache: true}
  - kernel: cpu_spin
    settings: {cold_cache: true, cold_launches: true}
  - kernel: cpu_reduce
    settings: {cold_launches: true, inner: 9}
)");
  REQUIRE(plan.instances.size() == 3);
  CHECK(plan.instances[0].fixed_inner == 1u);
  CHECK_FALSE(plan.instances[1].fixed_inner.has_value());  // auto: calibrated
  CHECK(plan.instances[1].worker.measure.cold_launches);
  CHECK(plan.instances[2].fixed_inner == 9u);
  const Plan read = Plan::from_json(json::parse(plan.to_json().dump()));
  CHECK(read.instances[1].worker.measure.cold_launches);
  CHECK_FALSE(read.instances[0].worker.measure.cold_launches);
}

TEST_CASE("plan.json: a damaged instance is refused, naming it and the problem") {
  json j = plan_of(kSweep).to_json();
  j["instances"][1]["idle_gap_ms"] = -1;
  CHECK_THROWS_WITH(Plan::from_json(j), doctest::Contains("plan.json: instance 1: idle_gap_ms"));
  j = plan_of(kSweep).to_json();
  j["instances"][0]["realloc"] = "yes";
  CHECK_THROWS_WITH(Plan::from_json(j), doctest::Contains("plan.json: instance 0: "));
  j = plan_of(kSweep).to_json();
  j["instances"][0].erase("seed");
  CHECK_THROWS_WITH(Plan::from_json(j), doctest::Contains("plan.json: instance 0: "));
  // The instance table reads the same way, with its own context.
  auto table = json::array({isobench::ipc::to_json(plan_of(kSweep).instances[0].worker)});
  table[0]["idle_gap_ms"] = 1e9;
  CHECK_THROWS_WITH(isobench::ipc::decode_instances(table.dump()),
                    doctest::Contains("instance table entry 0: idle_gap_ms"));
}

// --gpus: instances dealt over the GPUs in sweep order, every group on one GPU, and a plan on one
// GPU exactly what it was before.
namespace {

const char* kFive = R"(
settings: {samples: 4, seed: 3, isolation: process, per: batch}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [10, 20, 30, 40, 50]}
)";

Plan plan_on(const std::vector<int>& gpus, std::uint64_t budget = 0) {
  return make_plan(parse_sweep(kFive, "gpus.yaml"), isobench::kernels::Backend::cpu, budget, gpus);
}

}  // namespace

TEST_CASE("--gpus deals the instances over the GPUs in sweep order; each group holds one GPU's") {
  const Plan plan = plan_on({2, 0});
  REQUIRE(plan.instances.size() == 5);
  std::vector<int> gpus;
  for (const auto& p : plan.instances) gpus.push_back(p.gpu);
  CHECK(gpus == std::vector<int>{2, 0, 2, 0, 2});
  CHECK(plan.schedule.groups == Groups{{0, 2, 4}, {1, 3}});
  CHECK(plan_gpus(plan, 7) == std::vector<int>{2, 0});
  // Every worker run measures the instances of one GPU; every slot is planned once.
  std::set<std::uint32_t> slots;
  for (const auto& run : plan.schedule.runs) {
    for (const auto& t : run.tasks) {
      CHECK(plan.instances[t.instance].gpu == plan.instances[run.tasks.front().instance].gpu);
      CHECK(slots.insert(t.slot).second);
    }
  }
  CHECK(slots.size() == 5u * 4u);
  // More GPUs than instances: the unused ones get no pipeline.
  const Plan wide = make_plan(parse_sweep(R"(
settings: {samples: 2}
benchmarks:
  - kernel: cpu_spin
)", "one.yaml"), isobench::kernels::Backend::cpu, 0, {0, 1, 2});
  CHECK(plan_gpus(wide, 0) == std::vector<int>{0});
}

TEST_CASE("--gpus: memory groups are made per GPU") {
  // cpu_spin holds no device memory: a budget of 1 byte still fits every instance, so the
  // grouping shows only the split by GPU. The budget's own packing is tested in test_schedule.
  const Plan plan = plan_on({0, 1}, 1);
  CHECK(plan.schedule.groups == Groups{{0, 2, 4}, {1, 3}});
}

TEST_CASE("groups per GPU count the groups memory made, not the GPUs") {
  CHECK(groups_per_gpu(plan_on({0})) == 1);
  CHECK(groups_per_gpu(plan_on({0, 1})) == 1);  // two groups, one per GPU: nothing was split
  // cpu_copy holds 2 x 4 MiB an instance: under a 20 MiB budget, two fit together, three do not.
  const auto copies = parse_sweep(R"(
settings: {samples: 2}
benchmarks:
  - kernel: cpu_copy
    axes: {bytes: [4194304, 4194305, 4194306, 4194307, 4194308]}
)", "copy.yaml");
  const Plan split = make_plan(copies, isobench::kernels::Backend::cpu, 20 << 20, {0, 1});
  CHECK(split.schedule.groups == Groups{{0, 2}, {4}, {1, 3}});
  CHECK(groups_per_gpu(split) == 2);
  CHECK(groups_per_gpu(make_plan(copies, isobench::kernels::Backend::cpu, 20 << 20, {0})) == 3);
}

TEST_CASE("on one GPU the plan is the one a run without --gpus made") {
  const Plan one = plan_on({0});
  json a = one.to_json();
  CHECK(a["gpus"] == json::array({0}));
  REQUIRE(a["instances"].size() == 5);
  for (const auto& instance : a["instances"]) CHECK(instance["gpu"] == 0);
  CHECK(one.schedule.groups == Groups{{0, 1, 2, 3, 4}});
  // The schedule is the one-group schedule every run had before --gpus, task for task.
  const Schedule before = make_schedule(Isolation::process, ProcessGranularity::batch, single_group(5), 4, 3);
  REQUIRE(one.schedule.runs.size() == before.runs.size());
  for (std::size_t r = 0; r < before.runs.size(); ++r)
    for (std::size_t t = 0; t < before.runs[r].tasks.size(); ++t) {
      CHECK(one.schedule.runs[r].tasks[t].slot == before.runs[r].tasks[t].slot);
      CHECK(one.schedule.runs[r].tasks[t].instance == before.runs[r].tasks[t].instance);
    }
}

TEST_CASE("plan.json keeps each instance's GPU; a plan from before --gpus reads with none") {
  const Plan plan = plan_on({1, 3});
  const json written = plan.to_json();
  const Plan read = Plan::from_json(json::parse(written.dump()));
  CHECK(read.to_json() == written);
  CHECK(read.gpus == std::vector<int>{1, 3});
  CHECK(read.instances[1].gpu == 3);

  json old = written;
  old.erase("gpus");
  for (auto& instance : old["instances"]) instance.erase("gpu");
  old["schedule"]["groups"] = json::array({json::array({0, 1, 2, 3, 4})});
  const Plan before = Plan::from_json(old);
  CHECK(before.gpus.empty());
  CHECK(before.instances[0].gpu == -1);
  CHECK(instance_gpu(before, 0, 5) == 5);  // the run's --gpu
  CHECK(plan_gpus(before, 5) == std::vector<int>{5});
}

TEST_CASE("plan.json: a GPU outside the plan's list, or a group over two GPUs, is refused") {
  json j = plan_on({0, 1}).to_json();
  j["instances"][2]["gpu"] = 4;
  CHECK_THROWS_WITH(Plan::from_json(j), doctest::Contains("gpu 4 is not one of the plan's gpus"));
  j = plan_on({0, 1}).to_json();
  j["schedule"]["groups"] = json::array({json::array({0, 1, 2, 3, 4})});
  CHECK_THROWS_WITH(Plan::from_json(j), doctest::Contains("a group holds instances of two GPUs"));
  j = plan_on({0, 1}).to_json();
  j["gpus"] = json::array({0, -1});
  CHECK_THROWS_WITH(Plan::from_json(j), doctest::Contains("gpus: -1 is not a device index"));
}

TEST_CASE("default looks: a separation look where the first cannot reach SLOWER, kept in plan.json") {
  using Looks = std::vector<std::size_t>;
  CHECK(default_looks(20) == Looks{8, 12, 16, 20});
  CHECK(default_looks(64) == Looks{8, 12, 16, 24, 36, 54, 64});
  SequentialPlan plan;
  // One instance: 8 per side can (1.55e-4 against a level of 5.2e-4 at 8 of 20): nothing added.
  use_default_looks(plan, 20);
  CHECK(plan.looks == Looks{8, 12, 16, 20});
  CHECK(plan.separation.empty());
  // Four (the 4-shape A/B of bench/gpu/python_ab_speed.sh): 8 cannot (1.55e-4 against 1.3e-4), 9
  // can (4.1e-5 against 1.4e-4).
  plan.instances = 4;
  use_default_looks(plan, 20);
  CHECK(plan.looks == Looks{8, 9, 12, 16, 20});
  CHECK(plan.separation == Looks{9});
  const auto design = plan.design();
  CHECK_FALSE(design.looks[1].stops_same);
  // plan.json keeps it, and a plan from before separation looks reads with none.
  const auto again = SequentialPlan::from_json(plan.to_json());
  CHECK(again.looks == plan.looks);
  CHECK(again.separation == Looks{9});
  auto older = plan.to_json();
  older.erase("separation_looks");
  older["looks"] = Looks{8, 12, 16, 20};
  CHECK(SequentialPlan::from_json(older).separation.empty());
  // A separation look that is not one of the looks is a damaged plan.
  auto damaged = plan.to_json();
  damaged["separation_looks"] = Looks{10};
  CHECK_THROWS_WITH_AS(SequentialPlan::from_json(damaged), doctest::Contains("separation look 10"), std::runtime_error);
}

TEST_CASE("the extension's cap: the default lowered to what one run holds, with a note; one asked for refused") {
  std::vector<std::string> notes;
  const Log log([&](LogLevel, const std::string& line) { notes.push_back(line); });
  // Where the run holds it, the cap as given or the default, and nothing said.
  CHECK(extension_cap(std::nullopt, 20, 2, log) == kDefaultExtendTo);
  CHECK(extension_cap(40, 20, 2, log) == 40);
  CHECK(extension_cap(0, 20, 40000, log) == 0);
  CHECK(extension_cap(60, 80, 40000, log) == 60);  // not above the most: no extension to fit
  CHECK(notes.empty());
  // 40000 instances x 60 x 2 sides is past 2^22 slots: the default goes to 2^22 / 80000 = 52.
  CHECK(extension_cap(std::nullopt, 20, 40000, log) == 52);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] ==
        "the extension goes up to 52 samples per side, not 60: 40000 instances x 60 samples x 2 sides is "
        "more than one run holds (4194304)");
  // Where not even the most fits past the ordinary looks, none.
  CHECK(extension_cap(std::nullopt, 40, 60000, log) == 0);
  REQUIRE(notes.size() == 2);
  CHECK(notes[1] ==
        "no extension past 40 samples per side: 60000 instances x 60 samples x 2 sides is more than one "
        "run holds (4194304)");
  // The user's value is checked as before: refused, not lowered.
  CHECK_THROWS_WITH_AS(extension_cap(60, 20, 40000, log),
                       "ab --extend-to 60: 40000 instances x 60 samples x 2 sides is more than one run holds "
                       "(4194304); give a smaller --extend-to, or 0 for none",
                       UsageError);
  CHECK(notes.size() == 2);
}

TEST_CASE("the extension: looks after the most up to --extend-to, kept in plan.json, replayed as the runner does") {
  using Looks = std::vector<std::size_t>;
  SequentialPlan plan;
  plan.instances = 20;
  use_default_looks(plan, 20, 60);
  CHECK(plan.looks == Looks{8, 10, 12, 16, 20, 30, 45, 60});
  CHECK(plan.separation == Looks{10});
  CHECK(plan.extension.from == 20);
  CHECK(plan.extension.share == kExtensionShare);
  // None where the cap is not above the most; 0 is none.
  SequentialPlan none = plan;
  use_default_looks(none, 20, 20);
  CHECK(none.looks.back() == 20);
  CHECK(none.extension.from == 0);
  CHECK(none.to_json()["extension"].is_null());
  use_default_looks(none, 20, 0);
  CHECK(none.extension.from == 0);
  // plan.json keeps it; a plan from before it reads with none.
  const auto again = SequentialPlan::from_json(plan.to_json());
  CHECK(again.looks == plan.looks);
  CHECK(again.extension.from == 20);
  CHECK(again.extension.share == kExtensionShare);
  auto older = none.to_json();
  older.erase("extension");
  CHECK(SequentialPlan::from_json(older).extension.from == 0);
  // The futility level: kept in plan.json and given to the design; a plan from before it reads
  // with none; a negative one is a damaged plan.
  plan.futility = 0.05;
  CHECK(SequentialPlan::from_json(plan.to_json()).futility == 0.05);
  CHECK(SequentialPlan::from_json(plan.to_json()).design().futility == 0.05);
  CHECK(older.value("futility", -1.0) == 0);
  older.erase("futility");
  CHECK(SequentialPlan::from_json(older).futility == 0);
  auto negative = plan.to_json();
  negative["futility"] = -0.1;
  CHECK_THROWS_WITH_AS(SequentialPlan::from_json(negative), doctest::Contains("futility"), std::runtime_error);
  plan.futility = 0;
  // A start that is not a look before the last is a damaged plan.
  auto damaged = plan.to_json();
  damaged["extension"]["from"] = 21;
  CHECK_THROWS_WITH_AS(SequentialPlan::from_json(damaged), doctest::Contains("extension's start 21"),
                       std::runtime_error);

  // A 35% change under 25% noise over 20 instances: UNCERTAIN at 20 per side without the
  // extension, SLOWER after it, replayed as the runner and compare replay it.
  std::mt19937_64 engine(11);
  std::lognormal_distribution<double> noise(0.0, 0.25);
  SamplesByIndex a, b;
  for (std::uint32_t i = 0; i < 60; ++i) a[i] = noise(engine), b[i] = 1.35 * noise(engine);
  const auto before = replay_looks(none.design(), none.looks.size() - 1, a, b, none.threshold);
  REQUIRE(before);
  CHECK(before->n == 20);
  CHECK(before->decision.verdict == isobench::stats::Verdict::uncertain);
  const auto after = replay_looks(plan.design(), plan.looks.size() - 1, a, b, plan.threshold);
  REQUIRE(after);
  CHECK(after->n > 20);
  CHECK(after->decision.verdict == isobench::stats::Verdict::slower);
}

namespace {

// A do_bench suite's instances as the sweep makes them (sweep/expansion.cpp), without collecting
// a file: each of `calls` a timing call of `test`, in call order.
void add_timing_calls(Sweep& sweep, const std::string& test, const std::vector<std::string>& calls) {
  for (const auto& call : calls) {
    Instance in;
    in.id = test + "::" + call;
    in.kernel = test;
    in.family = "python";
    in.params = {{"call", call}};
    in.python_module = "/suite/test_ops.py";
    in.python_function = test;
    in.pytest = {{"args", json::array()}, {"timing", "do_bench"}, {"import_in_worker", false}};
    if (call.ends_with("#1")) in.pytest["control"] = true;  // a chain holds controls and the others alike
    sweep.instances.push_back(in);
  }
}

}  // namespace

TEST_CASE("call chains: the successive timing calls of each do_bench test, kept in plan.json") {
  Sweep sweep = parse_sweep("settings: {samples: 3, seed: 5}\nbenchmarks:\n  - kernel: cpu_spin\n", "chains.yaml");
  const Instance spin = sweep.instances.at(0);
  sweep.instances.clear();
  add_timing_calls(sweep, "test_a", {"a#1", "a#2", "a#3"});
  add_timing_calls(sweep, "test_b", {"b#1"});  // one call: no chain
  sweep.instances.push_back(spin);
  add_timing_calls(sweep, "test_c", {"c#1", "c#2"});
  const Plan plan = make_plan(sweep, isobench::kernels::Backend::cpu);
  CHECK(plan.call_chains == CallChains{{0, 1, 2}, {5, 6}});
  CHECK(plan.schedule.keep_call_order);
  for (const auto& run : plan.schedule.runs) {
    std::vector<std::uint32_t> order;
    for (const auto& t : run.tasks) order.push_back(t.instance);
    const auto a = std::find(order.begin(), order.end(), 0u);
    REQUIRE(order.end() - a >= 3);
    CHECK((a[1] == 1 && a[2] == 2));
    const auto c = std::find(order.begin(), order.end(), 5u);
    REQUIRE(order.end() - c >= 2);
    CHECK(c[1] == 6);
  }
  const json written = plan.to_json();
  CHECK(written["call_chains"] == json::array({json::array({0, 1, 2}), json::array({5, 6})}));
  CHECK(written["schedule"]["keep_call_order"] == true);
  const Plan read = Plan::from_json(json::parse(written.dump()));
  CHECK(read.call_chains == plan.call_chains);
  CHECK(read.to_json() == written);
  // A plan without do_bench tests writes neither key; a damaged chain is refused.
  const json plain = plan_of(kSweep).to_json();
  CHECK_FALSE(plain.contains("call_chains"));
  CHECK_FALSE(plain["schedule"].contains("keep_call_order"));
  json damaged = written;
  damaged["call_chains"][1].push_back(2);
  CHECK_THROWS_WITH(Plan::from_json(damaged), doctest::Contains("call_chains: instance 2 is out of range or in two chains"));
  damaged = written;
  damaged["call_chains"][1].push_back(7);
  CHECK_THROWS_WITH(Plan::from_json(damaged), doctest::Contains("call_chains: instance 7"));
}
