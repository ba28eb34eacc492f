#pragma once
// The build's identity, recorded in a run's environment.json and used to choose its device. Only
// build_identity.cpp is compiled with the definitions that differ between a CUDA, a CPU-only and
// a wheel build (orchestrator/CMakeLists.txt), so every other object of the orchestrator is the
// same in all of them and ccache serves it to each (scripts/build.sh).

namespace isobench::orchestrator {

const char* isobench_version();  // the project version, "0.1.0"
const char* build_type();        // CMAKE_BUILD_TYPE, "Release"
bool built_with_cuda();          // the CUDA kernels and timers are compiled in

}  // namespace isobench::orchestrator
