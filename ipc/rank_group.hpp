#pragma once
// Multi-rank instances: N worker processes (ranks) that measure one instance together, one per
// GPU, meeting in a table of the run's segment that follows the tables of segment_layout.hpp.
// The table exists only in runs that have a multi-rank instance; the orchestrator sizes it
// (rank_table_bytes) and writes its header (init_rank_table); every rank validates it on join.
//
// Layout, 64-byte aligned, starting at Header::rank_table_offset:
//   RankTableHeader | RankGroup[n_groups] | RankSample[n_slots * max_world]
//                   | data: n_groups * max_world * data_bytes_per_rank
//
// A group is indexed by its rank 0's lane, so it needs no allocation of its own: the
// orchestrator resets it (reset_rank_group) before it starts the group's processes.

#include <cstdint>
#include <functional>
#include <span>
#include <type_traits>

#include "instance_table.hpp"
#include "segment.hpp"

namespace isobench::ipc {

inline constexpr std::uint64_t kRankTableMagic = 0x4B4E415248434E45ULL;  // "ENCHRANK" little-endian
inline constexpr std::uint32_t kMaxRanks = 8;  // GPUs of one host
// What rank 0 can hand every rank in one broadcast: NCCL's ncclUniqueId is 128 bytes.
inline constexpr std::uint32_t kBroadcastBytes = 128;
// Room per rank for a CPU all-gather through the segment (the CPU ranks of the tests and CI).
inline constexpr std::uint64_t kRankDataBytes = 1u << 20;

struct RankTableHeader {
  std::uint64_t magic;
  std::uint32_t n_groups;
  std::uint32_t max_world;
  std::uint32_t n_slots;
  std::uint32_t group_bytes;   // sizeof RankGroup
  std::uint64_t data_bytes_per_rank;
  std::uint64_t groups_offset;  // from the segment's base
  std::uint64_t samples_offset;
  std::uint64_t data_offset;
  std::uint64_t end_offset;
};

struct RankGroup {
  std::uint32_t world;       // written by the orchestrator before it starts the ranks
  std::uint32_t aborted;     // (atomic) 1 + the failed rank, or kAbortedByOrchestrator; 0 while sound
  std::uint32_t arrived;     // (atomic) ranks at the barrier of the current generation
  std::uint32_t generation;  // (atomic) bumped by the last rank to arrive
  char broadcast[kBroadcastBytes];  // rank 0's bytes, read by the others after a barrier
};
inline constexpr std::uint32_t kAbortedByOrchestrator = 0xffffffffu;

// One rank's part of one sample, written before the group's post-sample barrier. Rank 0 combines
// the world's parts into the sample slot; the orchestrator journals them beside the sample.
struct RankSample {
  SampleValues values;
  std::uint32_t written;  // 1 once `values` are this sample's
  std::uint32_t reserved;
};

static_assert(std::is_trivially_copyable_v<RankTableHeader>);
static_assert(std::is_trivially_copyable_v<RankGroup>);
static_assert(std::is_trivially_copyable_v<RankSample>);

// The world size of an instance: its `ranks` parameter when its kernel has one, else 1.
std::uint32_t world_size(const WorkerInstance& instance);

// Bytes the table takes (0 when max_world <= 1: no table), and its header, written at
// Header::rank_table_offset of a segment created with that much room after its tables.
std::uint64_t rank_table_bytes(std::uint32_t n_groups, std::uint32_t max_world, std::uint32_t n_slots);
void init_rank_table(const Segment& seg, std::uint32_t n_groups, std::uint32_t max_world);

// Whether `mapped_bytes` at `base` hold a sound rank table at offset `start` (a segment's
// Header::rank_table_offset) for n_slots sample slots: every table it names lies inside. Empty when it
// does, else the problem. The bytes are any process's: fuzz/ feeds this.
std::string validate_rank_table(const void* base, std::size_t mapped_bytes, std::uint64_t start,
                                std::uint32_t n_slots);

// The table of a segment, validated against the mapping; throws SegmentError when absent or bad.
class RankTable {
 public:
  explicit RankTable(const Segment& seg);
  const RankTableHeader& layout() const { return layout_; }
  RankGroup& group(std::uint32_t g) const;
  RankSample& sample(std::uint32_t slot, std::uint32_t rank) const;
  std::span<std::byte> data(std::uint32_t g, std::uint32_t rank) const;

 private:
  char* base_;
  RankTableHeader layout_;  // the validated copy: offsets to trust
};

// The orchestrator, before starting a group's processes: a sound group of `world` ranks with its
// barrier at generation 0, and the slots' rank samples cleared.
void reset_rank_group(const RankTable& table, std::uint32_t g, std::uint32_t world,
                      std::span<const std::uint32_t> slots);
// Marks the group failed: ranks waiting at its barrier throw RankGroupAborted instead of waiting.
void abort_rank_group(const RankTable& table, std::uint32_t g, std::uint32_t by);

class RankGroupAborted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One rank's membership of its group, in the worker. `beat` is called while it waits, so a rank
// waiting for a slow peer is not taken for a hung one (the peer that never arrives is).
class RankMember {
 public:
  RankMember(const Segment& seg, std::uint32_t group, std::uint32_t rank, std::uint32_t world,
             std::function<void()> beat);
  std::uint32_t rank() const { return rank_; }
  std::uint32_t world() const { return world_; }

  // Returns when every rank of the group has called it as often; throws RankGroupAborted once
  // the group is aborted.
  void barrier();
  // Rank 0's `bytes` (at most kBroadcastBytes) into every rank's `bytes`.
  void broadcast(std::span<std::byte> bytes);
  // Every rank's `mine` (at most data_bytes_per_rank), in rank order, into `all` (world * size).
  void all_gather(std::span<const std::byte> mine, std::span<std::byte> all);
  // This rank's part of the sample of `slot`; then a barrier. Rank 0 gets the world's parts
  // (world entries) to combine; the other ranks get an empty span.
  std::span<const SampleValues> gather_sample(std::uint32_t slot, const SampleValues& mine);
  // Tells the other ranks this one failed (from the worker's error path).
  void abort();

 private:
  RankTable table_;
  RankGroup& group_;
  std::uint32_t group_index_, rank_, world_;
  std::function<void()> beat_;
  SampleValues gathered_[kMaxRanks];
};

// The slowest-rank rule: the sample of a multi-rank group is its slowest rank's time. Its timed
// region spans the earliest begin to the latest end, its flags are any rank's, its clock the
// lowest and its host enqueue time the slowest rank's; inner and kernel GPU time are rank 0's.
SampleValues slowest_rank(std::span<const SampleValues> parts);

}  // namespace isobench::ipc
