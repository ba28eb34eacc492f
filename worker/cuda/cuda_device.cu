#include "cuda_device.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

#include "cuda_check.hpp"
#include "gpu_fit.hpp"

namespace isobench::worker {

namespace {

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx": the 16 bytes in NVML's spelling.
std::string format_uuid(const cudaUUID_t& id) {
  const auto* b = reinterpret_cast<const unsigned char*>(id.bytes);
  char text[48];
  std::snprintf(text, sizeof text, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return text;
}

}  // namespace

int cuda_device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the non-sticky error for whoever calls CUDA next
    return 0;
  }
  return count;
}

CudaDevice::CudaDevice(int index) : index_(index) {
  // Too old a driver makes every CUDA call fail with cudaErrorInsufficientDriver, and the device
  // count 0: say which versions do not fit instead of "does not exist".
  if (const std::string problem = driver_problem(); !problem.empty()) throw std::runtime_error(problem);
  const int count = cuda_device_count();
  if (index < 0 || index >= count)
    throw std::runtime_error("CUDA device " + std::to_string(index) + " does not exist (" +
                             std::to_string(count) + " visible)");
  ISOBENCH_CUDA_CHECK(cudaSetDevice(index));
  cudaDeviceProp props{};
  ISOBENCH_CUDA_CHECK(cudaGetDeviceProperties(&props, index));
  name_ = props.name;
  uuid_ = format_uuid(props.uuid);
  l2_bytes_ = std::size_t(props.l2CacheSize);
  sm_count_ = props.multiProcessorCount;
  char bus_id[32] = {};
  ISOBENCH_CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), index));
  pci_bus_id_ = bus_id;
  sm_clock_ = std::make_unique<NvmlSmClock>(pci_bus_id_);
  cudaStream_t stream = nullptr;
  ISOBENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  stream_ = stream;
}

CudaDevice::~CudaDevice() {
  if (stream_) {
    cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));
    cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
  }
}

void CudaDevice::synchronize() const {
  ISOBENCH_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)));
}

}  // namespace isobench::worker
