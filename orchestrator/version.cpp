#include "version.hpp"

#include "build_commit.h"  // generated at every build by cmake/BuildCommit.cmake

namespace isobench::orchestrator {

std::string version_line() {
  // A CUDA build adds its flavour and the driver it needs (orchestrator/CMakeLists.txt).
  const std::string flavour = ISOBENCH_FLAVOUR;
  return std::string("orchestrate ") + ISOBENCH_VERSION + " (commit " + ISOBENCH_GIT_COMMIT + "; " +
         ISOBENCH_BACKENDS + (flavour.empty() ? "" : "; " + flavour) + ")";
}

}  // namespace isobench::orchestrator
