// The range walk of orchestrate bisect (orchestrator/bisect/range_walk.hpp) against oracles of
// where each instance's regression lies: no process, no git, no measurement.

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "orchestrator/bisect/error_budget.hpp"
#include "orchestrator/bisect/range_walk.hpp"

using namespace isobench::orchestrator;
using isobench::stats::Verdict;

namespace {

// Each instance's first bad commit (0: never regressed); kNoAnswer: the oracle says UNCERTAIN.
struct Oracle {
  std::map<std::string, std::size_t> first_bad;
  std::set<std::size_t> unbuildable;
  std::map<std::size_t, std::set<std::string>> uncertain_at;  // commit -> instances UNCERTAIN there
};

struct Walked {
  RangeWalk walk;
  std::vector<Probe> probes;
};

Walked walk_with(std::size_t commits, const Oracle& oracle) {
  std::vector<std::string> ids;
  for (const auto& [id, first] : oracle.first_bad) ids.push_back(id);
  Walked w{RangeWalk(commits, ids), {}};
  for (int guard = 0; guard < 1000; ++guard) {
    const auto probe = w.walk.next();
    if (!probe) return w;
    if (oracle.unbuildable.count(probe->commit)) {
      w.walk.skip(probe->commit);
      continue;
    }
    w.probes.push_back(*probe);
    std::map<std::string, Verdict> verdicts;
    for (const auto& id : probe->instances) {
      const auto first = oracle.first_bad.at(id);
      const auto u = oracle.uncertain_at.find(probe->commit);
      verdicts[id] = u != oracle.uncertain_at.end() && u->second.count(id) ? Verdict::uncertain
                     : first != 0 && probe->commit >= first               ? Verdict::slower
                                                                           : Verdict::same;
    }
    w.walk.record(probe->commit, verdicts);
  }
  FAIL("the walk did not end");
  return w;
}

const InstanceRange& range_of(const RangeWalk& walk, const std::string& id) {
  for (const auto& r : walk.instances())
    if (r.id == id) return r;
  throw std::runtime_error("no instance " + id);
}

}  // namespace

TEST_CASE("at most ceil(log2 n) + 1 tests: the endpoint check and the halvings") {
  CHECK(RangeWalk::max_tests(1) == 1);
  CHECK(RangeWalk::max_tests(2) == 2);
  CHECK(RangeWalk::max_tests(8) == 4);
  CHECK(RangeWalk::max_tests(9) == 5);
  CHECK(RangeWalk::max_tests(1000) == 11);
}

TEST_CASE("every first bad commit of every range up to 40 commits is named, within max_tests tests") {
  for (std::size_t n = 1; n <= 40; ++n)
    for (std::size_t first = 1; first <= n; ++first) {
      const auto w = walk_with(n, {.first_bad = {{"k", first}}});
      const auto& r = range_of(w.walk, "k");
      INFO("n = " << n << ", first bad = " << first);
      REQUIRE(r.state == InstanceState::named);
      CHECK(r.bad == first);
      CHECK(r.tests <= RangeWalk::max_tests(n));
      CHECK(w.probes.size() == r.tests);
      CHECK(w.probes.front().commit == n);  // the endpoint check comes first
    }
}

TEST_CASE("9 commits (GOOD and 8 after it): the slowdown at commit 5 is named in 3 steps after the endpoint check") {
  const auto w = walk_with(8, {.first_bad = {{"a", 5}, {"b", 5}}});
  REQUIRE(w.probes.size() == 4);
  CHECK(w.probes[0].commit == 8);
  CHECK(w.probes[1].commit == 4);
  CHECK(w.probes[2].commit == 6);
  CHECK(w.probes[3].commit == 5);
  for (const auto& p : w.probes) CHECK(p.instances.size() == 2);  // instances that agree are tested together
  CHECK(range_of(w.walk, "a").bad == 5);
  CHECK(range_of(w.walk, "a").good == 4);
}

TEST_CASE("no instance slower at BAD: no regression, and nothing walked") {
  const auto w = walk_with(8, {.first_bad = {{"a", 0}, {"b", 0}}});
  CHECK(w.probes.size() == 1);
  for (const auto& r : w.walk.instances()) CHECK(r.state == InstanceState::not_regressed);
}

TEST_CASE("instances that disagree: each is walked to its own first bad commit") {
  const auto w = walk_with(8, {.first_bad = {{"early", 2}, {"late", 7}, {"never", 0}}});
  CHECK(range_of(w.walk, "early").state == InstanceState::named);
  CHECK(range_of(w.walk, "early").bad == 2);
  CHECK(range_of(w.walk, "late").bad == 7);
  CHECK(range_of(w.walk, "late").state == InstanceState::named);
  CHECK(range_of(w.walk, "never").state == InstanceState::not_regressed);
  for (const auto& r : w.walk.instances()) CHECK(r.tests <= RangeWalk::max_tests(8));
  // After the split at commit 4 no probe holds both.
  for (std::size_t i = 2; i < w.probes.size(); ++i) CHECK(w.probes[i].instances.size() == 1);
}

