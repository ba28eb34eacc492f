#include "orchestrator/slurm/slurm_executor.hpp"

#include <cctype>
#include <chrono>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <thread>

#include "ipc/rank_group.hpp"
#include "orchestrator/environment.hpp"
#include "orchestrator/interrupt.hpp"
#include "orchestrator/python/python_sides.hpp"
#include "orchestrator/run/resume_checks.hpp"
#include "sbatch_script.hpp"
#include "shard_directory.hpp"
#include "shard_merge.hpp"
#include "slurm_client.hpp"
#include "slurm_run.hpp"
#include "task_record.hpp"

namespace fs = std::filesystem;

namespace isobench::orchestrator {

namespace {

// How often squeue is asked while waiting: a task's end shows within a second, and one query a
// second from one user is nothing to a controller (Slurm's own sbatch --wait polls too).
constexpr auto kPollInterval = std::chrono::seconds(1);
// squeue failing this long in a row ends the wait: the tasks may still run, and a later
// --resume or merge picks them up.
constexpr auto kSlurmSilenceLimit = std::chrono::minutes(5);

// The run options every task gives its shard's run (`orchestrate slurm task`); the rest of what
// a task measures is in its shard's plan.json.
nlohmann::json task_options(const RunRequest& r) {
  nlohmann::json options = {
      {"worker", r.worker.empty() ? std::string() : fs::absolute(r.worker).lexically_normal().string()},
      {"worker_timeout_s", r.worker_timeout_s},
      {"retries", r.retries},
      {"prestart", r.prestart},
      {"context_gate", r.context_gate},
      {"memory_budget_mib", r.memory_budget_mib}};
  // Absent: 1, as before it existed; 0: not given, each task's run takes its starter's default.
  if (r.setup_batch != 1) options["setup_batch"] = r.setup_batch;
  return options;
}

std::string self_executable() {
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find the orchestrate binary (/proc/self/exe): " + ec.message());
  return self.string();
}

// Submits the array of `shards` (sorted) and records it in slurm.json before anything else.
std::string submit(const RunDirectory& dir, SlurmRun& slurm, const std::vector<std::uint32_t>& shards,
                   std::uint32_t max_running, const std::vector<std::string>& sbatch_args, RunLog& log) {
  std::string array = array_ranges(shards);
  // Appended piece by piece: GCC 12's -Wrestrict misreads "%" + std::to_string(...) (a false
  // positive of its inlined string insert).
  if (max_running > 0) array.append("%").append(std::to_string(max_running));
  const std::string job = submit_array(dir.file("job.sbatch"), array, sbatch_args);
  slurm.submissions.push_back({job, array, shards, sbatch_args, utc_timestamp()});
  dir.write_json(kSlurmFile, slurm.to_json());
  log.write("slurm-submit", "job " + job + ": array " + array + " (" + std::to_string(shards.size()) + " shards)");
  return job;
}

enum class WaitEnd { over, interrupted, slurm_silent };

// Waits until Slurm lists no task of `jobs`, saying in `log` how many are pending and running
// whenever that changes.
WaitEnd wait_for(const std::set<std::string>& jobs, const Log& log) {
  std::string last;
  auto silent_since = std::chrono::steady_clock::now();
  while (true) {
    std::size_t pending = 0, running = 0;
    try {
      const auto queued = queued_tasks(jobs);
      silent_since = std::chrono::steady_clock::now();
      if (queued.empty()) return WaitEnd::over;
      for (const auto& [job, tasks] : queued)
        for (const auto& [index, state] : tasks) (state == "PENDING" ? pending : running) += 1;
    } catch (const std::exception& e) {
      if (std::chrono::steady_clock::now() - silent_since > kSlurmSilenceLimit) {
        log.status(std::string("orchestrate: ") + e.what());
        return WaitEnd::slurm_silent;
      }
    }
    const std::string now = std::to_string(pending) + " tasks pending, " + std::to_string(running) + " running";
    if (now != last) log.progress("slurm: " + now);
    last = now;
    for (auto t = std::chrono::steady_clock::now(); std::chrono::steady_clock::now() - t < kPollInterval;) {
      if (interrupt_requested()) return WaitEnd::interrupted;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

// A shard's file that cannot be read as a run directory's is bad input, named: its run stays as
// the last merge left it.
MergeResult merge(const RunDirectory& dir, const SlurmRun& slurm, Plan& plan) {
  try {
    return merge_shards(dir, slurm, plan);
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
}

// Merges the shards into the run and answers like any executor: the run's summary and counts,
// and, where samples are missing, which shards lack them.
Measured finish(const RunDirectory& dir, Plan& plan, const SlurmRun& slurm, WaitEnd end, const Log& said) {
  const auto merged = merge(dir, slurm, plan);
  for (const auto& w : merged.warnings) said.warning(w);
  RunLog log(dir.file("log.txt"));
  log.write("slurm-merge", std::to_string(merged.samples_recorded) + " of " + std::to_string(merged.samples_expected) +
                               " samples from " + std::to_string(slurm.shards.size()) + " shards");
  Measured measured{{}, plan.schedule.sides};
  RunResult& result = measured.result;
  result.dir = dir.path();
  result.samples_expected = merged.samples_expected;
  result.samples_recorded = merged.samples_recorded;
  result.summary = merged.rows;
  result.outcome.samples_expected = merged.samples_expected;
  result.outcome.samples_recorded = merged.samples_recorded;
  result.outcome.failures = merged.failures;
  result.outcome.workers_started = merged.workers_started;
  const bool complete = merged.samples_recorded == merged.samples_expected;
  result.status = end == WaitEnd::interrupted ? RunStatus::interrupted
                  : complete                  ? RunStatus::complete
                                              : RunStatus::incomplete;
  if (end == WaitEnd::interrupted) {
    said.status("orchestrate: stopped waiting; the run's tasks go on in Slurm");
    return measured;
  }
  if (complete) return measured;
  std::size_t incomplete = 0;
  for (const auto& s : merged.shards) {
    if (s.complete() || ++incomplete > 10) continue;
    said.status("orchestrate: shard " + std::to_string(s.index) + ": " + std::to_string(s.samples_recorded) + " of " +
                std::to_string(s.samples_expected) + " samples (" + s.status +
                (s.tasks.empty() ? std::string("; no task started it")
                                 : "; its last task, " + task_name(s.tasks.back()) + ", ran on " +
                                       s.tasks.back().value("host", std::string("?"))) +
                ")");
  }
  if (incomplete > 10)
    said.status("orchestrate: ... and " + std::to_string(incomplete - 10) + " more shards (shards.json)");
  said.status("orchestrate: the tasks' output is in " + dir.file("slurm-logs") +
              (end == WaitEnd::slurm_silent ? "; squeue stopped answering, and the tasks may still run" : ""));
  return measured;
}

// Waits for `jobs` (unless --no-wait) and finishes the run.
Measured wait_and_finish(const RunDirectory& dir, Plan& plan, const SlurmRun& slurm, const RunRequest& request,
                         const std::set<std::string>& jobs) {
  if (!request.slurm.wait) {
    request.log.progress("orchestrate: not waiting (--no-wait): orchestrate --resume " + dir.path() +
                         " waits and finishes the run; orchestrate slurm merge " + dir.path() +
                         " merges what is there now");
    Measured measured{{}, plan.schedule.sides};
    measured.result.dir = dir.path();
    measured.result.status = RunStatus::submitted;
    return measured;
  }
  return finish(dir, plan, slurm, jobs.empty() ? WaitEnd::over : wait_for(jobs, request.log), request.log);
}

void check_sbatch_options(const std::vector<std::string>& options) {
  for (const auto& option : options) try {
      check_sbatch_option(option);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
}

// --resume's run directory; UsageError for a folder that is none.
RunDirectory open_resumed_run_directory(const RunRequest& request) {
  try {
    return RunDirectory::open(request.resume_dir);
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {  // a newer schema, a run.json that is not JSON
    throw UsageError("--resume " + request.resume_dir + ": " + e.what());
  }
}

// How the run's tasks measure (slurm.json's task_options, as the submission gave them).
RecordedMeasuring task_measuring(const nlohmann::json& options, const std::string& resume) {
  RecordedMeasuring recorded;
  try {
    recorded.context_gate = options.at("context_gate").get<bool>();
    recorded.setup_batch = options.value("setup_batch", 1);
    recorded.prestart = options.at("prestart").get<int>();
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(resume + ": slurm.json: task_options: " + e.what());
  }
  return recorded;
}

// How a resubmitted task handles a worker that hangs or fails and how much memory a worker may
// hold, as given to --resume: taken, as a run resumed here takes them (they decide what happens
// around a sample, not what it measures: the plan's memory groups were dealt when it was planned).
// Recorded in slurm.json's task_options, which every task reads as it starts, so they reach the
// tasks resubmitted now and those still queued; what is not given is kept. Returns a note naming
// each one changed, "" when none.
std::string take_task_options(nlohmann::json& options, const RunRequest& request) {
  std::string changed;
  const auto take = [&](bool given, const char* key, const nlohmann::json& value, const std::string& flag) {
    if (!given || options.value(key, nlohmann::json()) == value) return;
    changed += (changed.empty() ? "" : ", ") + flag + " " + value.dump() + " (was " +
               options.value(key, nlohmann::json()).dump() + ")";
    options[key] = value;
  };
  take(request.worker_timeout_given, "worker_timeout_s", request.worker_timeout_s, "--worker-timeout");
  take(request.retries_given, "retries", request.retries, "--retries");
  take(request.memory_budget_given, "memory_budget_mib", request.memory_budget_mib, "--memory-budget");
  return changed;
}

Plan read_plan(const RunDirectory& dir) {
  const auto j = dir.read_json("plan.json");
  check_schema_version(j, dir.file("plan.json"));
  return Plan::from_json(j);
}

}  // namespace

void SlurmExecutor::check(const Plan& plan, const RunRequest& request) const {
  const auto& s = request.slurm;
  if (s.shards == 0) throw UsageError("--executor slurm: give --shards N, the job array's size");
  if (s.shards > plan.instances.size())
    throw UsageError("--shards " + std::to_string(s.shards) + ": the sweep has " +
                     std::to_string(plan.instances.size()) + " instances on " + plan.device +
                     ", and a shard measures at least one");
  if (!request.gpus.empty() || request.gpu)
    throw UsageError("--executor slurm: every task measures on the one GPU Slurm gives it; --gpu and --gpus are not taken");
  if (request.require_idle_gpu)
    throw UsageError("--executor slurm: --require-idle-gpu is not taken: a GPU Slurm allocates is the task's alone");
  // A sequential A/B run stops each instance at a look over the whole sweep's tests (Bonferroni
  // over every instance); shards measuring apart cannot share those looks, and the merge expects
  // every planned slot. Not built: refused rather than answered wrongly (docs/slurm.md).
  if (plan.sequential)
    throw UsageError("--executor slurm: --until-verdict is not taken: a sequential A/B run's looks span the whole "
                     "sweep, which shards measure apart; give --samples N");
  // A task starts a Python side's zygote from the record its shard holds (python.json), which the
  // submission does not write: every task would refuse its shard. Not built: refused up front.
  if (has_python(plan)) {
    throw UsageError(
        "--executor slurm: Python benchmarks are not sharded over Slurm (a task could not start their interpreter as "
        "the run recorded it); measure them here");
  }
  for (const auto& p : plan.instances)
    if (const auto ranks = ipc::world_size(p.worker); ranks > 1)
      throw UsageError(p.worker.id + " has ranks " + std::to_string(ranks) +
                       ": --executor slurm gives each task one GPU; run multi-rank instances with --gpu");
  check_sbatch_options(s.sbatch_options);
}

Measured SlurmExecutor::measure(OpenRun& r, const RunRequest& request) {
  const RunDirectory& dir = *r.dir;
  const Plan& plan = r.plan;
  const std::string run_path = fs::absolute(dir.path()).lexically_normal().string();
  // Until sbatch has the array, nothing of the run exists anywhere else: a refusal leaves nothing.
  auto refuse = [&](const std::string& why) {
    std::error_code ec;
    fs::remove_all(dir.path(), ec);
    return UsageError(why);
  };
  SlurmRun slurm;
  try {
    check_slurm_path("the run directory", run_path);
    slurm.shards = deal_shards(static_cast<std::uint32_t>(plan.instances.size()), request.slurm.shards);
    slurm.max_running = request.slurm.max_running;
    slurm.task_options = task_options(request);
    for (const auto& shard : slurm.shards) write_shard_directory(dir, plan, shard, request.command_line);
    fs::create_directories(dir.file("slurm-logs"));
    SbatchSettings script;
    script.job_name = "isobench-" + plan.sweep_name;
    for (auto& c : script.job_name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
    script.run_dir = run_path;
    script.orchestrate = self_executable();
    script.gpu = plan.device == "cuda";
    script.options = request.slurm.sbatch_options;
    script.command_line = request.command_line;
    dir.write_text("job.sbatch", sbatch_script(script));
    dir.write_json(kSlurmFile, slurm.to_json());
    dir.write_json("run.json", {{"schema_version", kRunSchemaVersion},
                                {"sweep", plan.sweep_name},
                                {"executor", "slurm"},
                                {"status", "running"},
                                {"started", utc_timestamp()},
                                {"command_line", request.command_line},
                                {"resumed", nlohmann::json::array()},
                                {"shards", slurm.shards.size()},
                                {"samples_expected", plan.schedule.total_samples()},
                                {"samples_recorded", 0}});
    // Where it was planned and submitted; each shard's environment-resume.json is its node's.
    dir.write_json("environment.json", collect_environment(request.command_line).data);
  } catch (const std::exception& e) {
    throw refuse(e.what());
  }
  RunLog log(dir.file("log.txt"));
  std::vector<std::uint32_t> all;
  for (const auto& s : slurm.shards) all.push_back(s.index);
  std::string job;
  try {
    job = submit(dir, slurm, all, slurm.max_running, {}, log);
  } catch (const std::exception& e) {
    throw refuse(e.what());
  }
  request.log.progress("run directory: " + dir.path());
  request.log.progress("slurm: submitted job " + job + ": " + std::to_string(slurm.shards.size()) + " shards of " +
                       std::to_string(plan.instances.size()) + " instances, " +
                       std::to_string(plan.schedule.total_samples()) + " samples (" + dir.file("job.sbatch") + ")");
  Plan merged = plan;
  return wait_and_finish(dir, merged, slurm, request, {job});
}

bool resumes_slurm_run(const RunRequest& request) {
  return !request.resume_dir.empty() && is_slurm_run(open_resumed_run_directory(request));
}

Measured SlurmExecutor::resume(const RunRequest& request) {
  const auto& s = request.slurm;
  const std::string resume = "--resume " + request.resume_dir;
  const RunDirectory dir = open_resumed_run_directory(request);
  if (request.ab)
    throw UsageError("ab " + resume + ": resume an A/B run with orchestrate " + resume +
                     " (it measures the builds its plan names)");
  if (s.shards > 0)
    throw UsageError("--resume: --shards is not taken: the run's shards were dealt when it was submitted");
  if (!request.gpus.empty() || request.gpu)
    throw UsageError("--resume: every task measures on the GPU Slurm gives it; --gpu and --gpus are not taken");
  // As a run resumed here: the run's choices were made when it was planned.
  refuse_new_choices(request, resume);
  // A task starts its Python sides from what its shard recorded; the resuming shell's options
  // would reach no task.
  if (request.python.any_given())
    throw UsageError(resume + ": the Python options (--python, --python-env, ...) are not taken: a resumed run " +
                     "measures with the Python environments it was started with");
  check_sbatch_options(s.sbatch_options);
  Plan plan;
  SlurmRun slurm;
  try {
    plan = read_plan(dir);
    slurm = read_slurm_run(dir, static_cast<std::uint32_t>(plan.instances.size()));
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw UsageError(resume + ": " + e.what());
  }
  if (s.merge_only) return finish(dir, plan, slurm, WaitEnd::over, request.log);
  // The tasks it resubmits measure with what slurm.json's task_options and the plan recorded,
  // in the environment sbatch hands them (the resuming shell's): refused here, before sbatch,
  // where it differs, rather than by every task, or not at all.
  check_resubmission(request, plan, task_measuring(slurm.task_options, resume), resume);
  if (dir.read_json("run.json").value("status", "") == "complete") {
    request.log.progress("orchestrate: " + request.resume_dir + " is complete; nothing to resume");
    Measured measured{{}, plan.schedule.sides};
    measured.result.dir = dir.path();
    measured.result.status = RunStatus::already_complete;
    return measured;
  }
  std::set<std::string> jobs;
  for (const auto& sub : slurm.submissions) jobs.insert(sub.job_id);
  QueuedTasks queued;
  try {
    queued = queued_tasks(jobs);
  } catch (const std::exception& e) {
    // Without Slurm's answer a shard still queued cannot be told from one that failed.
    throw MeasurementFailed(std::string(e.what()) + "; nothing resubmitted");
  }
  std::set<std::uint32_t> queued_shards;
  std::set<std::string> live;
  for (const auto& [job, tasks] : queued) {
    live.insert(job);
    for (const auto& [index, state] : tasks) queued_shards.insert(index);
  }
  if (const auto changed = take_task_options(slurm.task_options, request); !changed.empty()) {
    dir.write_json(kSlurmFile, slurm.to_json());
    request.log.note("slurm: the tasks that start from now on take " + changed);
  }
  const auto merged = merge(dir, slurm, plan);
  std::vector<std::uint32_t> missing;
  for (const auto& shard : merged.shards)
    if (!shard.complete() && !queued_shards.count(shard.index)) missing.push_back(shard.index);
  if (!missing.empty()) {
    RunLog log(dir.file("log.txt"));
    std::string job;
    try {
      job = submit(dir, slurm, missing, s.max_running ? s.max_running : slurm.max_running, s.sbatch_options, log);
    } catch (const std::exception& e) {
      throw UsageError(e.what());
    }
    live.insert(job);
    auto run_info = dir.read_json("run.json");
    run_info["resumed"].push_back(utc_timestamp());
    run_info["status"] = "running";
    dir.write_json("run.json", run_info);
    request.log.progress("slurm: submitted job " + job + " for the " + std::to_string(missing.size()) +
                         " shards that lack samples (" +
                         std::to_string(merged.samples_expected - merged.samples_recorded) + " samples)");
  }
  if (!queued_shards.empty())
    request.log.progress("slurm: " + std::to_string(queued_shards.size()) + " shards still have a task queued or running");
  return wait_and_finish(dir, plan, slurm, request, live);
}

}  // namespace isobench::orchestrator
