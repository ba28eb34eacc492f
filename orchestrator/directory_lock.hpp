#pragma once
// An exclusive lock on a lock file inside a directory, held while one process works in it: a run
// directory (run.lock: two orchestrators never measure one run at once), a bisection's directory
// (bisect.lock) or a Slurm shard (task.lock: two array tasks never measure one shard). flock()
// on the open file: the kernel releases it when the holder ends, however it ends, so a killed
// orchestrator leaves no stale lock, and the file itself never says who holds it (nothing is
// written to take it).

#include <optional>
#include <string>

#include "orchestrator/log.hpp"

namespace isobench::orchestrator {

class DirectoryLock {
 public:
  // Opens (creating) `path` and locks it without waiting: the lock, or none when another process
  // holds it (what that means is the caller's to say, as its verb would). Throws UsageError when
  // the file cannot be opened. A file system that does not lock (Lustre without -o flock) gives a
  // lock that keeps nothing apart, and a warning in `log` saying so.
  static std::optional<DirectoryLock> take(const std::string& path, const Log& log);
  // Whether a process holds the lock file at `path` now; a missing file is held by none (and is
  // not created: this only looks).
  static bool held(const std::string& path);

  ~DirectoryLock();
  DirectoryLock(DirectoryLock&& other) noexcept;
  DirectoryLock& operator=(DirectoryLock&&) = delete;
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  explicit DirectoryLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace isobench::orchestrator
