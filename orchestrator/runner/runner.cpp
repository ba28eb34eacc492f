#include "runner.hpp"

#include <algorithm>

#include "ipc/segment.hpp"
#include "orchestrator/interrupt.hpp"
#include "orchestrator/rank_groups.hpp"
#include "lane_host.hpp"
#include "run_state.hpp"
#include "sample_intake.hpp"
#include "setup_phases.hpp"
#include "worker_pipelines.hpp"

namespace isobench::orchestrator {

namespace {

// The plan's measure tasks that the journal does not hold yet, as jobs in plan order.
std::deque<Job> measure_jobs(const RunState& s) {
  std::deque<Job> jobs;
  for (const auto& run : s.plan.schedule.runs) {
    Job job;
    job.what = "measure";
    job.side = run.side;
    for (const auto& t : run.tasks) {
      if (s.done_slots.count(t.slot)) continue;
      job.tasks.push_back({kMeasureTask, t.instance, t.slot, t.round});
      job.planned.push_back(t);
    }
    for (auto& part : split_by_world(s, job)) jobs.push_back(std::move(part));
  }
  return jobs;
}

// The algorithm, as nvbench's measure_cold reads: pin the settings, calibrate, pin the choices,
// measure, report, wait for the last worker.
void execute(RunState& s) {
  LaneHost lanes(s);
  SampleIntake intake(s);
  WorkerPipelines pipelines(s, lanes, intake);
  SetupPhases setup(s, pipelines);
  const auto start_time = Clock::now();
  s.outcome.samples_expected = s.plan.schedule.total_samples();
  s.outcome.samples_recorded = s.done_slots.size();
  for (std::uint32_t i = 0; i < s.plan.instances.size(); ++i) {
    auto& e = s.seg.instance(i);
    e.warmup = s.plan.instances[i].warmup;
    e.min_sample_time_s = s.plan.instances[i].min_sample_time_s;
    e.inner = s.plan.instances[i].inner;
  }
  if (!s.plan.calibrated()) {
    setup.calibrate();
    if (interrupt_requested()) {
      s.outcome.interrupted = true;
      return;
    }
    s.dir.write_json("plan.json", s.plan.to_json());
  }
  setup.pin_choices();
  if (interrupt_requested()) {
    s.outcome.interrupted = true;
    return;
  }
  s.progress.phase("measuring", s.outcome.samples_recorded);
  pipelines.run_jobs(measure_jobs(s));
  setup.write_instance_reports();
  setup.write_kernel_records();
  pipelines.wait_for_exits();
  s.progress.finish(s.outcome.samples_recorded, s.outcome.workers_started);
  s.outcome.wall_seconds = std::chrono::duration<double>(Clock::now() - start_time).count();
}

}  // namespace

Runner::Runner(const RunDirectory& dir, Plan& plan, RunnerOptions options, RunLog& log)
    : dir_(dir), plan_(plan), options_(std::move(options)), log_(log) {}

RunOutcome Runner::run() {
  for (const auto& name : ipc::remove_stale_segments())
    log_.write("stale-segment", "removed " + name + " (its orchestrator is gone)");

  // Samples already journaled (a resumed run) are not measured again.
  const auto journal = read_journal(dir_.file("samples.jsonl"));
  if (journal.dropped_torn_tail) {
    truncate_journal(dir_.file("samples.jsonl"), journal.valid_bytes);
    log_.write("journal", "dropped a torn last line of samples.jsonl");
  }
  std::set<std::uint32_t> done;
  for (const auto& s : journal.samples) done.insert(s.slot);

  std::size_t max_tasks = plan_.instances.size();
  for (const auto& r : plan_.schedule.runs) max_tasks = std::max(max_tasks, r.tasks.size());
  std::vector<ipc::WorkerInstance> table;
  for (const auto& p : plan_.instances) table.push_back(p.worker);
  ipc::SegmentShape shape;
  shape.n_instances = static_cast<std::uint32_t>(plan_.instances.size());
  shape.n_slots = plan_.schedule.n_instances * plan_.schedule.samples * plan_.schedule.sides;
  // Each GPU's pipeline: the measuring worker, the pre-started ones, and one being replaced.
  const auto n_gpus = plan_gpus(plan_, options_.device).size();
  shape.n_lanes = static_cast<std::uint32_t>(n_gpus * (2 + std::max(0, options_.prestart)));
  shape.tasks_per_lane = static_cast<std::uint32_t>(max_tasks);
  shape.instances_json = ipc::encode_instances(table);
  const auto worlds = instance_worlds(plan_.instances);
  const std::uint32_t max_world = worlds.empty() ? 1 : *std::max_element(worlds.begin(), worlds.end());
  make_room_for_ranks(shape, max_world);
  auto seg = ipc::Segment::create(shape);
  if (max_world > 1) ipc::init_rank_table(seg, shape.n_lanes, max_world);
  log_.write("segment", "created " + seg.name() + " (" + std::to_string(seg.size()) + " bytes)");

  RunState state(dir_, plan_, options_, log_, std::move(seg), std::move(done));
  execute(state);
  return state.outcome;
}

}  // namespace isobench::orchestrator
