#pragma once
// Where an instance's artifacts live: the worker creates the folder and hands it to the
// benchmark (ISOBENCH_ARTIFACT_DIR), and the orchestrator archives what is in it afterwards. Both
// sides derive the folder from the instance id, so the name is part of their protocol and lives
// here, beside the segment they share (docs/run-format.md, artifacts/).

#include <string>
#include <string_view>

namespace isobench::ipc {

// The environment variable a benchmark reads its artifact folder from.
inline constexpr const char* kArtifactDirVariable = "ISOBENCH_ARTIFACT_DIR";

// The trace of one iteration that a worker recording kernels writes into the folder
// (worker/iteration_trace.hpp). It holds timestamps, so two sides' traces always differ in
// content: compare lists it only when one side lacks it.
inline constexpr const char* kIterationTraceFile = "isobench-iteration-trace.json";

// A folder name for the instance id, safe in any file system and stable across runs and builds:
// the id with every run of characters outside [A-Za-z0-9._-] made one '_' (cut to 80 bytes),
// then '-' and the 16 hex digits of the id's 64-bit FNV-1a hash. The hash keeps ids that differ
// only in punctuation apart: example_stencil[n=8192,steps=20] ->
// example_stencil_n_8192_steps_20-<hash>.
std::string artifact_folder_name(std::string_view instance_id);

}  // namespace isobench::ipc
