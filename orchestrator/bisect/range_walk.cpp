#include "orchestrator/bisect/range_walk.hpp"

#include <algorithm>
#include <stdexcept>

namespace isobench::orchestrator {

RangeWalk::RangeWalk(std::size_t commits, std::vector<std::string> instances)
    : commits_(commits), max_tests_(max_tests(commits)) {
  if (commits == 0) throw std::invalid_argument("a range walk needs at least one commit after GOOD");
  for (auto& id : instances) instances_.push_back({.id = std::move(id), .good = 0, .bad = commits});
}

std::size_t RangeWalk::max_tests(std::size_t commits) {
  std::size_t halvings = 0;
  while ((std::size_t{1} << halvings) < commits) ++halvings;
  return halvings + 1;
}

// The commit nearest the middle of (good, bad) that was not skipped, the later one first on a
// tie: the middle itself, then one after, one before, two after, ...
std::optional<std::size_t> RangeWalk::nearest_to_middle(std::size_t good, std::size_t bad) const {
  const std::size_t middle = good + (bad - good) / 2;
  for (std::size_t d = 0; middle + d < bad || d < middle - good; ++d) {
    if (middle + d < bad && !skipped_.count(middle + d)) return middle + d;
    if (d > 0 && d < middle - good && !skipped_.count(middle - d)) return middle - d;
  }
  return std::nullopt;
}

void RangeWalk::settle(InstanceRange& r) const {
  if (r.state != InstanceState::walking) return;
  if (r.bad - r.good == 1) {
    r.state = InstanceState::named;
  } else if (!nearest_to_middle(r.good, r.bad)) {
    r.state = InstanceState::undecided;
    r.why = Undecided::only_skipped;
  } else if (r.tests >= max_tests_) {
    r.state = InstanceState::undecided;
    r.why = Undecided::tests_spent;
  }
}

std::optional<Probe> RangeWalk::next() {
  Probe probe{.commit = commits_, .instances = {}};
  for (const auto& r : instances_)
    if (r.state == InstanceState::unchecked) probe.instances.push_back(r.id);
  if (!probe.instances.empty()) return probe;
  for (auto& r : instances_) settle(r);
  // The widest range first; on a tie the earliest.
  const InstanceRange* widest = nullptr;
  for (const auto& r : instances_)
    if (r.state == InstanceState::walking &&
        (!widest || r.bad - r.good > widest->bad - widest->good ||
         (r.bad - r.good == widest->bad - widest->good && r.good < widest->good)))
      widest = &r;
  if (!widest) return std::nullopt;
  probe.commit = *nearest_to_middle(widest->good, widest->bad);
  for (const auto& r : instances_)
    if (r.state == InstanceState::walking && r.good < probe.commit && probe.commit < r.bad)
      probe.instances.push_back(r.id);
  return probe;
}

void RangeWalk::record(std::size_t commit, const std::map<std::string, stats::Verdict>& verdicts) {
  for (auto& r : instances_) {
    const auto it = verdicts.find(r.id);
    if (it == verdicts.end()) continue;
    const bool endpoint = r.state == InstanceState::unchecked;
    if (!endpoint && (r.state != InstanceState::walking || commit <= r.good || commit >= r.bad))
      throw std::invalid_argument("commit " + std::to_string(commit) + " is outside the range of " + r.id);
    if (endpoint && commit != commits_)
      throw std::invalid_argument("the first test of " + r.id + " is the endpoint check, of BAD");
    ++r.tests;
    switch (it->second) {
      case stats::Verdict::slower:
        r.bad = commit;
        r.state = InstanceState::walking;
        break;
      case stats::Verdict::same:
      case stats::Verdict::faster:
        if (endpoint)
          r.state = InstanceState::not_regressed;
        else
          r.good = commit;
        break;
      case stats::Verdict::uncertain:
        r.state = InstanceState::undecided;
        r.why = Undecided::uncertain;
        r.at = commit;
        break;
    }
  }
}

void RangeWalk::skip(std::size_t commit) {
  if (commit == 0 || commit >= commits_)
    throw std::invalid_argument("GOOD and BAD are never skipped: they are the range's ends");
  skipped_.insert(commit);
}

}  // namespace isobench::orchestrator
