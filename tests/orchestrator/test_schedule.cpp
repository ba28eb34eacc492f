#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "orchestrator/schedule.hpp"

using namespace isobench::orchestrator;

namespace {

std::vector<std::uint32_t> order_of_round(const Schedule& s, std::uint32_t round) {
  std::vector<std::uint32_t> out;
  for (const auto& r : s.runs)
    for (const auto& t : r.tasks)
      if (t.round == round) out.push_back(t.instance);
  return out;
}

void check_every_slot_once(const Schedule& s) {
  std::set<std::uint32_t> slots;
  for (const auto& r : s.runs)
    for (const auto& t : r.tasks) {
      CHECK(t.slot == t.instance * s.samples + t.sample);
      CHECK(slots.insert(t.slot).second);
    }
  CHECK(slots.size() == std::size_t{s.n_instances} * s.samples);
}

}  // namespace

TEST_CASE("sequential: one worker, all samples of an instance back to back") {
  const auto s = make_schedule(Isolation::sequential, ProcessGranularity::batch, single_group(3), 4, 7);
  REQUIRE(s.runs.size() == 1);
  REQUIRE(s.runs[0].tasks.size() == 12);
  for (std::size_t i = 0; i < 12; ++i) CHECK(s.runs[0].tasks[i].instance == i / 4);
  check_every_slot_once(s);
}

TEST_CASE("interleave: one worker, every round holds each instance once, orders differ") {
  const auto s = make_schedule(Isolation::interleave, ProcessGranularity::batch, single_group(6), 10, 7);
  REQUIRE(s.runs.size() == 1);
  std::set<std::vector<std::uint32_t>> orders;
  for (std::uint32_t r = 0; r < 10; ++r) {
    auto order = order_of_round(s, r);
    std::set<std::uint32_t> distinct(order.begin(), order.end());
    CHECK(order.size() == 6);
    CHECK(distinct.size() == 6);
    orders.insert(order);
  }
  CHECK(orders.size() > 5);  // 10 shuffles of 6: repeats are possible but rare
  check_every_slot_once(s);
}

TEST_CASE("process per batch: one worker per round; per sample: one worker per sample") {
  const auto batch = make_schedule(Isolation::process, ProcessGranularity::batch, single_group(4), 5, 3);
  CHECK(batch.runs.size() == 5);
  for (const auto& r : batch.runs) CHECK(r.tasks.size() == 4);
  check_every_slot_once(batch);

  const auto single = make_schedule(Isolation::process, ProcessGranularity::sample, single_group(4), 5, 3);
  CHECK(single.runs.size() == 20);
  for (const auto& r : single.runs) CHECK(r.tasks.size() == 1);
  check_every_slot_once(single);
  // Same rounds, same order: per-sample is per-batch cut into single tasks.
  std::size_t k = 0;
  for (const auto& r : batch.runs)
    for (const auto& t : r.tasks) CHECK(single.runs[k++].tasks[0].slot == t.slot);
}

TEST_CASE("the same seed gives the same schedule; another seed another") {
  auto flat = [](const Schedule& s) {
    std::vector<std::uint32_t> v;
    for (const auto& r : s.runs)
      for (const auto& t : r.tasks) v.push_back(t.slot);
    return v;
  };
  const auto a = make_schedule(Isolation::interleave, ProcessGranularity::batch, single_group(9), 12, 11);
  const auto b = make_schedule(Isolation::interleave, ProcessGranularity::batch, single_group(9), 12, 11);
  const auto c = make_schedule(Isolation::interleave, ProcessGranularity::batch, single_group(9), 12, 12);
  CHECK(flat(a) == flat(b));
  CHECK(flat(a) != flat(c));
}

// Pinned: every plan made with an existing seed depends on these orders, on every machine and in
// every later build. The literals come from tools/schedule_reference.py, which derives them from
// the published definitions of MT19937-64 and Fisher-Yates, not from this code.
TEST_CASE("the shuffle is the portable Fisher-Yates over std::mt19937_64: literal outputs for fixed seeds") {
  std::mt19937_64 standard;  // [rand.predef]: the 10000th output of the default-seeded engine
  standard.discard(9999);
  CHECK(standard() == 9981545732273789042ull);
  std::mt19937_64 rng(1);
  std::vector<int> v{0, 1, 2, 3, 4, 5, 6, 7};
  portable_shuffle(v, rng);
  CHECK(v == std::vector<int>{4, 6, 3, 5, 1, 7, 2, 0});
}

