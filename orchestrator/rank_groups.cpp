#include "rank_groups.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace isobench::orchestrator {

std::vector<std::uint32_t> instance_worlds(const std::vector<PlannedInstance>& instances) {
  std::vector<std::uint32_t> worlds;
  for (const auto& p : instances) worlds.push_back(ipc::world_size(p.worker));
  return worlds;
}

void make_room_for_ranks(ipc::SegmentShape& shape, std::uint32_t max_world) {
  if (max_world <= 1) return;
  shape.n_lanes += max_world - 1;
  shape.rank_table_bytes = ipc::rank_table_bytes(shape.n_lanes, max_world, shape.n_slots);
}

std::vector<std::string> rank_args(std::uint32_t rank, std::uint32_t world, std::uint32_t group) {
  return {"--rank", std::to_string(rank), "--world", std::to_string(world), "--group", std::to_string(group)};
}

std::string read_rank_values(const ipc::RankTable& table, std::uint32_t slot, std::uint32_t world, double value,
                             std::vector<double>& values) {
  values.clear();
  for (std::uint32_t r = 0; r < world; ++r) {
    // A copy: other processes of the user can write the table.
    ipc::RankSample part;
    std::memcpy(&part, &table.sample(slot, r), sizeof part);
    if (part.written != 1) return "rank " + std::to_string(r) + " reported no time for this sample";
    if (!std::isfinite(part.values.value_s) || part.values.value_s <= 0)
      return "rank " + std::to_string(r) + "'s time is not a finite positive time";
    values.push_back(part.values.value_s);
  }
  if (*std::max_element(values.begin(), values.end()) != value)
    return "the sample is not the slowest rank's time";
  return {};
}

}  // namespace isobench::orchestrator
