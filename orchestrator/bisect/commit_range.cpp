#include "orchestrator/bisect/commit_range.hpp"

#include <sstream>
#include <stdexcept>

#include "orchestrator/errors.hpp"
#include "orchestrator/program_output.hpp"

namespace isobench::orchestrator {

namespace {

ProgramOutput git(const std::string& folder, std::vector<std::string> args) {
  args.insert(args.begin(), {"-C", folder});
  try {
    return run_program("git", args, "bisect walks a git checkout");
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string("bisect: ") + e.what());
  }
}

std::string resolve(const std::string& repo, const std::string& rev, const std::string& flag) {
  const auto r = git(repo, {"rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"});
  if (r.exit_code != 0) throw UsageError("bisect: " + flag + " " + rev + ": no such commit in " + repo);
  return first_line(r.out);
}

}  // namespace

CommitRange resolve_commit_range(const std::string& folder, const std::string& good, const std::string& bad) {
  CommitRange range;
  const auto top = git(folder, {"rev-parse", "--show-toplevel"});
  if (top.exit_code != 0) throw UsageError("bisect: " + folder + " is not in a git checkout");
  range.repo = first_line(top.out);
  const std::string good_hash = resolve(range.repo, good, "--good");
  const std::string bad_hash = resolve(range.repo, bad, "--bad");
  if (good_hash == bad_hash) throw UsageError("bisect: --good " + good + " and --bad " + bad + " are one commit");
  if (git(range.repo, {"merge-base", "--is-ancestor", good_hash, bad_hash}).exit_code != 0)
    throw UsageError("bisect: --good " + good + " is not an ancestor of --bad " + bad);
  const auto log = git(range.repo, {"log", "--first-parent", "--reverse", "--format=%H %P%x09%s",
                                    good_hash + ".." + bad_hash});
  if (log.exit_code != 0) throw UsageError("bisect: git log " + good + ".." + bad + ": " + first_line(log.err));
  range.commits.push_back(good_hash);
  range.subjects.push_back("");
  std::istringstream lines(log.out);
  for (std::string line; std::getline(lines, line);) {
    const auto space = line.find(' '), tab = line.find('\t');
    const std::string hash = line.substr(0, space);
    const std::string first_parent = line.substr(space + 1, std::min(line.find(' ', space + 1), tab) - space - 1);
    if (first_parent != range.commits.back())
      throw UsageError("bisect: --good " + good + " is not on the first-parent history of --bad " + bad +
                       " (bisect walks first parents, as git bisect --first-parent)");
    range.commits.push_back(hash);
    range.subjects.push_back(line.substr(tab + 1));
  }
  const auto subject = git(range.repo, {"log", "-1", "--format=%s", good_hash});
  range.subjects[0] = first_line(subject.out);
  return range;
}

void add_worktree(const std::string& repo, const std::string& path, const std::string& commit) {
  const auto r = run_program("git", {"-C", repo, "worktree", "add", "--detach", "--force", path, commit});
  if (r.exit_code != 0) throw std::runtime_error("git worktree add " + path + ": " + first_line(r.err));
}

void remove_worktree(const std::string& repo, const std::string& path) {
  const auto r = run_program("git", {"-C", repo, "worktree", "remove", "--force", path});
  if (r.exit_code != 0) throw std::runtime_error("git worktree remove " + path + ": " + first_line(r.err));
}

}  // namespace isobench::orchestrator
