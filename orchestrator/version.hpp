#pragma once
// What `orchestrate --version` prints: the project version CMake was given and the git commit the
// build was made from, e.g. "orchestrate 0.1.0 (commit 94c9ae2f1a2b)"; "-dirty" after the commit
// when tracked files differed from it at build time, "commit unknown" when it was built outside a
// git checkout.

#include <string>

namespace isobench::orchestrator {

std::string version_line();

}  // namespace isobench::orchestrator
