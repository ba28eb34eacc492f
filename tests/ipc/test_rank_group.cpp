// The rank protocol in one process: threads play the ranks of a group meeting in a real segment.
#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <functional>
#include <numeric>
#include <thread>
#include <vector>

#include "ipc/rank_group.hpp"

using namespace isobench::ipc;

namespace {

constexpr std::uint32_t kSlots = 4;

// A segment with a rank table for groups of up to 4 ranks, group 0 set up for `world` ranks.
Segment segment_for(std::uint32_t world) {
  SegmentShape shape;
  shape.n_instances = 1;
  shape.n_slots = kSlots;
  shape.n_lanes = 4;
  shape.tasks_per_lane = 4;
  shape.instances_json = "[]";
  shape.rank_table_bytes = rank_table_bytes(shape.n_lanes, 4, shape.n_slots);
  auto seg = Segment::create(shape);
  init_rank_table(seg, shape.n_lanes, 4);
  const std::uint32_t slots[kSlots] = {0, 1, 2, 3};
  reset_rank_group(RankTable(seg), 0, world, slots);
  return seg;
}

// Runs body(member) on `world` threads, one per rank; rethrows nothing, counts failures.
void run_ranks(const Segment& seg, std::uint32_t world, const std::function<void(RankMember&)>& body) {
  std::vector<std::thread> threads;
  for (std::uint32_t r = 0; r < world; ++r)
    threads.emplace_back([&, r] {
      RankMember member(seg, 0, r, world, [] {});
      body(member);
    });
  for (auto& t : threads) t.join();
}

}  // namespace

TEST_CASE("no rank passes a barrier before every rank has reached it, generation after generation") {
  for (std::uint32_t world : {2u, 3u}) {
    auto seg = segment_for(world);
    std::atomic<int> arrivals{0};
    std::atomic<bool> early{false};
    constexpr int kRounds = 200;
    run_ranks(seg, world, [&](RankMember& m) {
      for (int round = 1; round <= kRounds; ++round) {
        arrivals.fetch_add(1);
        m.barrier();
        if (arrivals.load() < round * static_cast<int>(world)) early = true;
        m.barrier();  // nobody starts the next round's arrival before all have checked this one
      }
    });
    CHECK_FALSE(early.load());
    CHECK(arrivals.load() == kRounds * static_cast<int>(world));
  }
}

TEST_CASE("broadcast hands rank 0's bytes to every rank; all-gather stacks the ranks' blocks in rank order") {
  auto seg = segment_for(3);
  std::vector<std::vector<int>> gathered(3);
  std::vector<std::uint64_t> received(3);
  run_ranks(seg, 3, [&](RankMember& m) {
    std::uint64_t id = m.rank() == 0 ? 0x1234567890abcdefull : 0;
    m.broadcast(std::as_writable_bytes(std::span(&id, 1)));
    received[m.rank()] = id;
    for (int pass = 0; pass < 3; ++pass) {  // the area is reused: each pass sees its own blocks
      std::vector<int> mine(5, static_cast<int>(m.rank() * 10 + pass));
      std::vector<int> all(15);
      m.all_gather(std::as_bytes(std::span(mine)), std::as_writable_bytes(std::span(all)));
      gathered[m.rank()] = all;
    }
  });
  for (std::uint32_t r = 0; r < 3; ++r) {
    CHECK(received[r] == 0x1234567890abcdefull);
    for (int i = 0; i < 15; ++i) CHECK(gathered[r][i] == (i / 5) * 10 + 2);
  }
}

TEST_CASE("rank 0 gets every rank's part of a sample, and the sample is the slowest rank's") {
  auto seg = segment_for(3);
  std::vector<SampleValues> at_rank0;
  std::vector<std::size_t> sizes(3);
  run_ranks(seg, 3, [&](RankMember& m) {
    SampleValues mine{};
    mine.value_s = 1.0 + m.rank();  // rank 2 is the slowest
    mine.begin_ns = 100 - m.rank();
    mine.end_ns = 200 + m.rank();
    mine.sm_clock_mhz = 1800 - m.rank();
    mine.host_enqueue_s = 0.5 + m.rank();
    mine.flags = m.rank() == 1 ? std::uint32_t{flag_low_sm_clock} : 0u;
    const auto parts = m.gather_sample(2, mine);
    sizes[m.rank()] = parts.size();
    if (m.rank() == 0) at_rank0.assign(parts.begin(), parts.end());
  });
  CHECK(sizes == std::vector<std::size_t>{3, 0, 0});
  const SampleValues s = slowest_rank(at_rank0);
  CHECK(s.value_s == 3.0);
  CHECK(s.host_enqueue_s == 2.5);
  CHECK(s.begin_ns == 98);
  CHECK(s.end_ns == 202);
  CHECK(s.sm_clock_mhz == 1798);
  CHECK(s.flags == flag_low_sm_clock);
  // The orchestrator's reset clears the slot's parts before a retry measures it again.
  RankTable table(seg);
  CHECK(table.sample(2, 1).written == 1);
  const std::uint32_t slot = 2;
  reset_rank_group(table, 0, 3, std::span(&slot, 1));
  CHECK(table.sample(2, 1).written == 0);
}

