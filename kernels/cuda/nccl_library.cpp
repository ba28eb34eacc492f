#include "nccl_library.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

#include "kernels/gpu_libraries.hpp"

namespace isobench::kernels::cuda {

static_assert(NCCL_MAJOR == 2, "gpu_library() opens libnccl.so.2");
static_assert(sizeof(ncclUniqueId) <= 128, "the rank group's broadcast field holds 128 bytes");

const NcclLibrary& nccl() {
  static const NcclLibrary table = [] {
    // NCCL reads it when a communicator is made. The project keeps NVLink multicast off on the
    // machines it measures on (docs/multi-rank.md): set here, before any communicator, so every rank
    // measures the same all-gather algorithms whatever the environment it was started with.
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    void* lib = open_gpu_library(*gpu_library("libnccl", CUDART_VERSION / 1000));
    const char* n = "libnccl";
    NcclLibrary t{};
    resolve(lib, n, "ncclGetErrorString", t.GetErrorString);
    resolve(lib, n, "ncclGetUniqueId", t.GetUniqueId);
    resolve(lib, n, "ncclCommInitRank", t.CommInitRank);
    resolve(lib, n, "ncclCommDestroy", t.CommDestroy);
    resolve(lib, n, "ncclAllGather", t.AllGather);
    return t;
  }();
  return table;
}

void check_nccl(ncclResult_t status, const char* file, int line, const char* call) {
  if (status == ncclSuccess) return;
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call +
                           " failed: " + nccl().GetErrorString(status));
}

NcclCommunicator::NcclCommunicator(RankComm* ranks) {
  const int rank = ranks ? ranks->rank() : 0;
  const int world = ranks ? ranks->world() : 1;
  ncclUniqueId id{};
  if (rank == 0) ISOBENCH_NCCL_CHECK(nccl().GetUniqueId(&id));
  if (ranks) ranks->broadcast(&id, sizeof id);
  ISOBENCH_NCCL_CHECK(nccl().CommInitRank(&comm_, world, id, rank));
}

NcclCommunicator::~NcclCommunicator() {
  if (comm_) nccl().CommDestroy(comm_);
}

}  // namespace isobench::kernels::cuda
