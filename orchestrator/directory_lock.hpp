#pragma once
// An exclusive lock on a lock file inside a directory, held while one process measures into it:
// a run directory (run.lock: two orchestrators never measure one run at once) or a Slurm shard
// (task.lock: two array tasks never measure one shard). flock() on the open file: the kernel
// releases it when the holder ends, however it ends, so a killed orchestrator leaves no stale
// lock, and the file itself never says who holds it (nothing is written to take it).

#include <string>

namespace isobench::orchestrator {

class DirectoryLock {
 public:
  // Opens (creating) `path` and tries to lock it without waiting. Throws UsageError when the
  // file cannot be opened. A file system that does not lock (Lustre without -o flock) gives a
  // lock that keeps nothing apart, and why (unlocked()), for the holder to warn of.
  explicit DirectoryLock(const std::string& path);
  ~DirectoryLock();
  DirectoryLock(DirectoryLock&& other) noexcept;
  DirectoryLock& operator=(DirectoryLock&&) = delete;
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

  // Another process holds it: this one holds nothing.
  bool held_elsewhere() const { return held_elsewhere_; }
  // Whether a process holds the lock file at `path` now; a missing file is held by none (and is
  // not created: this only looks).
  static bool held(const std::string& path);
  const std::string& path() const { return path_; }
  // Why this lock keeps nothing apart (the file system refused to lock); empty when it holds.
  const std::string& unlocked() const { return unlocked_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool held_elsewhere_ = false;
  std::string unlocked_;
};

}  // namespace isobench::orchestrator
