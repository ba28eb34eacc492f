#include "runner.hpp"

#include <algorithm>
#include <climits>

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

// The plan's measure tasks that the journal does not hold yet, as jobs in plan order: those of
// rounds below `rounds` (and from `from`), of instances not `stopped` (sequential sampling's looks).
std::deque<Job> measure_jobs(const RunState& s, std::uint32_t rounds = UINT32_MAX,
                             const std::vector<bool>* stopped = nullptr, std::uint32_t from = 0) {
  std::deque<Job> jobs;
  for (const auto& run : s.plan.schedule.runs) {
    Job job;
    job.what = "measure";
    job.side = run.side;
    for (const auto& t : run.tasks) {
      if (s.done_slots.count(t.slot) || t.round >= rounds || t.round < from || (stopped && (*stopped)[t.instance]))
        continue;
      job.tasks.push_back({kMeasureTask, t.instance, t.slot, t.round});
      job.planned.push_back(t);
    }
    if (job.tasks.empty()) continue;
    for (auto& part : split_by_world(s, job)) jobs.push_back(std::move(part));
  }
  return jobs;
}

// The most samples a sequential run can still end with: those taken, and the rounds up to `cap`
// of the instances still running.
std::size_t most_samples(const RunState& s, std::size_t cap, const std::vector<bool>& stopped) {
  std::size_t most = s.done_slots.size();
  for (const auto& run : s.plan.schedule.runs)
    for (const auto& t : run.tasks)
      most += !s.done_slots.count(t.slot) && t.round < cap && !stopped[t.instance] ? 1 : 0;
  return most;
}

// Sequential sampling (ab --until-verdict): the rounds up to each look, then each instance still
// running asks the design whether to stop; an instance that stopped takes no more samples. The
// decisions are replayed from the journal's values, so a resumed run decides as the first start
// did, and compare (orchestrator/compare/sequential_verdict.hpp) gives the same verdicts.
void run_looks(RunState& s, WorkerPipelines& pipelines) {
  const SequentialPlan& plan = *s.plan.sequential;
  const auto design = plan.design();
  const std::size_t n_instances = s.plan.instances.size();
  std::vector<bool> stopped(n_instances, false);
  std::vector<std::size_t> used(n_instances, design.looks.back().n);
  const std::size_t last_ordinary = stats::last_ordinary_look_n(design);
  for (std::size_t k = 0; k < design.looks.size();) {
    const std::size_t n = design.looks[k].n;
    const auto running = static_cast<std::size_t>(std::count(stopped.begin(), stopped.end(), false));
    // The line began counting towards the last ordinary look; the extension's instances go past it.
    if (plan.extension.from > 0 && n > plan.extension.from)
      s.progress.set_total(most_samples(s, design.looks.back().n, stopped));
    // A separation look (one sample per side more, SLOWER or FASTER only: 9 after 8) is measured in
    // this look's call where that adds no set-up batch: on its own it would be a batch of one worker
    // per side after the look, its set-up the slowest cadence of a run (docs/measurement.md, "Set-up
    // batches", rule 7). The looks decide in order over the call's samples (replay_looks stops at
    // the first that decides), so the verdicts are those of the looks taken one by one; an instance
    // that stops at this look has one sample per side more than it used.
    auto jobs = measure_jobs(s, static_cast<std::uint32_t>(n), &stopped);
    std::size_t last = k;  // the last look this call measures for
    if (k + 1 < design.looks.size() && !design.looks[k + 1].stops_same && design.looks[k + 1].n < last_ordinary) {
      auto merged = measure_jobs(s, static_cast<std::uint32_t>(design.looks[k + 1].n), &stopped);
      const std::size_t batches = pipelines.set_up_batches(jobs);
      if (batches > 0 && pipelines.set_up_batches(merged) == batches) {
        last = k + 1;
        jobs = std::move(merged);
      }
    }
    const std::size_t through = design.looks[last].n;
    s.progress.phase("measuring, look " + std::to_string(last + 1) + " of " + std::to_string(design.looks.size()) +
                         " (" + std::to_string(through) + " per side, " + std::to_string(running) + " instances)",
                     s.outcome.samples_recorded);
    // The next look's jobs as they are if no instance stops at this one: their first workers
    // start (and make their contexts) while this look's last ones set up, as pre-start does within
    // a look, rather than after the look.
    std::deque<Job> next;
    if (last + 1 < design.looks.size())
      next = measure_jobs(s, static_cast<std::uint32_t>(design.looks[last + 1].n), &stopped,
                          static_cast<std::uint32_t>(through));
    pipelines.run_jobs(std::move(jobs), std::move(next));
    if (s.outcome.interrupted) return;
    // One journal event per look, the looks of one call together (each naming the call's first
    // look as "call").
    std::vector<nlohmann::json> decided(last - k + 1, nlohmann::json::array());
    for (std::size_t i = 0; i < n_instances; ++i) {
      if (stopped[i]) continue;
      const auto outcome = replay_looks(design, last, s.values[i][0], s.values[i][1], plan.threshold);
      if (!outcome || !outcome->decision.stop || last + 1 == design.looks.size()) continue;
      stopped[i] = true;
      used[i] = through;  // what this call measured of it, a look merged into it included
      decided[std::max(outcome->look, k) - k].push_back({{"instance", s.plan.instances[i].worker.id},
                                                         {"look", outcome->look},
                                                         {"n", outcome->n},
                                                         {"verdict", stats::to_string(outcome->decision.verdict)},
                                                         {"p", outcome->decision.p_value},
                                                         {"futile", outcome->decision.futile}});
    }
    for (std::size_t j = k; j <= last; ++j) {
      s.journal.append_event({{"type", "look"},
                              {"look", j},
                              {"n", design.looks[j].n},
                              {"call", k},
                              {"stopped", decided[j - k]}});
      s.log.write("look", "look " + std::to_string(j + 1) + " at " + std::to_string(design.looks[j].n) +
                              " per side: " + std::to_string(decided[j - k].size()) + " instances stopped");
    }
    k = last + 1;
    if (std::all_of(stopped.begin(), stopped.end(), [](bool b) { return b; })) break;
  }
  // What the run planned for the instances as they stopped: the samples up to their looks.
  std::size_t expected = 0;
  for (const auto& run : s.plan.schedule.runs)
    for (const auto& t : run.tasks) expected += t.round < used[t.instance] ? 1 : 0;
  s.outcome.samples_expected = expected;
}

