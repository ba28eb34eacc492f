#pragma once
// The kernels' view of their ranks (kernels::RankComm) over the run's segment: this worker's
// membership of its rank group (ipc::RankMember), which the session also uses to start samples
// together and to combine them by the slowest-rank rule.

#include "ipc/rank_group.hpp"
#include "kernels/rank_comm.hpp"

namespace isobench::worker {

class SegmentRankComm final : public kernels::RankComm {
 public:
  SegmentRankComm(const ipc::Segment& seg, std::uint32_t group, std::uint32_t rank, std::uint32_t world,
                  std::function<void()> beat)
      : member_(seg, group, rank, world, std::move(beat)) {}
  int rank() const override { return static_cast<int>(member_.rank()); }
  int world() const override { return static_cast<int>(member_.world()); }
  void broadcast(void* bytes, std::size_t n) override { member_.broadcast({static_cast<std::byte*>(bytes), n}); }
  void all_gather(const void* mine, std::size_t n, void* all) override {
    member_.all_gather({static_cast<const std::byte*>(mine), n}, {static_cast<std::byte*>(all), n * member_.world()});
  }
  ipc::RankMember& member() { return member_; }

 private:
  ipc::RankMember member_;
};

}  // namespace isobench::worker
