#pragma once
// Triton's compiled kernels, per side of a run with Python benchmarks: each side of a new run gets
// TRITON_CACHE_DIR=triton_cache_folder() (recorded in python.json with the side's other variables,
// so a resumed run keeps it), unless the side's options or the orchestrator's environment give one
// (kept; an A/B run whose two sides would share a folder they were given is warned).

#include <cstddef>
#include <string>

#include "orchestrator/python/python_environment.hpp"

namespace isobench::orchestrator {

inline constexpr const char* kTritonCacheVariable = "TRITON_CACHE_DIR";
inline constexpr const char* kTritonCacheFolder = "triton-cache";
// Where the cache folders live: ISOBENCH_TRITON_CACHE (a folder, or "run" for a folder per side
// in the run directory, <run>/triton-cache/side-<s>), else $XDG_CACHE_HOME/isobench/triton, else
// ~/.cache/isobench/triton, else the run directory.
inline constexpr const char* kTritonCacheRootVariable = "ISOBENCH_TRITON_CACHE";

// 16 hex digits of SHA-256 over what decides how a side compiles besides the kernel's source,
// which Triton's own cache key covers: the interpreter (its real path: a venv is another
// installation), the side's PYTHONPATH folders in order and the inherited PYTHONPATH (a checkout
// of Triton there), and the environment variables the side sets or inherits as TRITON_* (a switch
// that is not part of Triton's cache key), TRITON_CACHE_DIR excepted. Two sides that differ in any
// of these never share a folder; the same environment in a later run finds its kernels compiled.
std::string compile_environment_key(const PythonEnvironment& env);
// The folder a side compiles into when no TRITON_CACHE_DIR is given: <root>/<key>, the root as
// kTritonCacheRootVariable says, or <run_dir>/triton-cache/side-<side>.
std::string triton_cache_folder(const PythonEnvironment& env, const std::string& run_dir, std::size_t side);

// Points `env` at its environment's folder (TRITON_CACHE_DIR=triton_cache_folder()) unless the
// side's options or the orchestrator's environment give one; returns the folder the user gave
// (absolute), or "" when the side got its environment's.
std::string default_triton_cache(PythonEnvironment& env, const std::string& run_dir, std::size_t side);

}  // namespace isobench::orchestrator
