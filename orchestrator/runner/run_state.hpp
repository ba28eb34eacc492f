#pragma once
// What the parts of one plan's execution share (orchestrator/runner/): the jobs and the worker
// processes that run them, the per-GPU pipelines, the segment, the journal and the outcome. The
// parts are LaneHost (the orchestrator's side of the lane protocol), SampleIntake (samples from
// the slots into the journal), WorkerPipelines (starting, watching, retiring and retrying
// workers) and SetupPhases (calibration, pinning, reports); Runner drives them.

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ipc/rank_group.hpp"
#include "ipc/segment.hpp"
#include "orchestrator/compare/sequential_verdict.hpp"
#include "orchestrator/progress.hpp"
#include "orchestrator/run_directory.hpp"
#include "orchestrator/sample_journal.hpp"
#include "orchestrator/worker_process.hpp"
#include "runner.hpp"

namespace isobench::orchestrator {

using Clock = std::chrono::steady_clock;

inline constexpr auto kMeasureTask = static_cast<std::uint32_t>(ipc::TaskKind::measure);

// One worker process's share of the plan: its tasks in order, and which build runs them.
struct Job {
  std::string what;  // "measure", "calibration" or "describe"
  std::vector<ipc::Task> tasks;
  std::vector<PlannedSample> planned;  // parallel to tasks for measure jobs
  std::uint32_t side = 0;
  int attempt = 0;
};

// A started worker process on a lane of the segment.
struct Worker {
  Job job;
  std::uint32_t lane = 0;
  std::uint64_t token = 0;
  std::uint64_t serial = 0;
  std::unique_ptr<WorkerHandle> proc;
  Clock::time_point started;
  std::size_t next_task = 0;  // tasks are journaled in plan order
  bool permitted = false;          // may create its device context
  std::uint64_t permit_ns = 0;
  bool measure_permitted = false;  // may start its timed phase
  std::uint64_t measure_permit_ns = 0;
  bool released = false;
  std::uint64_t released_ns = 0;
  // A worker of a set-up batch (setup_batches.hpp): its lane is batched, and `batch` numbers the
  // batch it was released with (0 until then).
  bool batched = false;
  std::uint64_t batch = 0;
  // Permitted its context as one of a batch's, released with other workers, or seen setting up
  // while another did: a failure before it measured may be for want of what they held (device
  // memory for a context or a set-up; worker_pipelines.cpp).
  bool beside_batch_mates = false;
  ipc::LaneState seen = ipc::LaneState::assigned;  // the lane's state at the last look
  std::string rejected;  // why a sample of this worker was rejected, if one was
  std::string broken;    // how its lane broke the lane protocol, if it did: it is killed
  // A multi-rank job (docs/multi-rank.md): this worker is rank 0 of `world`, the other ranks are
  // `peers`, started with it and stopped with it. The group's index is rank 0's lane.
  std::uint32_t world = 1;
  std::uint32_t rank = 0;
  std::uint32_t group = 0;
  std::vector<std::unique_ptr<Worker>> peers;
  std::size_t pipe = 0;  // which GPU's pipeline it belongs to
  // Started for a job of the next run_jobs call (Pipeline::next_call): it waits, as a pre-started
  // worker does, and is never released until that call takes it.
  bool for_next_call = false;
};

// A worker that reported everything and is tearing down on its own (its CUDA context, its
// buffers): the orchestrator does not wait for it, but with the context gate no worker starts
// its timed phase while one is still exiting.
struct ExitingWorker {
  std::unique_ptr<WorkerHandle> proc;
  std::uint64_t serial = 0;
  Clock::time_point since;
  std::uint32_t rank = 0;          // its GPU is its pipeline's GPU + rank
  std::uint64_t device_bytes = 0;  // what its instances held there, until it is gone
  // A rank beyond 0 keeps its lane until it is gone: rank 0 may report done first, and a rank
  // still finishing writes its lane, which another worker would already be using. So does a
  // worker of a set-up batch: it reads its exit permit there.
  std::optional<std::uint32_t> lane;
  // A worker of a set-up batch holds its exit (its buffers and context kept) until it is
  // permitted; `since` counts from the permit. exit_permit_ns: when it was permitted (0: it was
  // never held, the worker exits on its own).
  bool exit_held = false;
  std::uint64_t exit_permit_ns = 0;
  // A worker started for the next call whose job that call did not bring: killed, never measured.
  bool dropped = false;
};

// One GPU's share of the run (--gpus): its jobs in plan order, the workers started for them
// (the head measures, the others wait pre-started behind it) and those still exiting. Each
// pipeline runs as an ordinary run does on one GPU, context gate included, and all of them at
// once; a run on one GPU has one.
struct Pipeline {
  int gpu = 0;
  std::deque<Job> jobs;
  // The jobs the next run_jobs call will most likely bring (the next look's, the measurement's
  // after calibration): once `jobs` have all started, pre-start reaches into these.
  std::deque<Job> next_call;
  std::deque<std::unique_ptr<Worker>> active;
  std::vector<ExitingWorker> exiting;
};

// The workers' stdout and stderr, appended to workers.log.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  std::FILE* get() const { return f_; }

 private:
  std::FILE* f_;
};

struct RunState {
  RunState(const RunDirectory& dir, Plan& plan, const RunnerOptions& options, RunLog& log, ipc::Segment seg,
           std::set<std::uint32_t> done_slots);
  ~RunState();  // kills whatever is still exiting: no worker outlives the run
  RunState(const RunState&) = delete;
  RunState& operator=(const RunState&) = delete;

  // The pipeline of the GPU the job's instances run on (jobs are split so that each has one).
  std::size_t pipe_of(const Job& job) const;
  // Jobs are split so that each has one world size (split_by_world): its first task's.
  std::uint32_t world_of(const Job& job) const;
  // The device memory the job's instances take on each of its GPUs (plan's device_bytes).
  std::uint64_t device_bytes_of(const Job& job) const;
  // A calibrate task is done once the inner count is written, a describe task once the report is.
  bool setup_task_done(const ipc::Task& t) const;

  const RunDirectory& dir;
  Plan& plan;
  const RunnerOptions& options;
  RunLog& log;
  ipc::Segment seg;
  SampleJournal journal;
  OutputFile worker_output;
  std::set<std::uint32_t> done_slots;
  std::mt19937_64 token_rng{std::random_device{}()};
  std::uint64_t next_serial = 0;
  std::uint64_t next_batch = 1;  // set-up batches are numbered from 1 in the order released
  std::vector<std::uint32_t> free_lanes;
  std::deque<Pipeline> pipes;  // one per GPU the plan's instances run on (a deque: never relocated)
  RunOutcome outcome;
  Progress progress;
  std::vector<std::uint32_t> worlds;        // world size of each instance, by index
  std::optional<ipc::RankTable> rank_table;  // runs with a multi-rank instance only
  // Every journaled value, by instance and side, keyed by sample index: what a look of sequential
  // sampling decides from (ab --until-verdict).
  std::vector<std::array<SamplesByIndex, 2>> values;
};

// Text a worker wrote into the segment, as something safe to log and to put into JSON: any
// process of the user can write there, so bytes outside printable ASCII become '?'.
std::string printable_text(const char* field, std::size_t field_bytes);

}  // namespace isobench::orchestrator
