#include "lane_host.hpp"

#include <cstring>
#include <stdexcept>

#include "orchestrator/rank_groups.hpp"

namespace isobench::orchestrator {

using ipc::load_acquire;
using ipc::store_release;

namespace {

std::vector<std::uint32_t> measured_slots(const Job& job) {
  std::vector<std::uint32_t> slots;
  for (const auto& t : job.tasks)
    if (t.kind == kMeasureTask) slots.push_back(t.slot);
  return slots;
}

}  // namespace

std::unique_ptr<Worker> LaneHost::start(Job job, bool ahead, bool batched) {
  const std::uint32_t world = s_.world_of(job);
  const std::size_t pipe = s_.pipe_of(job);
  if (batched && world != 1) throw std::logic_error("a multi-rank job in a set-up batch");
  if (world == 1) return start_rank(std::move(job), ahead, batched, 0, 1, 0, pipe);
  auto w = start_rank(job, ahead, false, 0, world, 0, pipe);
  for (std::uint32_t r = 1; r < world; ++r) w->peers.push_back(start_rank(job, ahead, false, r, world, w->group, pipe));
  return w;
}

// One worker process: rank `rank` of `world` in rank group `group` (rank 0's group is its lane),
// on its pipeline's GPU + rank: one GPU per rank.
std::unique_ptr<Worker> LaneHost::start_rank(Job job, bool ahead, bool batched, std::uint32_t rank, std::uint32_t world,
                                             std::uint32_t group, std::size_t pipe) {
  const bool gated = s_.options.context_gate && rank == 0;
  const bool hold = gated || batched || (ahead && rank == 0);
  if (s_.free_lanes.empty()) throw std::logic_error("no free lane");
  auto w = std::make_unique<Worker>();
  w->lane = s_.free_lanes.back();
  s_.free_lanes.pop_back();
  w->job = std::move(job);
  w->token = s_.token_rng() | 1;
  w->serial = s_.next_serial++;
  w->world = world;
  w->rank = rank;
  w->group = rank == 0 ? w->lane : group;
  w->pipe = pipe;
  if (world > 1 && rank == 0) ipc::reset_rank_group(*s_.rank_table, w->group, world, measured_slots(w->job));
  ipc::Lane& lane = s_.seg.lane(w->lane);
  std::memset(&lane, 0, sizeof lane);
  lane.token = w->token;
  lane.n_tasks = static_cast<std::uint32_t>(w->job.tasks.size());
  lane.hold_for_release = hold ? 1 : 0;
  lane.context_gate = gated ? 1 : 0;
  lane.batched = batched ? 1 : 0;
  lane.side = w->job.side;  // which side's kernel record buffer the worker writes
  std::memcpy(s_.seg.lane_tasks(w->lane), w->job.tasks.data(), w->job.tasks.size() * sizeof(ipc::Task));
  for (const auto& t : w->job.tasks)
    if (t.kind == kMeasureTask) s_.seg.slot(t.slot) = ipc::SampleSlot{};
  store_release(lane.state, static_cast<std::uint32_t>(ipc::LaneState::assigned));

  const int gpu = s_.pipes[pipe].gpu + static_cast<int>(rank);
  const WorkerCommand& command = s_.options.workers.at(w->job.side);
  std::vector<std::string> args = {"--segment", s_.seg.name(),           "--lane",   std::to_string(w->lane),
                                   "--token",   std::to_string(w->token), "--device", std::to_string(gpu)};
  if (!s_.options.artifact_root.empty())
    args.insert(args.end(), {"--artifact-root", s_.options.artifact_root + "/side-" + std::to_string(w->job.side)});
  if (world > 1) {
    const auto ranks = rank_args(rank, world, w->group);
    args.insert(args.end(), ranks.begin(), ranks.end());
  }
  args.insert(args.end(), command.extra_args.begin(), command.extra_args.end());
  w->started = Clock::now();
  lane.spawned_ns = ipc::monotonic_ns();
  try {
    const auto round =
        w->job.planned.empty() ? std::nullopt : std::optional<std::uint32_t>(w->job.planned.front().round);
    w->proc = command.launcher ? command.launcher->start(args, round)
                               : std::make_unique<WorkerProcess>(command.executable, args, s_.worker_output.get());
  } catch (...) {
    s_.free_lanes.push_back(w->lane);
    throw;
  }
  ++s_.outcome.workers_started;
  s_.log.write("worker-start",
               "worker " + std::to_string(w->serial) + " pid " + std::to_string(w->proc->pid()) + " lane " +
                   std::to_string(w->lane) + " side " + std::to_string(w->job.side) + " gpu " + std::to_string(gpu) +
                   ": " + std::to_string(w->job.tasks.size()) + " " + w->job.what + " tasks" +
                   (ahead ? " (pre-started)" : "") +
                   (rank > 0 ? " (rank " + std::to_string(rank) + " of group " + std::to_string(w->group) + ")" : ""));
  w->permitted = !gated;
  w->measure_permitted = !gated && !batched;
  w->batched = batched;
  if (!hold) w->released = true;
  return w;
}

ipc::LaneState LaneHost::state(Worker& w) {
  const auto now = static_cast<ipc::LaneState>(load_acquire(s_.seg.lane(w.lane).state));
  if (!w.broken.empty()) return w.seen;
  if (!ipc::reachable(w.seen, now)) {
    w.broken = "its lane went from " + std::string(ipc::to_string(w.seen)) + " to state " +
               std::to_string(static_cast<std::uint32_t>(now)) + " (" + std::string(ipc::to_string(now)) +
               "), which the lane protocol does not allow: another process wrote it";
    s_.log.write("lane-broken", "worker " + std::to_string(w.serial) + ": " + w.broken);
    return w.seen;
  }
  w.seen = now;
  return now;
}

double LaneHost::silent_seconds(const Worker& w) const {
  const std::uint64_t beat = load_acquire(s_.seg.lane(w.lane).heartbeat_ns);
  return beat ? (ipc::monotonic_ns() - beat) / 1e9 : std::chrono::duration<double>(Clock::now() - w.started).count();
}

// A context may be created while the head is not yet in its timed phase: the head's own, and then
// the next worker's while the head sets up and warms up (untimed work; setting up costs about as
// long as a context on the H200, so the two overlap). The head starts its timed phase only once no
// other worker is creating a context or exiting.
bool LaneHost::admit(Worker& head, Worker* next) {
  bool changed = false;
  if (!head.permitted) changed |= permit_context(head);
  if (!head.released && head.permitted && state(head) == ipc::LaneState::waiting && fits_beside_exiting(head)) {
    release(head);
    changed = true;
  }
  if (head.measure_permitted) return changed;
  if (next && head.released && !next->permitted) changed |= permit_context(*next);
  if (state(head) != ipc::LaneState::prepared || !s_.pipes[head.pipe].exiting.empty() ||
      (next && creating_context(*next)))
    return changed;
  permit_measure(head);
  return true;
}

// Whether the worker may set up (allocate) while earlier workers are still exiting: on each GPU
// it uses, what they still hold plus what it allocates must fit in the memory budget. A sweep
// split into memory groups fills the budget, and a worker released beside the previous group's
// teardown ran out of memory on the two-H200 machine.
bool LaneHost::fits_beside_exiting(const Worker& w) const {
  const auto& exiting = s_.pipes[w.pipe].exiting;
  if (exiting.empty() || s_.options.memory_budget_bytes == 0) return true;
  const std::uint64_t mine = s_.device_bytes_of(w.job);
  for (std::uint32_t rank = 0; rank < w.world; ++rank) {
    std::uint64_t held = 0;
    for (const auto& e : exiting)
      if (e.rank == rank) held += e.device_bytes;
    if (held + mine > s_.options.memory_budget_bytes) return false;
  }
  return true;
}

bool LaneHost::permit_context(Worker& w) {
  w.permit_ns = ipc::monotonic_ns();
  store_release(s_.seg.lane(w.lane).context_permit, std::uint32_t{1});
  w.permitted = true;
  return true;
}

void LaneHost::release(Worker& w) {
  w.released_ns = ipc::monotonic_ns();
  store_release(s_.seg.lane(w.lane).release, std::uint32_t{1});
  w.released = true;
}

void LaneHost::permit_measure(Worker& w) {
  w.measure_permit_ns = ipc::monotonic_ns();
  store_release(s_.seg.lane(w.lane).measure_permit, std::uint32_t{1});
  w.measure_permitted = true;
}

void LaneHost::permit_exit(ExitingWorker& e) {
  if (!e.lane) throw std::logic_error("an exit permit for a worker without its lane");
  e.exit_permit_ns = ipc::monotonic_ns();
  store_release(s_.seg.lane(*e.lane).exit_permit, std::uint32_t{1});
  e.exit_held = false;
  e.since = Clock::now();
}

// Permitted, and its device context not made yet.
bool LaneHost::creating_context(Worker& w) {
  const auto now = state(w);
  return w.permitted && (now == ipc::LaneState::assigned || now == ipc::LaneState::attached);
}

}  // namespace isobench::orchestrator
