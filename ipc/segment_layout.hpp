#pragma once
// The shared-memory protocol between the orchestrator and its workers: a fixed, versioned layout
// of plain structs. The orchestrator creates the segment (mode 0600, unpredictable name), fills
// the instance table and each lane's task list, then spawns workers; a worker checks the header
// before it writes anything, and writes only its own lane and the sample slots of its tasks.
// Fields that cross processes while both run are accessed through std::atomic_ref.
//
// Memory layout, every table 64-byte aligned:
//   Header | instances JSON (text) | InstanceEntry[n_instances] | Lane[n_lanes]
//          | Task[n_lanes * tasks_per_lane] | SampleSlot[n_slots] | rank table (multi-rank runs)

#include <cstdint>
#include <type_traits>

#include "lane_protocol.hpp"
#include "sample.hpp"

namespace isobench::ipc {

inline constexpr std::uint64_t kMagic = 0x48434E45424F5349ULL;  // "ISOBENCH" little-endian
inline constexpr std::uint32_t kProtocolVersion = 6;
inline constexpr std::uint32_t kReportBytes = 2048;
// One side's kernel record of an instance: JSON text (see worker/kernel_record.hpp). Kernel names
// of templated libraries are long; a record that does not fit drops its smallest kernels.
inline constexpr std::uint32_t kKernelRecordBytes = 8192;
inline constexpr std::uint32_t kMaxSides = 2;  // baseline and candidate of an A/B run

struct Header {
  std::uint64_t magic;
  std::uint32_t version;
  std::uint32_t header_bytes;
  std::uint64_t total_bytes;
  std::int32_t owner_pid;  // the orchestrator; a dead owner marks the segment stale
  std::uint32_t n_instances;
  std::uint32_t n_slots;
  std::uint32_t n_lanes;
  std::uint32_t tasks_per_lane;
  std::uint32_t instances_json_bytes;
  std::uint64_t instances_json_offset;
  std::uint64_t instances_offset;
  std::uint64_t lanes_offset;
  std::uint64_t tasks_offset;
  std::uint64_t slots_offset;
  // The rank-group table of multi-rank runs (ipc/rank_group.hpp), after the slots; 0 bytes in
  // runs without one. It validates its own inner layout; the header bounds it.
  std::uint64_t rank_table_offset;
  std::uint64_t rank_table_bytes;
  std::uint32_t struct_sizes[4];  // sizeof InstanceEntry, Lane, Task, SampleSlot
};

// Pinned settings of one instance (written by the orchestrator), and what a calibrating or
// first-setting-up worker reports back about it.
struct InstanceEntry {
  std::uint32_t inner;          // launches per sample; 0 until calibrated
  std::uint32_t warmup;         // warm-up launches before the first sample in a worker
  double min_sample_time_s;     // target of the inner-count calibration
  std::uint32_t calibrated;     // 1 once a calibrate task wrote calibrated_inner (atomic)
  std::uint32_t calibrated_inner;
  double calibrated_seconds_per_launch;
  std::uint64_t calibrated_by_token;
  std::uint32_t report_ready;   // 1 once `report` holds a complete JSON object (atomic)
  std::uint32_t reserved;
  char report[kReportBytes];    // {"setup_note":..., "describe":{...}} from the worker
  // What the worker must replay (written by the orchestrator before it spawns measuring workers):
  // an earlier describe() of this instance, e.g. the cuBLASLt algorithm to run, so every worker
  // and both sides of an A/B run measure the same algorithm. Empty text: nothing pinned.
  char pin[kReportBytes];
  // The CUDA kernels one untimed pass of the instance ran (--record-kernels), per side: both sides
  // of an A/B run share this table, and their builds may run different kernels. The first worker
  // of a side to record claims the buffer (kernel_records_state empty -> writing), writes it and
  // publishes it (-> ready); see ipc/kernel_record_buffer.hpp.
  std::uint32_t kernel_records_state[kMaxSides];  // KernelRecordState (atomic)
  char kernel_records[kMaxSides][kKernelRecordBytes];
};

enum class KernelRecordState : std::uint32_t { empty = 0, writing = 1, ready = 2 };

// describe: set up and warm up the instance and report it (the run's pinning phase), nothing else.
enum class TaskKind : std::uint32_t { measure = 0, calibrate = 1, describe = 2 };

struct Task {
  std::uint32_t kind;      // TaskKind
  std::uint32_t instance;  // index into the instance table
  std::uint32_t slot;      // index into the sample table (measure tasks)
  std::uint32_t round;
};

enum class SlotState : std::uint32_t { empty = 0, written = 1 };

struct SampleSlot {
  std::uint32_t state;        // SlotState (atomic): set to written last, with release order
  std::uint32_t instance;     // must equal the task's instance
  std::uint64_t token;        // the writer's token: must be the lane's that owns the task
  SampleValues values;        // the sample (ipc/sample.hpp)
  std::uint64_t seal;         // seal_of() the fields above, keyed by the writer's token
};

// A keyed hash of a written slot's contents (every field but state and seal) and of its index.
// The worker seals what it wrote; the orchestrator recomputes it on its own copy, so bytes that
// another process changed after the worker wrote them (a value, a time) are rejected, not
// recorded. It guards against damage and stray writes, not against a process that reads the
// token out of the segment.
inline std::uint64_t seal_of(const SampleSlot& s, std::uint32_t slot_index) {
  auto mix = [](std::uint64_t h, std::uint64_t v) {  // splitmix64 over the running hash
    std::uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  auto bits = [](double d) {
    std::uint64_t b = 0;
    static_assert(sizeof(double) == sizeof(std::uint64_t));
    __builtin_memcpy(&b, &d, sizeof b);
    return b;
  };
  const SampleValues& v = s.values;
  std::uint64_t h = mix(s.token, slot_index);
  for (std::uint64_t x : {std::uint64_t{s.instance}, bits(v.value_s), bits(v.sm_clock_mhz), std::uint64_t{v.flags},
                          std::uint64_t{v.inner}, v.begin_ns, v.end_ns, bits(v.host_enqueue_s), bits(v.kernel_gpu_s)})
    h = mix(h, x);
  return h;
}

static_assert(std::is_trivially_copyable_v<Header>);
static_assert(std::is_trivially_copyable_v<InstanceEntry>);
static_assert(std::is_trivially_copyable_v<Lane>);
static_assert(std::is_trivially_copyable_v<Task>);
static_assert(std::is_trivially_copyable_v<SampleSlot>);

}  // namespace isobench::ipc
