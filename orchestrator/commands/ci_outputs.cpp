#include "orchestrator/commands/ci_outputs.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "orchestrator/errors.hpp"
#include "orchestrator/printers/ci_printers.hpp"

namespace isobench::orchestrator {

namespace {

namespace fs = std::filesystem;

struct Output {
  const char* flag;
  const std::string& path;
  std::function<void(std::ostream&, const CiReport&)> print;
};

std::vector<Output> outputs_of(const CiOutputs& outputs) {
  return {{"--junit", outputs.junit, print_junit}, {"--summary", outputs.summary, print_ci_summary}};
}

// The path as the file system names it: symbolic links and .. resolved, so that two spellings of
// one file are seen as one.
fs::path resolved_path(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path).lexically_normal() : p;
}

// Where an output's bytes go: a symbolic link's target, followed to the end of a chain (a relative
// target read from the link's folder), so that the rename that writes the file whole replaces the
// target and leaves the link the user made (a CI that links its report path into a workspace). A
// chain that does not end (a loop) is given back as its last link, which check_output_path refuses.
fs::path written_path(const std::string& path) {
  fs::path p(path);
  std::error_code ec;
  for (int hops = 0; hops < 40 && fs::is_symlink(p, ec); ++hops) {
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return p;
}

bool inside(const fs::path& path, const fs::path& folder) {
  const auto rel = path.lexically_relative(folder);
  return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

// UsageError when `path` is one of `guarded` or inside one of its directories.
void check_not_guarded(const std::string& named, const fs::path& resolved, const std::vector<GuardedPath>& guarded) {
  for (const auto& g : guarded) {
    if (g.path.empty()) continue;
    const fs::path other = resolved_path(g.path);
    if (resolved == other)
      throw UsageError(named + ": is " + g.what + " " + g.path + ", which it would overwrite; give another path");
    if (g.directory && inside(resolved, other))
      throw UsageError(named + ": inside " + g.what + " " + g.path +
                       ", whose files it could overwrite; give a path outside it");
  }
}

}  // namespace

void add_ci_output_options(CLI::App& app, CiOutputs& outputs) {
  app.add_option("--junit", outputs.junit,
                 "also write the verdicts as JUnit XML for a CI's test view: one test case per instance, a failure "
                 "for each verdict the exit code fails on (ratio, interval and p in its message), UNCERTAIN as "
                 "skipped (docs/ci.md)")
      ->type_name("FILE");
  app.add_option("--summary", outputs.summary,
                 "also write a Markdown summary for a CI job's step summary or a pull-request comment: the outcome, "
                 "SLOWER and FASTER instances first, the others folded (docs/ci.md)")
      ->type_name("FILE");
}

void check_output_dir(const std::string& flag, const std::string& dir, const std::vector<GuardedPath>& guarded) {
  if (!dir.empty()) check_not_guarded(flag + " " + dir, resolved_path(dir), guarded);
}

void check_output_path(const std::string& flag, const std::string& path, const std::vector<GuardedPath>& guarded) {
  const std::string named = flag + " " + path;
  std::error_code ec;
  const fs::path file = written_path(path);
  if (fs::is_symlink(file, ec)) throw UsageError(named + ": a loop of symbolic links");
  check_not_guarded(named, resolved_path(file.string()), guarded);
  if (fs::is_directory(file, ec)) throw UsageError(named + ": is a folder");
  const fs::path folder = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  if (!fs::is_directory(folder, ec)) throw UsageError(named + ": no folder " + folder.string());
  // Whether the folder takes a file is found now, by making one, not after the run has measured.
  const std::string probe = (folder / (".isobench-probe-" + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) throw UsageError(named + ": cannot write in folder " + folder.string() + ": " + std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

void check_ci_outputs(const CiOutputs& outputs, const std::vector<GuardedPath>& guarded) {
  const auto all = outputs_of(outputs);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Output& o = all[i];
    if (o.path.empty()) continue;
    for (std::size_t earlier = 0; earlier < i; ++earlier)
      if (const Output& e = all[earlier]; !e.path.empty() && resolved_path(written_path(e.path).string()) ==
                                                                 resolved_path(written_path(o.path).string()))
        throw UsageError(std::string(e.flag) + " " + e.path + " and " + o.flag + " " + o.path +
                         ": one file for two outputs, the second would replace the first; give each its own");
    check_output_path(o.flag, o.path, guarded);
  }
}

void write_ci_outputs(const CiOutputs& outputs, const CiReport& report) {
  for (const auto& o : outputs_of(outputs)) {
    if (o.path.empty()) continue;
    const fs::path target = written_path(o.path);
    const std::string temporary = target.string() + ".tmp-" + std::to_string(::getpid());
    bool written = false;
    {
      std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
      if (file) o.print(file, report);
      written = file && file.flush();
    }
    std::error_code ec;
    if (written) fs::rename(temporary, target, ec);
    if (!written || ec) {
      fs::remove(temporary, ec);
      throw UsageError(std::string(o.flag) + " " + o.path + ": cannot write");
    }
  }
}

}  // namespace isobench::orchestrator