TEST_CASE("a rank waiting at the barrier leaves when the group is aborted, and says who aborted it") {
  auto seg = segment_for(2);
  RankTable table(seg);
  std::string what;
  std::thread waiting([&] {
    RankMember m(seg, 0, 0, 2, [] {});
    try {
      m.barrier();  // rank 1 never comes
    } catch (const RankGroupAborted& e) {
      what = e.what();
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  abort_rank_group(table, 0, 1 + 1);  // rank 1 failed
  waiting.join();
  CHECK(what == "the rank group was aborted: rank 1 failed");
  // The first reason stays: the orchestrator's later abort does not overwrite it.
  abort_rank_group(table, 0, kAbortedByOrchestrator);
  CHECK(table.group(0).aborted == 2);
}

TEST_CASE("joining checks the table, the world size and the room for an all-gather") {
  auto seg = segment_for(2);
  CHECK_THROWS_WITH_AS(RankMember(seg, 0, 0, 3, [] {}),
                       "rank group 0 was set up for 2 ranks, this worker was told 3", std::runtime_error);
  CHECK_THROWS_AS(RankMember(seg, 9, 0, 2, [] {}), SegmentError);
  SegmentShape plain;
  plain.n_slots = 1;
  plain.instances_json = "[]";
  auto without = Segment::create(plain);
  CHECK_THROWS_WITH_AS(RankTable{without}, "this run's segment has no rank table", SegmentError);
  RankMember m(seg, 0, 0, 2, [] {});
  std::vector<std::byte> big(kRankDataBytes + 1), all(2 * big.size());
  CHECK_THROWS_WITH_AS(m.all_gather(big, all),
                       doctest::Contains("exceeds the 1048576 bytes of the segment's rank area"), std::runtime_error);
}

TEST_CASE("validate_rank_table accepts the table a run made and names what is wrong with a damaged one") {
  auto seg = segment_for(2);
  const auto start = seg.layout().rank_table_offset;
  const auto slots = seg.layout().n_slots;
  // A copy of the mapping, damaged field by field (any process of the user can write there).
  std::vector<char> bytes(static_cast<const char*>(seg.base()), static_cast<const char*>(seg.base()) + seg.size());
  CHECK(validate_rank_table(bytes.data(), bytes.size(), start, slots).empty());
  CHECK(validate_rank_table(bytes.data(), bytes.size(), start, slots + 1) == "rank table: counts out of range");
  CHECK(validate_rank_table(bytes.data(), bytes.size() - 1, start, slots) == "rank table: overruns the segment");
  CHECK(validate_rank_table(bytes.data(), start + 8, start, slots) == "this run's segment has no rank table");
  CHECK(validate_rank_table(bytes.data(), bytes.size(), bytes.size() + 64, slots) ==
        "this run's segment has no rank table");
  auto damaged = [&](std::size_t offset, std::uint64_t value, std::size_t width) {
    std::vector<char> copy = bytes;
    std::memcpy(copy.data() + start + offset, &value, width);
    return validate_rank_table(copy.data(), copy.size(), start, slots);
  };
  CHECK(damaged(offsetof(RankTableHeader, magic), 1, 8) == "rank table: bad magic");
  CHECK(damaged(offsetof(RankTableHeader, max_world), 1, 4) == "rank table: counts out of range");
  CHECK(damaged(offsetof(RankTableHeader, max_world), kMaxRanks + 1, 4) == "rank table: counts out of range");
  CHECK(damaged(offsetof(RankTableHeader, n_groups), 0, 4) == "rank table: counts out of range");
  CHECK(damaged(offsetof(RankTableHeader, data_offset), 1u << 30, 8) == "rank table: inconsistent layout");
  CHECK(damaged(offsetof(RankTableHeader, end_offset), 64, 8) == "rank table: inconsistent layout");
}

TEST_CASE("an instance's world size is its ranks parameter, 1 without one") {
  WorkerInstance in;
  in.id = "x";
  in.params = {{"m", 64}};
  CHECK(world_size(in) == 1);
  in.params["ranks"] = 4;
  CHECK(world_size(in) == 4);
  in.params["ranks"] = 9;
  CHECK_THROWS_WITH_AS(world_size(in), "x: ranks must be an integer from 1 to 8, got 9", std::runtime_error);
}
