// The orchestrator's side of multi-rank instances: the segment's room for them, and the check of
// the ranks' parts of a sample before it is journaled.
#include <doctest/doctest.h>

#include "orchestrator/rank_groups.hpp"

using namespace isobench;
using namespace isobench::orchestrator;

TEST_CASE("room for ranks: a lane per extra rank and a group per lane; none without ranks") {
  ipc::SegmentShape shape;
  shape.n_lanes = 2;
  shape.n_slots = 6;
  make_room_for_ranks(shape, 1);
  CHECK(shape.n_lanes == 2);
  CHECK(shape.rank_table_bytes == 0);
  make_room_for_ranks(shape, 3);
  CHECK(shape.n_lanes == 4);
  CHECK(shape.rank_table_bytes == ipc::rank_table_bytes(4, 3, 6));
  CHECK(rank_args(1, 3, 2) == std::vector<std::string>{"--rank", "1", "--world", "3", "--group", "2"});
}

TEST_CASE("a multi-rank sample is journaled only with every rank's part, and only as the slowest") {
  ipc::SegmentShape shape;
  shape.n_slots = 2;
  shape.instances_json = "[]";
  make_room_for_ranks(shape, 2);
  auto seg = ipc::Segment::create(shape);
  ipc::init_rank_table(seg, shape.n_lanes, 2);
  const ipc::RankTable table(seg);
  std::vector<double> values;
  CHECK(read_rank_values(table, 1, 2, 2.0, values) == "rank 0 reported no time for this sample");
  for (std::uint32_t r = 0; r < 2; ++r) {
    table.sample(1, r).values.value_s = 1.0 + r;
    table.sample(1, r).written = 1;
  }
  CHECK(read_rank_values(table, 1, 2, 2.0, values) == "");
  CHECK(values == std::vector<double>{1.0, 2.0});
  CHECK(read_rank_values(table, 1, 2, 1.0, values) == "the sample is not the slowest rank's time");
  table.sample(1, 0).values.value_s = -1;
  CHECK(read_rank_values(table, 1, 2, 2.0, values) == "rank 0's time is not a finite positive time");
}
