#pragma once
// NCCL, loaded when the first multi-rank kernel is set up (kernels/gpu_libraries.hpp): the
// worker does not link it, so machines without NCCL run every other kernel. The kernels call it
// through the table below; its members have NCCL's own names and signatures.

#include <nccl.h>

#include "kernels/rank_comm.hpp"

namespace isobench::kernels::cuda {

struct NcclLibrary {
  decltype(&::ncclGetErrorString) GetErrorString;
  decltype(&::ncclGetUniqueId) GetUniqueId;
  decltype(&::ncclCommInitRank) CommInitRank;
  decltype(&::ncclCommDestroy) CommDestroy;
  decltype(&::ncclAllGather) AllGather;
};

// Loads on first call (thread-safe) and returns the same table after. Before loading, sets
// NCCL_NVLS_ENABLE=0 in the worker's environment: NVLink multicast (NVLS) stays off on every
// rank, whatever the caller's environment says. Throws std::runtime_error naming the library
// when it or one of its functions is missing.
const NcclLibrary& nccl();

// Throws std::runtime_error with the file, line, call and NCCL's message when `status` failed.
void check_nccl(ncclResult_t status, const char* file, int line, const char* call);
#define ISOBENCH_NCCL_CHECK(call) ::isobench::kernels::cuda::check_nccl((call), __FILE__, __LINE__, #call)

// One NCCL communicator over the instance's ranks: rank 0 makes the unique id and hands it to
// the others through the run's segment (RankComm::broadcast); null ranks: a world of one.
class NcclCommunicator {
 public:
  explicit NcclCommunicator(RankComm* ranks);
  ~NcclCommunicator();
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;
  ncclComm_t get() const { return comm_; }

 private:
  ncclComm_t comm_ = nullptr;
};

}  // namespace isobench::kernels::cuda
