#pragma once
// Whether the GPU software here fits this worker's build (kernels/gpu_libraries.hpp): the driver
// against the CUDA runtime linked in, and the runtime libraries that the planned kernels open.
// orchestrate asks before a run (isobench-worker --check-gpu): a driver or library that does not
// fit is one line and exit 2 before anything is measured, and a library that is missing leaves
// out the instances whose kernels need it; CudaDevice checks the driver again.

#include <string>
#include <vector>

#include "kernels/gpu_libraries.hpp"

namespace isobench::worker {

// The line that says the driver is too old for this build's CUDA runtime; empty when it fits or
// there is no driver at all.
std::string driver_problem();

// The report of --check-gpu (kernels::GpuFitItem): the driver, then each library (its stem,
// "libcublasLt") opened as a kernel's set-up opens it, in the order given.
std::vector<kernels::GpuFitItem> gpu_fit_report(const std::vector<std::string>& libraries);

}  // namespace isobench::worker
