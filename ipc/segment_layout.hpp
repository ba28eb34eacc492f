#pragma once
// The shared-memory protocol between the orchestrator and its workers: a fixed, versioned layout
// of plain structs. The orchestrator creates the segment (mode 0600, unpredictable name), fills
// the instance table and each lane's task list, then spawns workers; a worker checks the header
// before it writes anything, and writes only its own lane and the sample slots of its tasks.
// Fields that cross processes while both run are accessed through std::atomic_ref.
//
// Memory layout, every table 64-byte aligned:
//   Header | instances JSON (text) | InstanceEntry[n_instances] | Lane[n_lanes]
//          | Task[n_lanes * tasks_per_lane] | SampleSlot[n_slots]

#include <cstdint>
#include <type_traits>

namespace isobench::ipc {

inline constexpr std::uint64_t kMagic = 0x48434E45424F5349ULL;  // "ISOBENCH" little-endian
inline constexpr std::uint32_t kProtocolVersion = 4;
inline constexpr std::uint32_t kErrorBytes = 512;
inline constexpr std::uint32_t kReportBytes = 2048;
// One side's kernel record of an instance: JSON text (see worker/kernel_record.hpp). Kernel names
// of templated libraries are long; a record that does not fit drops its smallest kernels.
inline constexpr std::uint32_t kKernelRecordBytes = 8192;
inline constexpr std::uint32_t kMaxSides = 2;  // baseline and candidate of an A/B run
// A CUDA device's identity as a worker reports it: "GPU-" and a 36-character UUID, and its name.
inline constexpr std::uint32_t kDeviceUuidBytes = 48;
inline constexpr std::uint32_t kDeviceNameBytes = 96;

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

enum class LaneState : std::uint32_t {
  empty = 0,        // no worker assigned
  assigned = 1,     // tasks written, worker spawned by the orchestrator
  attached = 2,     // worker validated the segment; waits here for a context permit if held
  setting_up = 3,   // released: allocating, filling inputs, warming up (untimed)
  waiting = 4,      // process and device context ready; waiting for release (pre-start barrier)
  measuring = 5,
  done = 6,         // every task finished and reported
  failed = 7,       // the worker caught an error; see error
  prepared = 8,     // set up and warmed up; waiting for the measure permit (context gate)
};

struct Lane {
  std::uint32_t state;          // LaneState (atomic)
  std::int32_t pid;             // written by the worker
  std::uint64_t token;          // the worker's identity, given on its command line
  std::uint64_t heartbeat_ns;   // CLOCK_MONOTONIC, bumped on every step (atomic)
  std::uint32_t n_tasks;
  std::uint32_t tasks_done;     // (atomic)
  std::uint32_t hold_for_release;  // 1: wait in `waiting` until release becomes 1
  std::uint32_t release;        // (atomic)
  std::uint32_t side;           // which build runs the lane's tasks (0 baseline, 1 candidate)
  // The context gate: with context_gate set, the worker creates its device context only once
  // the orchestrator sets context_permit, and starts its timed phase only once it sets
  // measure_permit. The orchestrator grants a context permit only while no worker measures and
  // a measure permit only while no other worker creates a context or exits.
  std::uint32_t context_gate;
  std::uint32_t context_permit;  // (atomic)
  std::uint32_t measure_permit;  // (atomic)
  std::uint64_t measure_begin_ns;  // CLOCK_MONOTONIC, around the measuring phase
  std::uint64_t measure_end_ns;
  // CLOCK_MONOTONIC milestones of a worker's start-up, for the journal: where a fresh process's
  // cost goes (spawn and loading, CUDA context, waiting for release).
  std::uint64_t spawned_ns;        // the orchestrator, just before it starts the process
  std::uint64_t attached_ns;       // the worker validated the segment (main() has run)
  std::uint64_t context_begin_ns;  // the worker began creating its device context (permit seen)
  std::uint64_t device_ready_ns;   // the worker's device context exists (CUDA) or none is needed
  std::uint64_t prepared_ns;       // set up and warmed up, about to measure (or to wait for it)
  // The CUDA device the worker opened, written before device_ready_ns (both NUL-terminated;
  // empty when it opened none): every sample the worker writes was taken there, and the
  // orchestrator journals it with each one, so that compare never pairs two GPUs by accident.
  char device_uuid[kDeviceUuidBytes];
  char device_name[kDeviceNameBytes];
  char error[kErrorBytes];      // NUL-terminated, set with state failed
};

enum class SlotState : std::uint32_t { empty = 0, written = 1 };

enum SampleFlag : std::uint32_t {
  flag_low_sm_clock = 1u << 0,
  flag_graph_fallback = 1u << 1,
};

struct SampleSlot {
  std::uint32_t state;        // SlotState (atomic): set to written last, with release order
  std::uint32_t instance;     // must equal the task's instance
  std::uint64_t token;        // the writer's token: must be the lane's that owns the task
  double value_s;             // the sample: seconds per launch
  double sm_clock_mhz;
  std::uint32_t flags;        // SampleFlag bits
  std::uint32_t inner;
  std::uint64_t begin_ns;     // CLOCK_MONOTONIC around the timed region
  std::uint64_t end_ns;
  double host_enqueue_s;      // host time spent queueing the launches, per launch (0: unknown)
  double kernel_gpu_s;        // GPU time of the kernels per launch, from this worker's record
                              // pass (--record-kernels); 0 when not recorded
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
  std::uint64_t h = mix(s.token, slot_index);
  for (std::uint64_t v : {std::uint64_t{s.instance}, bits(s.value_s), bits(s.sm_clock_mhz), std::uint64_t{s.flags},
                          std::uint64_t{s.inner}, s.begin_ns, s.end_ns, bits(s.host_enqueue_s),
                          bits(s.kernel_gpu_s)})
    h = mix(h, v);
  return h;
}

static_assert(std::is_trivially_copyable_v<Header>);
static_assert(std::is_trivially_copyable_v<InstanceEntry>);
static_assert(std::is_trivially_copyable_v<Lane>);
static_assert(std::is_trivially_copyable_v<Task>);
static_assert(std::is_trivially_copyable_v<SampleSlot>);

}  // namespace isobench::ipc
