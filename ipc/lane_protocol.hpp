#pragma once
// The lane protocol: how the orchestrator and one worker process hand a lane of the segment back
// and forth, written once for both sides. A lane is a worker's mailbox: the orchestrator writes
// its tasks and flags, the worker its state, heartbeat, milestones and error.
//
// A worker's life, in the order of LaneState (each step a state the worker stores):
//
//   orchestrator                         worker
//   writes tasks, token, flags
//   state = assigned, spawns  ------->   validates the segment, writes pid
//                                        state = attached
//   context_permit = 1 (gated lanes) ->  creates its device context
//                                        state = waiting
//   release = 1 (held lanes)  ------->   sets up and warms up its instances (untimed)
//                                        state = setting_up, then prepared (gated lanes)
//   measure_permit = 1 (gated, batched) >  state = measuring: times its tasks, seals each slot
//                                        state = done (or failed, with error, from any state)
//   exit_permit = 1 (batched)  ------>   tears down (buffers, device context) and exits
//
// A held lane (hold_for_release) waits in `waiting` for `release`; a gated lane (context_gate)
// also waits in `attached` for `context_permit` and in `prepared` for `measure_permit`. The
// orchestrator grants a context permit only while no worker of the GPU measures, and a measure
// permit only while no other worker creates a context or exits (docs/measurement.md). A batched
// lane (a set-up batch: several workers released into their set-up at once, then measured one
// after another) is held, waits in `prepared` for `measure_permit` with or without the gate, and
// once `done` waits for `exit_permit` before it tears anything down.

#include <cstdint>
#include <iterator>
#include <string_view>

namespace isobench::ipc {

inline constexpr std::uint32_t kErrorBytes = 512;
// A CUDA device's identity as a worker reports it: "GPU-" and a 36-character UUID, and its name.
inline constexpr std::uint32_t kDeviceUuidBytes = 48;
inline constexpr std::uint32_t kDeviceNameBytes = 96;

// In lifecycle order: a worker only ever moves to a later state, or to failed.
enum class LaneState : std::uint32_t {
  empty = 0,       // no worker assigned
  assigned = 1,    // tasks written, worker spawned by the orchestrator
  attached = 2,    // worker validated the segment; waits here for a context permit if gated
  waiting = 3,     // process and device context ready; waits for release if held (pre-start)
  setting_up = 4,  // released: allocating, filling inputs, warming up (untimed)
  prepared = 5,    // set up and warmed up; waits for the measure permit if gated
  measuring = 6,
  done = 7,        // every task finished and reported
  failed = 8,      // the worker caught an error; see error
};

constexpr std::string_view to_string(LaneState state) {
  constexpr std::string_view names[] = {"empty",    "assigned",  "attached", "waiting", "setting_up",
                                        "prepared", "measuring", "done",     "failed"};
  const auto i = static_cast<std::uint32_t>(state);
  return i < std::size(names) ? names[i] : std::string_view("unknown");
}

// The one-step transitions a worker makes: assigned -> attached -> waiting -> setting_up ->
// (prepared ->) measuring -> done, and to failed from any state a worker holds. The worker
// checks every store against this; nothing else moves a lane.
constexpr bool allowed_transition(LaneState from, LaneState to) {
  using S = LaneState;
  if (to == S::failed) return from != S::empty && from != S::done && from != S::failed;
  switch (from) {
    case S::assigned: return to == S::attached;
    case S::attached: return to == S::waiting;
    case S::waiting: return to == S::setting_up;
    case S::setting_up: return to == S::prepared || to == S::measuring;
    case S::prepared: return to == S::measuring;
    case S::measuring: return to == S::done;
    default: return false;
  }
}

// Whether a lane seen in `from` may be seen in `to` at the orchestrator's next look, which can
// miss the states in between: a later state in lifecycle order (failed is the last). A lane that
// moves any other way was written by something that is not its worker.
constexpr bool reachable(LaneState from, LaneState to) {
  if (from == to) return true;
  if (from == LaneState::empty || from == LaneState::done || from == LaneState::failed) return false;
  const auto t = static_cast<std::uint32_t>(to);
  return t > static_cast<std::uint32_t>(from) && t <= static_cast<std::uint32_t>(LaneState::failed);
}

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
  // A set-up batch (orchestrate --setup-batch): with `batched` set the worker is released with
  // the others of its batch, measures only once measure_permit is set, and once done keeps its
  // buffers and context until exit_permit is set, so that its teardown does not run beside its
  // batch-mates' measurements.
  std::uint32_t batched;
  std::uint32_t exit_permit;       // (atomic)
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

}  // namespace isobench::ipc
