#pragma once
// The worker's device: selected once by index, with a dedicated non-blocking stream on which
// every benchmark is set up, launched and timed (never the legacy default stream, which would
// synchronise with everything else in the process).

#include <cstddef>
#include <memory>
#include <string>

#include "worker/cuda/nvml_sm_clock.hpp"

namespace isobench::worker {

class CudaDevice {
 public:
  // Throws std::runtime_error when the index is out of range or the device cannot be used.
  explicit CudaDevice(int index);
  ~CudaDevice();
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  void* stream() const { return stream_; }  // cudaStream_t
  int index() const { return index_; }
  std::string name() const { return name_; }
  std::string pci_bus_id() const { return pci_bus_id_; }  // "0000:4E:00.0", how NVML finds it
  std::string uuid() const { return uuid_; }  // "GPU-3f1c2a9e-...", as NVML and nvidia-smi print it
  std::size_t l2_bytes() const { return l2_bytes_; }
  int sm_count() const { return sm_count_; }
  // The device's SM clock through NVML, loaded once per process (nvmlInit is not free).
  const NvmlSmClock& sm_clock() const { return *sm_clock_; }
  // Waits for everything queued on the stream.
  void synchronize() const;

 private:
  int index_;
  void* stream_ = nullptr;
  std::string name_, pci_bus_id_, uuid_;
  std::size_t l2_bytes_ = 0;
  int sm_count_ = 0;
  std::unique_ptr<NvmlSmClock> sm_clock_;
};

// How many CUDA devices this process sees (0 when there is no driver or no device; never throws).
int cuda_device_count();

}  // namespace isobench::worker
