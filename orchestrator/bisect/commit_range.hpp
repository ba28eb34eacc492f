#pragma once
// The commits `orchestrate bisect` walks, from git: GOOD and BAD resolved to commits, and BAD's
// first-parent history back to GOOD (as `git bisect --first-parent`: a regression inside a merged
// branch is found at its merge). And the worktrees it builds commits in.

#include <string>
#include <vector>

namespace isobench::orchestrator {

struct CommitRange {
  std::string repo;                  // the checkout's top-level folder
  std::vector<std::string> commits;  // full hashes: [0] GOOD, then each first-parent child, the last BAD
  std::vector<std::string> subjects;  // each commit's subject line
  std::size_t size() const { return commits.size() - 1; }  // the commits after GOOD
  std::string short_hash(std::size_t index) const { return commits[index].substr(0, 10); }
};

// Throws UsageError naming the option: `folder` not in a git checkout, GOOD or BAD not a commit,
// GOOD not on BAD's first-parent history (BAD itself included).
CommitRange resolve_commit_range(const std::string& folder, const std::string& good, const std::string& bad);

// `git worktree add --detach PATH COMMIT` and `git worktree remove --force PATH`; they throw
// std::runtime_error with git's message.
void add_worktree(const std::string& repo, const std::string& path, const std::string& commit);
void remove_worktree(const std::string& repo, const std::string& path);

}  // namespace isobench::orchestrator
