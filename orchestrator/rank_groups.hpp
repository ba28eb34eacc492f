#pragma once
// The orchestrator's side of multi-rank instances (docs/multi-rank.md): how big the segment must
// be for them, what a rank is told on its command line, and what the journal keeps of each
// rank's time. Starting, watching and stopping a group's processes is the runner's.

#include <cstdint>
#include <string>
#include <vector>

#include "ipc/rank_group.hpp"
#include "plan.hpp"

namespace isobench::orchestrator {

// The world size of every instance of the plan, by index; throws naming the instance when its
// `ranks` parameter is out of range.
std::vector<std::uint32_t> instance_worlds(const std::vector<PlannedInstance>& instances);

// Room for groups of up to max_world ranks: one lane per rank beyond the first of the one group
// that runs at a time (multi-rank jobs are never pre-started), and the rank table, with a group
// per lane. Nothing changes when max_world is 1.
void make_room_for_ranks(ipc::SegmentShape& shape, std::uint32_t max_world);

// What a rank is told: its rank, the world size and its group (rank 0's lane).
std::vector<std::string> rank_args(std::uint32_t rank, std::uint32_t world, std::uint32_t group);

// Each rank's time of the sample rank 0 wrote into `slot`, into `values`; empty when they are
// complete and the sample's value is their largest, else the problem (the sample is rejected).
std::string read_rank_values(const ipc::RankTable& table, std::uint32_t slot, std::uint32_t world, double value,
                             std::vector<double>& values);

}  // namespace isobench::orchestrator
