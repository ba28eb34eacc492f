// DirectoryLock::take, the one way run.lock, bisect.lock and a Slurm shard's task.lock are taken:
// a second holder is kept out (flock's locks are per open file, so one process shows it), the
// lock goes with its holder, and a lock file that cannot be opened is a UsageError naming it.

#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <utility>

#include "orchestrator/directory_lock.hpp"
#include "orchestrator/errors.hpp"
#include "temp_dir.hpp"

using namespace isobench::orchestrator;
using isobench::testing::TempDir;

TEST_CASE("DirectoryLock::take: one holder at a time, released with its holder") {
  TempDir dir("directory_lock");
  const std::string path = dir / "run.lock";
  std::string warnings;
  const Log log([&](LogLevel, const std::string& line) { warnings += line + "\n"; });
  CHECK_FALSE(DirectoryLock::held(path));
  std::optional<DirectoryLock> first = DirectoryLock::take(path, log);
  REQUIRE(first);
  CHECK(DirectoryLock::held(path));
  CHECK_FALSE(DirectoryLock::take(path, log));
  {
    const DirectoryLock moved(std::move(*first));  // a lock handed on (OpenRun keeps it) still holds
    first.reset();
    CHECK_FALSE(DirectoryLock::take(path, log));
  }
  CHECK_FALSE(DirectoryLock::held(path));
  CHECK(DirectoryLock::take(path, log));
  CHECK(warnings.empty());  // this file system locks
}

TEST_CASE("DirectoryLock::take: a lock file that cannot be opened is a UsageError naming it") {
  TempDir dir("directory_lock");
  const std::string path = dir / "no/such/folder/task.lock";
  CHECK_THROWS_WITH_AS(DirectoryLock::take(path, Log()), (path + ": cannot open: No such file or directory").c_str(),
                       UsageError);
}
