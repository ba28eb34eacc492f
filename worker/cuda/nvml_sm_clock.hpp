#pragma once
// The SM clock of the worker's device, read through NVML loaded at run time (dlopen), so a
// machine without the driver library still runs: every reading is then 0 (unknown).

#include <string>

namespace isobench::worker {

class NvmlSmClock {
 public:
  // `pci_bus_id` as CUDA reports it; NVML matches devices by bus id, which survives
  // CUDA_VISIBLE_DEVICES reordering where an index would not.
  explicit NvmlSmClock(const std::string& pci_bus_id);
  ~NvmlSmClock();
  NvmlSmClock(const NvmlSmClock&) = delete;
  NvmlSmClock& operator=(const NvmlSmClock&) = delete;

  unsigned current_mhz() const;  // 0: unknown
  unsigned max_mhz() const { return max_mhz_; }  // 0: unknown
  // Why readings are unknown ("libnvidia-ml.so.1: cannot open ..."); empty when available.
  const std::string& unavailable_reason() const { return reason_; }

 private:
  void* library_ = nullptr;
  void* device_ = nullptr;
  bool initialised_ = false;
  unsigned max_mhz_ = 0;
  std::string reason_;
  using GetClock = int (*)(void*, int, unsigned*);
  GetClock get_clock_ = nullptr;
};

}  // namespace isobench::worker
