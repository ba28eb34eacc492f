#pragma once
// The builds of `orchestrate bisect`: each commit it visits is built once, by the user's command
// run with sh in a fresh git worktree of that commit, into its own folder of the cache
// (<bisect dir>/builds/<commit>/, the command's {out}); the worktree is removed afterwards and
// the command's output kept as builds/<commit>.log. What a step measures (a worker, a plugin, a
// Python folder) is a path relative to {out}. Whether a commit was built is the bisection's
// state (bisect_state.hpp), so that a resumed bisection builds nothing twice.

#include <string>

namespace isobench::orchestrator {

// `command` with every {worktree} and {out} replaced by the paths as they are (not quoted).
std::string substitute_build_command(const std::string& command, const std::string& worktree, const std::string& out);

struct BuildOutcome {
  bool built = false;
  std::string problem;  // not built: "`CMD` exited 2: <its last line of output>", or the artifact missing
};

class BuildCache {
 public:
  // `folder`: the cache (absolute); `artifact`: what a build must leave, relative to {out}.
  BuildCache(std::string repo, std::string folder, std::string command, std::string artifact);

  std::string out_dir(const std::string& commit) const;   // {out}
  std::string artifact(const std::string& commit) const;  // {out}/<artifact>
  std::string log_file(const std::string& commit) const;

  // Builds `commit` afresh into out_dir(commit) (what an interrupted build left there is removed
  // first). Throws std::runtime_error when git cannot make the worktree.
  BuildOutcome build(const std::string& commit) const;

  // The worktrees a bisection killed mid-build left (their folders, and git's record of them):
  // removed, so that a resumed bisection starts clean. Called by the holder of bisect.lock.
  void remove_stale_worktrees() const;

 private:
  std::string repo_, folder_, command_, artifact_;
};

}  // namespace isobench::orchestrator
