#pragma once
// The per-instance artifact folder on the worker's side: IR, SASS, autotuning decisions, any
// file a benchmark wants kept with the run (docs/plugins.md, docs/command-protocol.md).

#include <string>

namespace isobench::worker {

// Creates <root>/<artifact_folder_name(id)> and points ISOBENCH_ARTIFACT_DIR at it, so that the
// instance's setup() (a plugin reads it with getenv) and a command's child processes see it.
// Without a root (a worker started by something other than a run) the variable is removed, so a
// value inherited from the user's shell never passes for an artifact folder.
void enter_artifact_folder(const std::string& root, const std::string& instance_id);

}  // namespace isobench::worker
