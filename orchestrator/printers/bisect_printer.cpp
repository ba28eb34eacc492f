// `orchestrate bisect`'s answer as text (Printer's own rendering): the steps with their verdicts and
// run directories, the commits skipped and why, each instance's answer (instances that agree on
// one line), and the outcome line with the exit code.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "orchestrator/printers/printers.hpp"

namespace isobench::orchestrator {

namespace {

std::string position(const CommitRange& range, std::size_t commit) {
  if (commit == 0) return "GOOD";
  if (commit == range.size()) return "BAD";
  return std::to_string(commit) + " of " + std::to_string(range.size());
}

std::string commit_line(const CommitRange& range, std::size_t commit) {
  return range.short_hash(commit) + " (" + position(range, commit) + ") \"" + range.subjects[commit] + "\"";
}

std::string pad(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

// An instance's answer, in words (without its id).
std::string answer(const BisectOutcome& outcome, const InstanceRange& r) {
  const CommitRange& range = outcome.state.range;
  const std::string within = "the first bad commit is after " + range.short_hash(r.good) + " (" +
                             position(range, r.good) + ") up to " + range.short_hash(r.bad) + " (" +
                             position(range, r.bad) + ")";
  switch (r.state) {
    case InstanceState::named: return "first bad commit " + commit_line(range, r.bad);
    case InstanceState::not_regressed: return "not slower at BAD than at GOOD (no regression)";
    case InstanceState::unchecked: return "not checked";
    case InstanceState::walking: return "walk unfinished: " + within;
    case InstanceState::undecided: break;
  }
  switch (r.why) {
    case Undecided::uncertain:
      if (r.at == range.size() && r.tests == 1) return "could not decide whether BAD is slower than GOOD (UNCERTAIN)";
      return "could not decide: UNCERTAIN at " + range.short_hash(r.at) + " (" + position(range, r.at) +
             ") up to the most samples; " + within;
    case Undecided::only_skipped: {
      std::string any;
      for (std::size_t c = r.good + 1; c < r.bad; ++c) any += range.short_hash(c) + " (did not build), ";
      return "could not decide: only skipped commits are left; the first bad commit is any of " + any +
             range.short_hash(r.bad) + " (" + position(range, r.bad) + ")";
    }
    case Undecided::tests_spent:
      return "could not decide within " + std::to_string(outcome.state.budget.tests) +
             " tests (skipped commits kept the range from halving); " + within;
  }
  return "";
}

}  // namespace

void Printer::bisection(std::ostream& out, const BisectOutcome& outcome) const {
  const BisectState& s = outcome.state;
  out << pad("step", 6) << pad("commit", 22) << pad("instances", 11) << pad("verdicts", 24) << "run directory\n";
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    const BisectStep& step = s.steps[i];
    std::map<std::string, std::size_t> counts;
    for (const auto& [id, v] : step.verdicts) ++counts[std::string(stats::to_string(v))];
    std::string verdicts;
    for (const auto& [v, k] : counts) verdicts += (verdicts.empty() ? "" : ", ") + std::to_string(k) + " " + v;
    out << pad(std::to_string(i), 6) << pad(s.range.short_hash(step.commit) + " " + position(s.range, step.commit), 22)
        << pad(std::to_string(step.instances.size()), 11) << pad(step.done ? verdicts : "(unfinished)", 24)
        << outcome.dir << "/" << step.run_dir << "\n";
  }
  for (const std::size_t c : outcome.walk.skipped())
    out << "skipped " << commit_line(s.range, c) << ": " << s.builds.at(s.range.commits[c]).problem << "\n";
  // Instances with one answer share a line.
  std::map<std::string, std::vector<std::string>> by_answer;
  std::vector<std::string> order;
  std::size_t named = 0, not_regressed = 0, undecided = 0;
  for (const auto& r : outcome.walk.instances()) {
    const std::string a = answer(outcome, r);
    if (!by_answer.count(a)) order.push_back(a);
    by_answer[a].push_back(r.id);
    named += r.state == InstanceState::named;
    not_regressed += r.state == InstanceState::not_regressed;
    undecided += r.state != InstanceState::named && r.state != InstanceState::not_regressed;
  }
  out << "\n";
  for (const auto& a : order) {
    std::string ids;
    for (const auto& id : by_answer[a]) ids += (ids.empty() ? "" : ", ") + id;
    out << a << ": " << ids << "\n";
  }
  std::set<std::size_t> first_bad;
  for (const auto& r : outcome.walk.instances())
    if (r.state == InstanceState::named) first_bad.insert(r.bad);
  const std::string of_all = " of " + std::to_string(s.instances.size()) + " instances";
  std::vector<std::string> parts;
  if (first_bad.size() == 1)
    parts.push_back("first bad commit " + s.range.short_hash(*first_bad.begin()) + " for " + std::to_string(named) +
                    of_all);
  else if (named > 0)
    parts.push_back("first bad commits (" + std::to_string(first_bad.size()) + ") for " + std::to_string(named) +
                    of_all);
  if (undecided > 0) parts.push_back("could not decide for " + std::to_string(undecided) + of_all);
  if (not_regressed > 0 && !parts.empty()) parts.push_back(std::to_string(not_regressed) + " not regressed");
  std::string summary = parts.empty() ? "no regression between GOOD and BAD" : "";
  for (const auto& part : parts) summary += (summary.empty() ? "" : ", ") + part;
  out << "\noutcome: " << summary << " (" << s.steps.size() << " steps; over the walk alpha " << s.budget.alpha
      << ", confidence " << s.budget.confidence << ") -> exit " << outcome.exit_code() << "\n";
}

}  // namespace isobench::orchestrator