TEST_CASE("schedules for fixed seeds are pinned: interleave rounds and both A/B granularities") {
  const auto interleave = make_schedule(Isolation::interleave, ProcessGranularity::batch, single_group(4), 3, 7);
  CHECK(order_of_round(interleave, 0) == std::vector<std::uint32_t>{1, 2, 0, 3});
  CHECK(order_of_round(interleave, 1) == std::vector<std::uint32_t>{3, 0, 1, 2});
  CHECK(order_of_round(interleave, 2) == std::vector<std::uint32_t>{0, 2, 3, 1});

  using SideAndOrder = std::pair<std::uint32_t, std::vector<std::uint32_t>>;
  std::vector<SideAndOrder> batch;
  for (const auto& run : make_ab_schedule(ProcessGranularity::batch, single_group(3), 2, 21).runs) {
    batch.push_back({run.side, {}});
    for (const auto& t : run.tasks) batch.back().second.push_back(t.instance);
  }
  CHECK(batch == std::vector<SideAndOrder>{{0, {1, 2, 0}}, {1, {0, 1, 2}}, {0, {0, 2, 1}}, {1, {0, 2, 1}}});

  using SideAndInstance = std::pair<std::uint32_t, std::uint32_t>;
  std::vector<SideAndInstance> sample;
  for (const auto& run : make_ab_schedule(ProcessGranularity::sample, single_group(2), 2, 21).runs)
    sample.push_back({run.side, run.tasks.at(0).instance});
  CHECK(sample ==
        std::vector<SideAndInstance>{{0, 1}, {1, 1}, {0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}, {1, 0}});
}

TEST_CASE("isolation and granularity names parse, and bad ones are refused") {
  CHECK(parse_isolation("interleave") == Isolation::interleave);
  CHECK(parse_granularity("sample") == ProcessGranularity::sample);
  CHECK_THROWS_AS(parse_isolation("parallel"), std::invalid_argument);
  CHECK_THROWS_AS(parse_granularity("round"), std::invalid_argument);
}

TEST_CASE("A/B: every pair of workers holds one baseline and one candidate, order drawn from the seed") {
  for (auto per : {ProcessGranularity::batch, ProcessGranularity::sample}) {
    const auto s = make_ab_schedule(per, single_group(5), 8, 21);
    CHECK(s.sides == 2);
    REQUIRE(s.runs.size() % 2 == 0);
    std::size_t baseline_first = 0;
    for (std::size_t k = 0; k < s.runs.size(); k += 2) {
      CHECK(s.runs[k].side != s.runs[k + 1].side);
      baseline_first += s.runs[k].side == 0;
      for (const auto* run : {&s.runs[k], &s.runs[k + 1]})
        for (const auto& t : run->tasks) CHECK(t.side == run->side);
    }
    const std::size_t pairs = s.runs.size() / 2;
    CHECK(baseline_first > 0);       // both orders occur
    CHECK(baseline_first < pairs);
    std::set<std::uint32_t> slots;
    for (const auto& r : s.runs)
      for (const auto& t : r.tasks) CHECK(slots.insert(t.slot).second);
    CHECK(slots.size() == 2u * 5 * 8);
    const auto again = make_ab_schedule(per, single_group(5), 8, 21);
    for (std::size_t k = 0; k < s.runs.size(); ++k) CHECK(again.runs[k].side == s.runs[k].side);
  }
}

TEST_CASE("memory groups: consecutive instances packed under the budget; one too big is refused") {
  const auto groups = memory_groups({40, 30, 50, 10, 90, 5}, 100);
  REQUIRE(groups.size() == 3);
  CHECK(groups[0] == std::vector<std::uint32_t>{0, 1});
  CHECK(groups[1] == std::vector<std::uint32_t>{2, 3});
  CHECK(groups[2] == std::vector<std::uint32_t>{4, 5});
  CHECK(memory_groups({10, 10}, 100).size() == 1);
  CHECK_THROWS_WITH_AS(memory_groups({10, 101}, 100), doctest::Contains("instance 1"), std::invalid_argument);
}

TEST_CASE("grouped schedules: groups run one after another and never share a worker or a round") {
  const Groups groups = {{0, 1, 2}, {3, 4}};
  for (auto isolation : {Isolation::sequential, Isolation::interleave, Isolation::process}) {
    const auto s = make_schedule(isolation, ProcessGranularity::batch, groups, 4, 9);
    CHECK(s.groups == groups);
    check_every_slot_once(s);
    auto group_of = [](std::uint32_t i) { return i < 3 ? 0 : 1; };
    int last_group = 0;
    for (const auto& run : s.runs) {
      const int g = group_of(run.tasks.front().instance);
      CHECK(g >= last_group);  // group 0 finishes before group 1 starts
      last_group = g;
      std::map<std::uint32_t, std::set<std::uint32_t>> per_round;
      for (const auto& t : run.tasks) {
        CHECK(group_of(t.instance) == g);
        per_round[t.round].insert(t.instance);
      }
      if (isolation != Isolation::sequential)
        for (const auto& [round, instances] : per_round) CHECK(instances.size() == groups[g].size());
    }
  }
  const auto ab = make_ab_schedule(ProcessGranularity::batch, groups, 3, 9);
  CHECK(ab.runs.size() == 2u * 3 * 2);  // per group: a pair of workers per round
  std::set<std::uint32_t> slots;
  for (const auto& r : ab.runs)
    for (const auto& t : r.tasks) CHECK(slots.insert(t.slot).second);
  CHECK(slots.size() == 2u * 5 * 3);
}

