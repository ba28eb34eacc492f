#pragma once
// A segment holding one rank group of `world` ranks and one sample slot, as a run with a
// multi-rank instance has: the tests play the ranks with threads.

#include <cstdint>

#include "ipc/rank_group.hpp"
#include "ipc/segment.hpp"

namespace isobench::testing {

inline ipc::Segment rank_segment(std::uint32_t world) {
  ipc::SegmentShape shape;
  shape.n_slots = 1;
  shape.instances_json = "[]";
  shape.rank_table_bytes = ipc::rank_table_bytes(1, world, 1);
  auto seg = ipc::Segment::create(shape);
  ipc::init_rank_table(seg, 1, world);
  ipc::reset_rank_group(ipc::RankTable(seg), 0, world, {});
  return seg;
}

}  // namespace isobench::testing
