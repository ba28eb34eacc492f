// plan.json: a plan survives the trip through its JSON text (what --resume reads), every
// instance field included; fields newer than a plan file take their defaults; the instance fields
// are the instance table's own (one writer and reader in ipc/instance_table.cpp).
#include <doctest/doctest.h>

#include <set>

#include "ipc/instance_table.hpp"
#include "orchestrator/plan.hpp"
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
  CHECK(plan.instances[0].worker.idle_gap_ms == 12.5);
  CHECK(plan.instances[0].worker.realloc);
  CHECK(plan.instances[0].worker.rotate_buffers == 2);
  CHECK(plan.instances[1].worker.idle_gap_ms == 0);
  CHECK_FALSE(plan.instances[1].worker.realloc);

  const json written = plan.to_json();
  const Plan read = Plan::from_json(json::parse(written.dump()));
  CHECK(read.to_json() == written);
  CHECK(read.instances[0].worker.idle_gap_ms == 12.5);
  CHECK(read.instances[0].worker.realloc);
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
    CHECK(p.worker.idle_gap_ms == 0);
    CHECK_FALSE(p.worker.realloc);
  }
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
