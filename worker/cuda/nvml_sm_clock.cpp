#include "nvml_sm_clock.hpp"

#include <dlfcn.h>

namespace isobench::worker {

namespace {

// The few NVML entry points used, declared here rather than through nvml.h so the worker builds
// where the header is absent. nvmlReturn_t is an enum (0 = success); nvmlDevice_t a pointer.
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM
using NvmlInit = int (*)();
using NvmlShutdown = int (*)();
using NvmlHandleByPciBusId = int (*)(const char*, void**);
using NvmlErrorString = const char* (*)(int);

}  // namespace

NvmlSmClock::NvmlSmClock(const std::string& pci_bus_id) {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library_) {
    const char* error = dlerror();
    reason_ = error ? error : "libnvidia-ml.so.1 not found";
    return;
  }
  auto init = reinterpret_cast<NvmlInit>(dlsym(library_, "nvmlInit_v2"));
  auto by_bus = reinterpret_cast<NvmlHandleByPciBusId>(dlsym(library_, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto error_string = reinterpret_cast<NvmlErrorString>(dlsym(library_, "nvmlErrorString"));
  get_clock_ = reinterpret_cast<GetClock>(dlsym(library_, "nvmlDeviceGetClockInfo"));
  auto get_max = reinterpret_cast<GetClock>(dlsym(library_, "nvmlDeviceGetMaxClockInfo"));
  if (!init || !by_bus || !get_clock_ || !get_max) {
    reason_ = "libnvidia-ml.so.1 lacks an NVML entry point this worker uses";
    get_clock_ = nullptr;
    return;
  }
  auto describe = [&](int status) {
    return error_string ? std::string(error_string(status)) : "NVML error " + std::to_string(status);
  };
  if (int status = init(); status != kNvmlSuccess) {
    reason_ = "nvmlInit failed: " + describe(status);
    get_clock_ = nullptr;
    return;
  }
  initialised_ = true;
  if (int status = by_bus(pci_bus_id.c_str(), &device_); status != kNvmlSuccess) {
    reason_ = "NVML has no device at " + pci_bus_id + ": " + describe(status);
    get_clock_ = nullptr;
    return;
  }
  if (get_max(device_, kNvmlClockSm, &max_mhz_) != kNvmlSuccess) max_mhz_ = 0;
}

NvmlSmClock::~NvmlSmClock() {
  if (initialised_) {
    if (auto shutdown = reinterpret_cast<NvmlShutdown>(dlsym(library_, "nvmlShutdown"))) shutdown();
  }
  if (library_) dlclose(library_);
}

unsigned NvmlSmClock::current_mhz() const {
  unsigned mhz = 0;
  if (!get_clock_ || get_clock_(device_, kNvmlClockSm, &mhz) != kNvmlSuccess) return 0;
  return mhz;
}

}  // namespace isobench::worker