// The first measuring jobs, as the calibration's next call (WorkerPipelines::run_jobs): those of
// the first look, or all of them. None where a describe job will come between (a CUDA instance
// whose choice nobody pins: the calibration worker reports the instances it calibrates, not the
// others).
std::deque<Job> first_measure_jobs(const RunState& s) {
  for (std::uint32_t i = 0; i < s.plan.instances.size(); ++i) {
    const auto& p = s.plan.instances[i];
    if (p.replay.is_null() && p.worker.backend == "cuda" && p.inner != 0 &&
        ipc::load_acquire(s.seg.instance(i).report_ready) == 0)
      return {};
  }
  if (!s.plan.sequential) return measure_jobs(s);
  const std::vector<bool> none(s.plan.instances.size(), false);
  return measure_jobs(s, static_cast<std::uint32_t>(s.plan.sequential->design().looks.front().n), &none);
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
    // The first measuring workers start behind the calibration worker and make their contexts
    // while it sets up, not after it.
    setup.calibrate(first_measure_jobs(s));
    if (interrupt_requested()) {
      s.outcome.interrupted = true;
      return;
    }
    if (!s.outcome.deterministic_failure.empty()) {
      pipelines.drop_next_call();
      return;
    }
    s.dir.write_json("plan.json", s.plan.to_json());
  }
  setup.pin_choices();
  if (interrupt_requested()) {
    s.outcome.interrupted = true;
    return;
  }
  if (s.plan.sequential) {
    run_looks(s, pipelines);
  } else {
    s.progress.phase("measuring", s.outcome.samples_recorded);
    pipelines.run_jobs(measure_jobs(s));
  }
  if (s.outcome.interrupted) return;
  pipelines.drop_next_call();  // the last look stopped every instance: their next look never comes
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
  // Each GPU's pipeline: the measuring worker, the pre-started ones, and one being replaced; with
  // set-up batches, the measuring batch, the pre-started batches, a batch that holds its lanes
  // until its processes are gone, and one being replaced. And one worker (or batch) more: those
  // started for a look that dropped them hold their lanes until they are gone.
  const auto n_gpus = plan_gpus(plan_, options_.device).size();
  const auto prestart = static_cast<std::size_t>(std::max(0, options_.prestart));
  const auto batch = static_cast<std::size_t>(std::max(1, options_.setup_batch));
  shape.n_lanes = static_cast<std::uint32_t>(n_gpus * (batch == 1 ? 3 + prestart : batch * (3 + prestart) + 1));
  shape.tasks_per_lane = static_cast<std::uint32_t>(max_tasks);
  shape.instances_json = ipc::encode_instances(table);
  const auto worlds = instance_worlds(plan_.instances);
  const std::uint32_t max_world = worlds.empty() ? 1 : *std::max_element(worlds.begin(), worlds.end());
  make_room_for_ranks(shape, max_world);
  auto seg = ipc::Segment::create(shape);
  if (max_world > 1) ipc::init_rank_table(seg, shape.n_lanes, max_world);
  log_.write("segment", "created " + seg.name() + " (" + std::to_string(seg.size()) + " bytes)");

  RunState state(dir_, plan_, options_, log_, std::move(seg), std::move(done));
  for (const auto& r : journal.samples)
    if (r.instance_index < state.values.size()) state.values[r.instance_index][r.side & 1][r.sample] = r.values.value_s;
  execute(state);
  return state.outcome;
}

}  // namespace isobench::orchestrator
