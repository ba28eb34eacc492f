#include "version.hpp"

#include "build_commit.h"  // generated at every build by cmake/BuildCommit.cmake

namespace isobench::orchestrator {

std::string version_line() {
  return std::string("orchestrate ") + ISOBENCH_VERSION + " (commit " + ISOBENCH_GIT_COMMIT + "; " +
         ISOBENCH_BACKENDS + ")";
}

}  // namespace isobench::orchestrator
