#pragma once
// What a multi-rank kernel sees of its peers: the ranks of one instance, each a worker process
// (one per GPU), started together by the orchestrator. The worker implements it over the run's
// shared-memory segment (ipc/rank_group.hpp); kernels depend only on this interface.

#include <cstddef>

namespace isobench::kernels {

class RankComm {
 public:
  virtual ~RankComm() = default;
  virtual int rank() const = 0;
  virtual int world() const = 0;
  // (Pointers and sizes, not spans: CUDA sources include this header as C++17.)
  // Rank 0's `n` bytes into every rank's (n at most 128: room for NCCL's unique id). Every rank
  // calls it.
  virtual void broadcast(void* bytes, std::size_t n) = 0;
  // Every rank's `n` bytes at `mine`, in rank order, into `all` (world * n bytes), through host
  // memory. Every rank calls it with the same n.
  virtual void all_gather(const void* mine, std::size_t n, void* all) = 0;
};

}  // namespace isobench::kernels
