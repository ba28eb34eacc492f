#include "rank_group.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

namespace isobench::ipc {

namespace {

std::uint64_t align_up(std::uint64_t v) { return (v + 63) / 64 * 64; }

// Offsets of every part of the table for its counts, starting at `start`.
RankTableHeader rank_layout(std::uint64_t start, std::uint32_t n_groups, std::uint32_t max_world,
                            std::uint32_t n_slots) {
  RankTableHeader h{};
  h.magic = kRankTableMagic;
  h.n_groups = n_groups;
  h.max_world = max_world;
  h.n_slots = n_slots;
  h.group_bytes = sizeof(RankGroup);
  h.data_bytes_per_rank = kRankDataBytes;
  h.groups_offset = align_up(start + sizeof(RankTableHeader));
  h.samples_offset = align_up(h.groups_offset + std::uint64_t{n_groups} * sizeof(RankGroup));
  h.data_offset = align_up(h.samples_offset + std::uint64_t{n_slots} * max_world * sizeof(RankSample));
  h.end_offset = h.data_offset + std::uint64_t{n_groups} * max_world * kRankDataBytes;
  return h;
}

}  // namespace

std::uint32_t world_size(const WorkerInstance& instance) {
  if (!instance.params.is_object() || !instance.params.contains("ranks")) return 1;
  const auto& ranks = instance.params["ranks"];
  if (!ranks.is_number_integer() || ranks.get<std::int64_t>() < 1 || ranks.get<std::int64_t>() > kMaxRanks)
    throw std::runtime_error(instance.id + ": ranks must be an integer from 1 to " + std::to_string(kMaxRanks) +
                             ", got " + ranks.dump());
  return ranks.get<std::uint32_t>();
}

std::uint64_t rank_table_bytes(std::uint32_t n_groups, std::uint32_t max_world, std::uint32_t n_slots) {
  if (max_world <= 1) return 0;
  return rank_layout(0, n_groups, max_world, n_slots).end_offset;
}

void init_rank_table(const Segment& seg, std::uint32_t n_groups, std::uint32_t max_world) {
  const std::uint64_t start = seg.layout().rank_table_offset;
  const RankTableHeader h = rank_layout(start, n_groups, max_world, seg.layout().n_slots);
  if (h.end_offset > seg.size()) throw SegmentError("the segment has no room for its rank table");
  std::memcpy(static_cast<char*>(seg.base()) + start, &h, sizeof h);
}

std::string validate_rank_table(const void* base, std::size_t mapped_bytes, std::uint64_t start,
                                std::uint32_t n_slots) {
  if (start > mapped_bytes || sizeof(RankTableHeader) > mapped_bytes - start) return "this run's segment has no rank table";
  RankTableHeader h;
  std::memcpy(&h, static_cast<const char*>(base) + start, sizeof h);
  if (h.magic != kRankTableMagic) return "rank table: bad magic";
  if (h.max_world < 2 || h.max_world > kMaxRanks || h.n_groups == 0 || h.n_groups > 4096 || h.n_slots != n_slots)
    return "rank table: counts out of range";
  // Re-derive the offsets from the counts, as validate_header does for the segment's own tables.
  const RankTableHeader expected = rank_layout(start, h.n_groups, h.max_world, h.n_slots);
  if (std::memcmp(&expected, &h, sizeof h) != 0) return "rank table: inconsistent layout";
  if (h.end_offset > mapped_bytes) return "rank table: overruns the segment";
  return {};
}

RankTable::RankTable(const Segment& seg) : base_(static_cast<char*>(seg.base())) {
  const std::uint64_t start = seg.layout().rank_table_offset;
  if (auto problem = validate_rank_table(base_, seg.size(), start, seg.layout().n_slots); !problem.empty())
    throw SegmentError(problem);
  std::memcpy(&layout_, base_ + start, sizeof layout_);
}

RankGroup& RankTable::group(std::uint32_t g) const {
  if (g >= layout_.n_groups) throw SegmentError("rank group index out of range");
  return reinterpret_cast<RankGroup*>(base_ + layout_.groups_offset)[g];
}

RankSample& RankTable::sample(std::uint32_t slot, std::uint32_t rank) const {
  if (slot >= layout_.n_slots || rank >= layout_.max_world) throw SegmentError("rank sample index out of range");
  return reinterpret_cast<RankSample*>(base_ + layout_.samples_offset)[std::size_t{slot} * layout_.max_world + rank];
}

std::span<std::byte> RankTable::data(std::uint32_t g, std::uint32_t rank) const {
  if (g >= layout_.n_groups || rank >= layout_.max_world) throw SegmentError("rank data index out of range");
  const std::uint64_t at =
      layout_.data_offset + (std::uint64_t{g} * layout_.max_world + rank) * layout_.data_bytes_per_rank;
  return {reinterpret_cast<std::byte*>(base_ + at), layout_.data_bytes_per_rank};
}

void reset_rank_group(const RankTable& table, std::uint32_t g, std::uint32_t world,
                      std::span<const std::uint32_t> slots) {
  if (world < 2 || world > table.layout().max_world) throw std::logic_error("rank group world out of range");
  RankGroup& group = table.group(g);
  std::memset(&group, 0, sizeof group);
  group.world = world;
  for (std::uint32_t slot : slots)
    for (std::uint32_t r = 0; r < world; ++r) table.sample(slot, r) = RankSample{};
  std::atomic_thread_fence(std::memory_order_release);
}

void abort_rank_group(const RankTable& table, std::uint32_t g, std::uint32_t by) {
  std::uint32_t sound = 0;
  std::atomic_ref<std::uint32_t>(table.group(g).aborted).compare_exchange_strong(sound, by, std::memory_order_acq_rel);
}

RankMember::RankMember(const Segment& seg, std::uint32_t group, std::uint32_t rank, std::uint32_t world,
                       std::function<void()> beat)
    : table_(seg), group_(table_.group(group)), group_index_(group), rank_(rank), world_(world),
      beat_(std::move(beat)) {
  if (world < 2 || world > table_.layout().max_world || rank >= world)
    throw std::runtime_error("rank " + std::to_string(rank) + " of world " + std::to_string(world) +
                             " does not fit this run's rank table");
  if (load_acquire(group_.world) != world)
    throw std::runtime_error("rank group " + std::to_string(group) + " was set up for " +
                             std::to_string(group_.world) + " ranks, this worker was told " + std::to_string(world));
}

void RankMember::barrier() {
  const std::uint32_t generation = load_acquire(group_.generation);
  const std::uint32_t arrived = std::atomic_ref<std::uint32_t>(group_.arrived).fetch_add(1, std::memory_order_acq_rel);
  if (arrived + 1 == world_) {
    // The last to arrive opens the barrier; resetting the count first lets a rank that leaves at
    // once arrive at the next generation's barrier.
    store_release(group_.arrived, std::uint32_t{0});
    store_release(group_.generation, generation + 1);
    return;
  }
  // Spin briefly (the peers are usually close), then sleep in short steps: on a small machine
  // the waiting ranks must not take the CPU the others measure on.
  for (std::uint32_t spins = 0; load_acquire(group_.generation) == generation; ++spins) {
    if (const std::uint32_t by = load_acquire(group_.aborted); by != 0)
      throw RankGroupAborted(by == kAbortedByOrchestrator
                                 ? std::string("the orchestrator aborted the rank group")
                                 : "the rank group was aborted: rank " + std::to_string(by - 1) + " failed");
    if (spins < 2000) {
      std::this_thread::yield();
    } else {
      if (spins % 64 == 0) beat_();
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
}

void RankMember::broadcast(std::span<std::byte> bytes) {
  if (bytes.size() > kBroadcastBytes) throw std::logic_error("broadcast larger than the group's field");
  if (rank_ == 0) std::memcpy(group_.broadcast, bytes.data(), bytes.size());
  barrier();
  if (rank_ != 0) std::memcpy(bytes.data(), group_.broadcast, bytes.size());
  barrier();  // rank 0 writes the field again only once every rank has read it
}

void RankMember::all_gather(std::span<const std::byte> mine, std::span<std::byte> all) {
  if (mine.size() > table_.layout().data_bytes_per_rank)
    throw std::runtime_error("all-gather of " + std::to_string(mine.size()) + " bytes per rank exceeds the " +
                             std::to_string(table_.layout().data_bytes_per_rank) + " bytes of the segment's rank area");
  if (all.size() != mine.size() * world_) throw std::logic_error("all-gather output is not world * input");
  std::memcpy(table_.data(group_index_, rank_).data(), mine.data(), mine.size());
  barrier();
  for (std::uint32_t r = 0; r < world_; ++r)
    std::memcpy(all.data() + r * mine.size(), table_.data(group_index_, r).data(), mine.size());
  barrier();  // every rank has read the blocks before any rank writes its next one
}

std::span<const SampleValues> RankMember::gather_sample(std::uint32_t slot, const SampleValues& mine) {
  RankSample& shared = table_.sample(slot, rank_);
  std::memcpy(&shared.values, &mine, sizeof mine);
  store_release(shared.written, std::uint32_t{1});
  barrier();
  if (rank_ != 0) return {};
  for (std::uint32_t r = 0; r < world_; ++r) {
    RankSample& part = table_.sample(slot, r);
    if (load_acquire(part.written) != 1)
      throw std::runtime_error("rank " + std::to_string(r) + " passed the barrier without its sample");
    std::memcpy(&gathered_[r], &part.values, sizeof part.values);
  }
  return {gathered_, world_};
}

void RankMember::abort() { abort_rank_group(table_, group_index_, rank_ + 1); }

SampleValues slowest_rank(std::span<const SampleValues> parts) {
  if (parts.empty()) throw std::logic_error("slowest_rank of no ranks");
  SampleValues out = parts.front();
  for (const SampleValues& p : parts.subspan(1)) {
    if (p.value_s > out.value_s) {
      out.value_s = p.value_s;
      out.host_enqueue_s = p.host_enqueue_s;
    }
    out.begin_ns = std::min(out.begin_ns, p.begin_ns);
    out.end_ns = std::max(out.end_ns, p.end_ns);
    out.flags |= p.flags;
    out.sm_clock_mhz = std::min(out.sm_clock_mhz, p.sm_clock_mhz);
  }
  return out;
}

}  // namespace isobench::ipc