TEST_CASE("a commit that does not build is skipped and the nearest one to the middle tested") {
  const auto w = walk_with(8, {.first_bad = {{"k", 6}}, .unbuildable = {4}});
  REQUIRE(w.walk.skipped() == std::set<std::size_t>{4});
  CHECK(w.probes[1].commit == 5);  // after the middle, one later
  CHECK(range_of(w.walk, "k").state == InstanceState::named);
  CHECK(range_of(w.walk, "k").bad == 6);
  for (const auto& p : w.probes) CHECK(p.commit != 4);
}

TEST_CASE("only skipped commits left: undecided, with the range") {
  const auto w = walk_with(8, {.first_bad = {{"k", 4}}, .unbuildable = {4}});
  const auto& r = range_of(w.walk, "k");
  CHECK(r.state == InstanceState::undecided);
  CHECK(r.why == Undecided::only_skipped);
  CHECK(r.good == 3);
  CHECK(r.bad == 5);
}

TEST_CASE("UNCERTAIN at a step leaves that instance undecided with its range; the others carry on") {
  const auto w = walk_with(8, {.first_bad = {{"a", 5}, {"b", 5}}, .uncertain_at = {{4, {"a"}}}});
  const auto& a = range_of(w.walk, "a");
  CHECK(a.state == InstanceState::undecided);
  CHECK(a.why == Undecided::uncertain);
  CHECK(a.at == 4);
  CHECK(a.good == 0);
  CHECK(a.bad == 8);
  CHECK(range_of(w.walk, "b").state == InstanceState::named);
  CHECK(range_of(w.walk, "b").bad == 5);
}

TEST_CASE("UNCERTAIN at the endpoint check: undecided whether it regressed at all") {
  const auto w = walk_with(8, {.first_bad = {{"a", 5}}, .uncertain_at = {{8, {"a"}}}});
  CHECK(w.probes.size() == 1);
  CHECK(range_of(w.walk, "a").state == InstanceState::undecided);
  CHECK(range_of(w.walk, "a").at == 8);
}

TEST_CASE("skips that keep a range from halving end in undecided once max_tests are spent, never in more tests") {
  for (std::size_t n = 2; n <= 24; ++n)
    for (std::size_t first = 1; first <= n; ++first)
      for (std::size_t bad_build = 1; bad_build < n; ++bad_build) {
        std::set<std::size_t> unbuildable = {bad_build, n / 2, n / 2 + 1};
        unbuildable.erase(n);  // BAD builds
        const auto w = walk_with(n, {.first_bad = {{"k", first}}, .unbuildable = unbuildable});
        const auto& r = range_of(w.walk, "k");
        INFO("n = " << n << ", first bad = " << first << ", unbuildable " << bad_build);
        CHECK(r.tests <= RangeWalk::max_tests(n));
        if (r.state == InstanceState::named) CHECK(r.bad == first);
        else CHECK((r.state == InstanceState::undecided && r.good < first && first <= r.bad));
      }
}

TEST_CASE("replaying the same tests and skips gives the same walk") {
  const Oracle oracle{.first_bad = {{"a", 3}, {"b", 6}}, .unbuildable = {5}};
  const auto live = walk_with(9, oracle);
  RangeWalk replayed(9, {"a", "b"});
  for (const auto c : oracle.unbuildable) replayed.skip(c);
  for (const auto& p : live.probes) {
    std::map<std::string, Verdict> v;
    for (const auto& id : p.instances) v[id] = p.commit >= oracle.first_bad.at(id) ? Verdict::slower : Verdict::same;
    replayed.record(p.commit, v);
  }
  CHECK_FALSE(replayed.next());
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(replayed.instances()[i].state == live.walk.instances()[i].state);
    CHECK(replayed.instances()[i].bad == live.walk.instances()[i].bad);
    CHECK(replayed.instances()[i].tests == live.walk.instances()[i].tests);
  }
}

TEST_CASE("a verdict outside an instance's range is a programming error") {
  RangeWalk walk(8, {"k"});
  CHECK_THROWS_AS(walk.record(4, {{"k", Verdict::slower}}), std::invalid_argument);  // before the endpoint check
  walk.record(8, {{"k", Verdict::slower}});
  walk.record(4, {{"k", Verdict::same}});
  CHECK_THROWS_AS(walk.record(2, {{"k", Verdict::slower}}), std::invalid_argument);
  CHECK_THROWS_AS(walk.skip(8), std::invalid_argument);
}

TEST_CASE("the error budget: alpha and the interval's miss split evenly over K tests of M instances") {
  const ErrorBudget budget{.alpha = 0.01, .confidence = 0.95, .tests = 4, .instances = 2};
  CHECK(budget.step_alpha(2) == doctest::Approx(0.01 * 2 / 8));  // a run of 2 spends alpha / 8 on each
  CHECK(budget.step_alpha(1) == doctest::Approx(0.01 / 8));
  CHECK(budget.step_confidence() == doctest::Approx(1 - 0.05 / 8));
  // Summed over the K M (instance, test) pairs the per-pair levels give back the walk's.
  CHECK(budget.step_alpha(1) * 8 == doctest::Approx(budget.alpha));
  CHECK((1 - budget.step_confidence()) * 8 == doctest::Approx(1 - budget.confidence));
}
