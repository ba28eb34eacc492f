#pragma once
// The range walk of `orchestrate bisect`, without a process in it: the commits of BAD's
// first-parent history from GOOD (index 0) to BAD (index n), and per instance the range in which
// its first bad commit lies, narrowed by each test of a commit against GOOD. The first test is
// the endpoint check (BAD against GOOD on every instance): the instances SLOWER there are walked,
// the others are not regressed (SAME, FASTER) or undecided (UNCERTAIN). Instances that agree
// share a range and are tested together; a verdict that splits them gives each part its own
// range, so that a regression of one instance at one commit and of another at a later one are
// both named. A commit that does not build is skipped (as git bisect skip), and the commit
// nearest the middle that builds is tested instead.
//
// The walk is a function of its steps: replaying the recorded tests and skips gives the same
// walk, so a bisection's state file (bisect_state.hpp) keeps the steps, not the walk.

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "stats/verdict.hpp"

namespace isobench::orchestrator {

enum class InstanceState {
  unchecked,      // before the endpoint check
  walking,        // SLOWER at BAD: its first bad commit lies in (good, bad]
  named,          // its first bad commit is `bad`
  not_regressed,  // SAME or FASTER at BAD
  undecided,      // a test was UNCERTAIN, or the range cannot narrow further: `why` says which
};

enum class Undecided {
  uncertain,     // the test of commit `at` stayed UNCERTAIN up to the most samples
  only_skipped,  // every commit left between good and bad was skipped: any of them, or bad, is first
  tests_spent,   // max_tests() tests made and the range still holds more than one commit
};

struct InstanceRange {
  std::string id;
  std::size_t good = 0;  // the last commit known not slower than GOOD
  std::size_t bad = 0;   // the first commit known SLOWER than GOOD
  std::size_t tests = 0;  // the tests of commits this instance took part in, the endpoint check included
  InstanceState state = InstanceState::unchecked;
  Undecided why = Undecided::uncertain;  // undecided: why
  std::size_t at = 0;                   // Undecided::uncertain: the commit whose test stayed UNCERTAIN
};

// A commit to test against GOOD, and the instances whose range it halves.
struct Probe {
  std::size_t commit = 0;
  std::vector<std::string> instances;
};

class RangeWalk {
 public:
  // `commits`: n >= 1, the commits after GOOD up to BAD; `instances`: the ids the endpoint check
  // measures.
  RangeWalk(std::size_t commits, std::vector<std::string> instances);

  // The most tests any one instance takes part in when no commit is skipped: the endpoint check
  // and ceil(log2 n) halvings. The walk makes no more (error_budget.hpp splits the error rate
  // over them); an instance that would need more, because skipped commits kept its range from
  // halving, is left undecided.
  static std::size_t max_tests(std::size_t commits);

  // The next test: the endpoint check first, then the middle of the widest range (the nearest
  // commit to it that was not skipped). nullopt when every instance is named, not regressed or
  // undecided. Ranges that cannot narrow further are settled on the way.
  std::optional<Probe> next();
  // A test's verdicts, by instance (commit against GOOD): SLOWER is bad, SAME and FASTER are good,
  // UNCERTAIN leaves the instance undecided with the range it had.
  void record(std::size_t commit, const std::map<std::string, stats::Verdict>& verdicts);
  // `commit` did not build: never tested.
  void skip(std::size_t commit);

  std::size_t commits() const { return commits_; }
  const std::vector<InstanceRange>& instances() const { return instances_; }
  const std::set<std::size_t>& skipped() const { return skipped_; }

 private:
  void settle(InstanceRange& r) const;
  std::optional<std::size_t> nearest_to_middle(std::size_t good, std::size_t bad) const;

  std::size_t commits_;
  std::size_t max_tests_;
  std::vector<InstanceRange> instances_;
  std::set<std::size_t> skipped_;
};

}  // namespace isobench::orchestrator
