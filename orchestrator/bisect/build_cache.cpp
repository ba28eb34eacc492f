#include "orchestrator/bisect/build_cache.hpp"

#include <filesystem>
#include <fstream>

#include "orchestrator/bisect/commit_range.hpp"
#include "orchestrator/program_output.hpp"

namespace fs = std::filesystem;

namespace isobench::orchestrator {

namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string last_line(const std::string& text) {
  const auto end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  const auto begin = text.find_last_of('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1, end - (begin == std::string::npos ? 0 : begin + 1) + 1);
}

}  // namespace

std::string substitute_build_command(const std::string& command, const std::string& worktree, const std::string& out) {
  return replace_all(replace_all(command, "{worktree}", worktree), "{out}", out);
}

BuildCache::BuildCache(std::string repo, std::string folder, std::string command, std::string artifact)
    : repo_(std::move(repo)), folder_(std::move(folder)), command_(std::move(command)), artifact_(std::move(artifact)) {}

std::string BuildCache::out_dir(const std::string& commit) const { return folder_ + "/" + commit; }
std::string BuildCache::artifact(const std::string& commit) const { return out_dir(commit) + "/" + artifact_; }
std::string BuildCache::log_file(const std::string& commit) const { return folder_ + "/" + commit + ".log"; }

void BuildCache::remove_stale_worktrees() const {
  std::error_code ec;
  bool removed = false;
  for (fs::directory_iterator it(folder_, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".worktree") {
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
      removed = true;
    }
  if (removed) run_program("git", {"-C", repo_, "worktree", "prune"});
}

BuildOutcome BuildCache::build(const std::string& commit) const {
  const std::string out = out_dir(commit), worktree = out + ".worktree";
  fs::remove_all(out);
  fs::create_directories(out);
  if (fs::exists(worktree)) remove_worktree(repo_, worktree);
  add_worktree(repo_, worktree, commit);
  const std::string command = substitute_build_command(command_, worktree, out);
  // The command runs in the worktree; a newline keeps its own `;` and `&&` out of the cd's list.
  const auto r = run_shell_in_group("cd -- '" + worktree + "' || exit 125\n" + command);
  remove_worktree(repo_, worktree);
  std::ofstream(log_file(commit)) << "$ " << command << "\n" << r.out << r.err << "exit " << r.exit_code << "\n";
  if (r.exit_code != 0) {
    const std::string tail = last_line(r.err.empty() ? r.out : r.err);
    return {false, "`" + command_ + "` exited " + std::to_string(r.exit_code) + (tail.empty() ? "" : ": " + tail)};
  }
  std::error_code ec;
  if (!fs::exists(artifact(commit), ec))
    return {false, "`" + command_ + "` exited 0 but left no " + artifact_ + " in {out}"};
  return {true, ""};
}

}  // namespace isobench::orchestrator