namespace {

// The instances of `chain` as a run's tasks hold them: their positions, and whether they follow
// one another in call order (each one task after the one before it).
bool together_in_call_order(const std::vector<std::uint32_t>& order, const std::vector<std::uint32_t>& chain) {
  const auto first = std::find(order.begin(), order.end(), chain.front());
  if (first == order.end() || static_cast<std::size_t>(order.end() - first) < chain.size()) return false;
  return std::equal(chain.begin(), chain.end(), first);
}

std::vector<std::uint32_t> instances_of(const WorkerRun& run, std::uint32_t round) {
  std::vector<std::uint32_t> out;
  for (const auto& t : run.tasks)
    if (t.round == round) out.push_back(t.instance);
  return out;
}

}  // namespace

// A do_bench test's timing calls (the plan's call_chains): every worker takes a chain's instances
// one after another in call order, so it runs the test forward once; the chains and the other
// instances are still shuffled around each other, every round, on each side.
TEST_CASE("call chains: a chain's instances stay together and in call order in every worker") {
  const CallChains chains = {{1, 2, 3, 4}, {6, 7}};
  const auto check_rounds = [&](const Schedule& s, std::uint32_t samples) {
    CHECK(s.keep_call_order);
    std::set<std::vector<std::uint32_t>> orders;
    for (const auto& run : s.runs)
      for (std::uint32_t r = 0; r < samples; ++r) {
        const auto order = instances_of(run, r);
        if (order.empty()) continue;
        REQUIRE(order.size() == 9);
        for (const auto& chain : chains) CHECK(together_in_call_order(order, chain));
        orders.insert(order);
      }
    CHECK(orders.size() > 3);  // 5 units shuffled: the chains move among the others
  };
  check_rounds(make_schedule(Isolation::interleave, ProcessGranularity::batch, single_group(9), 12, 5, chains), 12);
  check_rounds(make_schedule(Isolation::process, ProcessGranularity::batch, single_group(9), 12, 5, chains), 12);
  const auto ab = make_ab_schedule(ProcessGranularity::batch, single_group(9), 12, 5, chains);
  check_rounds(ab, 12);
  for (std::size_t k = 0; k < ab.runs.size(); k += 2) CHECK(ab.runs[k].side != ab.runs[k + 1].side);
  std::set<std::uint32_t> slots;
  for (const auto& run : ab.runs)
    for (const auto& t : run.tasks) CHECK(slots.insert(t.slot).second);
  CHECK(slots.size() == 2u * 9 * 12);

  const auto sequential = make_schedule(Isolation::sequential, ProcessGranularity::batch, single_group(9), 2, 5, chains);
  std::vector<std::uint32_t> order;
  for (const auto& t : sequential.runs.at(0).tasks)
    if (t.round == 0) order.push_back(t.instance);
  CHECK(order == std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8});

  // A chain split by memory groups keeps its order within each; no chain of two: nothing kept.
  const auto grouped = make_ab_schedule(ProcessGranularity::batch, {{0, 1, 2}, {3, 4}}, 4, 5, {{1, 2, 3, 4}});
  for (const auto& run : grouped.runs) {
    const auto in_run = instances_of(run, run.tasks.front().round);
    CHECK(together_in_call_order(in_run, in_run.front() < 3 ? std::vector<std::uint32_t>{1, 2}
                                                            : std::vector<std::uint32_t>{3, 4}));
  }
  const auto plain = make_ab_schedule(ProcessGranularity::batch, single_group(3), 2, 21, {{0}, {2}});
  CHECK_FALSE(plain.keep_call_order);
  const auto without = make_ab_schedule(ProcessGranularity::batch, single_group(3), 2, 21);
  for (std::size_t k = 0; k < without.runs.size(); ++k)
    for (std::size_t t = 0; t < without.runs[k].tasks.size(); ++t)
      CHECK(plain.runs[k].tasks[t].instance == without.runs[k].tasks[t].instance);
}
