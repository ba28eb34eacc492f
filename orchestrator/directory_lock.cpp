#include "orchestrator/directory_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "orchestrator/errors.hpp"

namespace isobench::orchestrator {

std::optional<DirectoryLock> DirectoryLock::take(const std::string& path, const Log& log) {
  // Close-on-exec: a worker or zygote the holder starts must not hold the lock after it.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw UsageError(path + ": cannot open: " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      ::close(fd);
      return std::nullopt;
    }
    log.warning(path + ": cannot lock (" + std::strerror(errno) +
                "): two processes measuring here would not be kept apart");
  }
  return DirectoryLock(fd);
}

bool DirectoryLock::held(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool taken = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // releases it, if this look took it
  return taken;
}

DirectoryLock::DirectoryLock(DirectoryLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace isobench::orchestrator
