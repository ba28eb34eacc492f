// The build's identity (build_identity.hpp): the definitions that differ between builds reach
// this file alone (orchestrator/CMakeLists.txt).
#include "build_identity.hpp"

namespace isobench::orchestrator {

const char* isobench_version() { return ISOBENCH_VERSION; }

const char* build_type() { return ISOBENCH_BUILD_TYPE; }

bool built_with_cuda() {
#ifdef ISOBENCH_WITH_CUDA
  return true;
#else
  return false;
#endif
}

}  // namespace isobench::orchestrator
