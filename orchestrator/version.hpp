#pragma once
// What `orchestrate --version` prints: the project version CMake was given, the git commit the
// build was made from and its backends, and for a CUDA build its flavour and the driver it needs,
// e.g. "orchestrate 0.1.0 (commit 94c9ae2f1a2b; CUDA 12.4 for sm_90, and CPU; flavour cu12: needs
// an NVIDIA driver R525 or newer)"; "-dirty" after the commit when tracked files differed from it
// at build time, "commit unknown" when it was built outside a git checkout.

#include <string>

namespace isobench::orchestrator {

std::string version_line();

}  // namespace isobench::orchestrator
