#pragma once
// Whether the GPU software here fits this worker's build (kernels/runtime_library.hpp): the driver
// against the CUDA runtime linked in, and the runtime libraries that the planned kernels open.
// orchestrate asks before a run (isobench-worker --check-gpu), so that what does not fit is one
// line and exit 2 before anything is measured; CudaDevice checks the driver again.

#include <string>
#include <vector>

namespace isobench::worker {

// The line that says the driver is too old for this build's CUDA runtime; empty when it fits or
// there is no driver at all.
std::string driver_problem();

// The first thing that does not fit, as one line: the driver, then each library (its stem,
// "libcublasLt") opened as a kernel's set-up opens it. Empty when everything fits.
std::string gpu_fit_problem(const std::vector<std::string>& libraries);

}  // namespace isobench::worker
