// Shards of a plan: instances dealt round-robin, and each shard's plan the run's plan restricted
// to its instances, so that the shards together hold every planned slot exactly once, in the
// run's order, with both sides of an A/B instance in one shard; a shard's plan is a valid
// plan.json.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <stdexcept>

#include "orchestrator/plan.hpp"
#include "orchestrator/run/sweep_plan.hpp"
#include "orchestrator/slurm/shard_plan.hpp"
#include "orchestrator/sweep.hpp"

using namespace isobench::orchestrator;

namespace {

Plan plan_of(const std::string& settings, bool ab = false) {
  const std::string text = "settings: {" + settings + "}\nbenchmarks:\n  - kernel: cpu_spin\n"
                           "    axes: {microseconds: [1, 2, 3, 4, 5, 6, 7]}\n  - kernel: cpu_copy\n"
                           "    axes: {bytes: [4096, 8192, 16384]}\n";
  const Sweep sweep = parse_sweep(text, "shards.yaml");
  Plan plan = make_plan(sweep, isobench::kernels::Backend::cpu);
  if (ab)
    plan.schedule = make_ab_schedule(parse_granularity(sweep.settings.per), plan.schedule.groups,
                                     static_cast<std::uint32_t>(sweep.settings.samples), sweep.settings.seed);
  return plan;
}

// Every task of the run's schedule, in order, as (side, instance, sample).
using Task = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;
std::vector<Task> tasks_of(const Plan& plan, const Shard* shard = nullptr) {
  std::vector<Task> tasks;
  for (const auto& run : plan.schedule.runs)
    for (const auto& t : run.tasks)
      tasks.emplace_back(t.side, shard ? shard->instances[t.instance] : t.instance, t.sample);
  return tasks;
}

// The shards' plans cover the run's plan: every slot once (mapped back with run_slot), each
// shard's tasks in the order the run's schedule has them, every run's side kept.
void check_cover(const Plan& plan, std::uint32_t n_shards) {
  const auto shards = deal_shards(static_cast<std::uint32_t>(plan.instances.size()), n_shards);
  REQUIRE(shards.size() == n_shards);
  std::set<std::uint32_t> slots;
  std::size_t total = 0;
  const auto all = tasks_of(plan);
  for (const auto& shard : shards) {
    CAPTURE(shard.index);
    const Plan sp = shard_plan(plan, shard);
    CHECK(sp.instances.size() == shard.instances.size());
    for (std::size_t i = 0; i < shard.instances.size(); ++i)
      CHECK(sp.instances[i].worker.id == plan.instances[shard.instances[i]].worker.id);
    // A valid plan.json, the same after the round trip.
    const Plan back = Plan::from_json(nlohmann::json::parse(sp.to_json().dump()));
    CHECK(back.to_json() == sp.to_json());
    for (const auto& run : sp.schedule.runs)
      for (const auto& t : run.tasks) {
        CHECK(t.side == run.side);
        const auto slot = run_slot(shard, static_cast<std::uint32_t>(plan.instances.size()), plan.schedule.samples, t.slot);
        CHECK(slots.insert(slot).second);
        CHECK(slot == t.side * plan.instances.size() * plan.schedule.samples +
                          shard.instances[t.instance] * plan.schedule.samples + t.sample);
        ++total;
      }
    // The run's order, restricted to the shard.
    std::vector<Task> expected;
    const std::set<std::uint32_t> mine(shard.instances.begin(), shard.instances.end());
    for (const auto& t : all)
      if (mine.count(std::get<1>(t))) expected.push_back(t);
    CHECK(tasks_of(sp, &shard) == expected);
  }
  CHECK(total == plan.schedule.total_samples());
  CHECK(slots.size() == plan.schedule.total_samples());
}

}  // namespace

TEST_CASE("instances are dealt round-robin; every shard holds one at least") {
  const auto shards = deal_shards(10, 4);
  REQUIRE(shards.size() == 4);
  CHECK(shards[0].instances == std::vector<std::uint32_t>{0, 4, 8});
  CHECK(shards[1].instances == std::vector<std::uint32_t>{1, 5, 9});
  CHECK(shards[3].instances == std::vector<std::uint32_t>{3, 7});
  CHECK(deal_shards(3, 3).back().instances == std::vector<std::uint32_t>{2});
  CHECK_THROWS_AS(deal_shards(3, 4), std::invalid_argument);
  CHECK_THROWS_AS(deal_shards(3, 0), std::invalid_argument);
}

TEST_CASE("the shards' plans hold every slot of the run's plan once, in its order") {
  for (const char* settings : {"samples: 5, seed: 2, isolation: process, per: batch",
                               "samples: 4, seed: 3, isolation: process, per: sample",
                               "samples: 3, seed: 4, isolation: interleave",
                               "samples: 3, seed: 5, isolation: sequential"}) {
    CAPTURE(settings);
    for (std::uint32_t n : {1u, 3u, 10u}) check_cover(plan_of(settings), n);
  }
}

TEST_CASE("an A/B plan's shards keep both sides of every instance, alternating as planned") {
  for (const char* settings : {"samples: 4, seed: 6, per: batch", "samples: 3, seed: 7, per: sample"}) {
    CAPTURE(settings);
    const Plan plan = plan_of(settings, true);
    check_cover(plan, 4);
    const Plan sp = shard_plan(plan, deal_shards(10, 4)[1]);
    CHECK(sp.schedule.sides == 2);
    CHECK(sp.schedule.total_samples() == 3 * sp.schedule.samples * 2);
    // Consecutive worker runs pair a baseline with a candidate, as in the run's schedule.
    REQUIRE(sp.schedule.runs.size() % 2 == 0);
    for (std::size_t r = 0; r + 1 < sp.schedule.runs.size(); r += 2)
      CHECK(sp.schedule.runs[r].side != sp.schedule.runs[r + 1].side);
  }
}

TEST_CASE("memory groups are restricted to the shard; groups left empty are dropped") {
  Plan plan = plan_of("samples: 2, seed: 1");
  plan.schedule = make_schedule(Isolation::process, ProcessGranularity::batch,
                                Groups{{0, 1, 2}, {3, 4, 5, 6}, {7, 8, 9}}, 2, 1);
  const Shard shard{0, {1, 2, 8}};
  const Plan sp = shard_plan(plan, shard);
  CHECK(sp.schedule.groups == Groups{{0, 1}, {2}});
  // One worker per round and group: two groups, two rounds.
  CHECK(sp.schedule.runs.size() == 4);
  CHECK(Plan::from_json(sp.to_json()).schedule.groups == sp.schedule.groups);
}

TEST_CASE("call chains are restricted to the shard, in its indices; a part of one instance is none") {
  Plan plan = plan_of("samples: 2, seed: 1");
  plan.call_chains = {{0, 1, 2, 3, 4}, {7, 8}};
  plan.schedule = make_schedule(Isolation::process, ProcessGranularity::batch, single_group(10), 2, 1, plan.call_chains);
  const Plan sp = shard_plan(plan, Shard{0, {0, 2, 4, 8}});
  CHECK(sp.call_chains == CallChains{{0, 1, 2}});  // 0, 2, 4 of the first; 8 alone of the second
  CHECK(sp.schedule.keep_call_order);
  CHECK(Plan::from_json(sp.to_json()).call_chains == sp.call_chains);
}
