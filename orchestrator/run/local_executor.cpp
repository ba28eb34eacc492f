#include "orchestrator/run/local_executor.hpp"

#include <cstdlib>
#include <filesystem>
#include <algorithm>
#include <set>

#include "orchestrator/artifacts.hpp"
#include "orchestrator/environment.hpp"
#include "orchestrator/run/machine.hpp"
#include "orchestrator/run/plan_run.hpp"
#include "orchestrator/run/resume_checks.hpp"
#include "orchestrator/run/run.hpp"
#include "orchestrator/sample_journal.hpp"

namespace fs = std::filesystem;

namespace isobench::orchestrator {

namespace {

// How the run measured, as run.json recorded it when its measuring began: pre-start, the context
// gate, set-up batches. Nothing when it never measured: the run starts now, as asked.
RecordedMeasuring recorded_measuring(const nlohmann::json& info, const std::string& resume) {
  RecordedMeasuring recorded;
  if (!info.contains("context_gate")) return recorded;
  try {
    recorded.context_gate = info.at("context_gate").get<bool>();
    recorded.setup_batch = info.value("setup_batch", 1);
    if (info.contains("prestart")) recorded.prestart = info.at("prestart").get<int>();
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(resume + ": run.json: " + e.what());
  }
  return recorded;
}

// The request a resumed run measures by: the pre-start, context gate and set-up batches run.json
// recorded (check_resubmission refused any other given).
RunRequest as_recorded(const RunRequest& request, const nlohmann::json& info) {
  RunRequest r = request;
  if (!info.contains("context_gate")) return r;
  r.context_gate = info.at("context_gate").get<bool>();
  r.setup_batch = info.value("setup_batch", 1);
  if (info.contains("prestart")) r.prestart = info.at("prestart").get<int>();
  return r;
}

// --resume: the run's own plan, on the GPUs it names. What a new run chooses (its directory, its
// settings, the choices it replays, its builds) a resumed run has chosen already: an option that
// would choose again is refused rather than ignored.
OpenRun open_resumed_run(const RunRequest& request, WorkerStarter& starter) {
  const std::string resume = "--resume " + request.resume_dir;
  if (request.ab)
    throw UsageError("ab " + resume + ": resume an A/B run with orchestrate " + resume +
                     " (it measures the builds its plan names)");
  if (!request.gpus.empty() || request.gpu)
    throw UsageError("--resume: the run measures on the GPUs its plan.json names; --gpu and --gpus are not taken");
  refuse_new_choices(request, resume);
  OpenRun r;
  r.resumed = true;
  try {
    r.dir = std::make_unique<RunDirectory>(RunDirectory::open(request.resume_dir));
    const auto plan_json = r.dir->read_json("plan.json");
    check_schema_version(plan_json, r.dir->file("plan.json"));
    r.plan = Plan::from_json(plan_json);
    r.info = r.dir->read_json("run.json");
    if (r.info.contains("status") && !r.info["status"].is_string())
      throw UsageError(resume + ": " + r.dir->file("run.json") + ": status: not a string");
    // The journal is read now, so that damage stops the resume before anything is written.
    const auto journal = read_journal(r.dir->file("samples.jsonl"));
    const auto planned = r.plan.schedule.total_samples();
    if (r.info.value("status", "") == "complete" && journal.samples.size() < planned)
      throw UsageError(resume + ": run.json says the run is complete, but " + r.dir->file("samples.jsonl") +
                       " holds " + std::to_string(journal.samples.size()) + " of its " + std::to_string(planned) +
                       " samples");
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw UsageError(resume + ": " + e.what());
  }
  r.lock.emplace(lock_run(*r.dir, resume, request.log));
  check_resubmission(request, r.plan, recorded_measuring(r.info, resume), resume);
  r.memory_budget = memory_budget(request, r.plan.device == "cuda" ? kernels::Backend::cuda : kernels::Backend::cpu,
                                  plan_gpus(r.plan, request.gpu.value_or(0)));
  if (r.info.value("status", "") != "complete") {
    std::vector<LogLine> start_log;  // nothing: a resumed run's starter reads what its run recorded
    r.started = starter.start(r.plan, {{}, r.dir->file("sweep.yaml"), r.dir->path(), r.dir.get(), request.log}, start_log);
  }
  return r;
}

// Hashes what the workers left in <run>/artifacts into artifacts.json (after a resumed run too:
// its workers may have written more). A problem here is reported and never fails the run: the
// samples are what the run is for.
void archive_run_artifacts(const RunDirectory& dir, const Plan& plan, RunLog& log, const Log& warnings) {
  std::vector<std::string> ids;
  for (const auto& p : plan.instances) ids.push_back(p.worker.id);
  try {
    const auto archive = archive_artifacts(dir.file("artifacts"), ids, plan.schedule.sides);
    for (const auto& note : archive.notes) {
      log.write("artifact", note);
      warnings.warning("artifact " + note);
    }
    dir.write_json("artifacts.json", archive.document);
  } catch (const std::exception& e) {
    log.write("artifact", std::string("not archived: ") + e.what());
    warnings.warning(std::string("artifacts not archived: ") + e.what());
  }
}

// A run that broke off after its directory was made (a calibration that failed, a file that could
// not be written): run.json says so where it still can be written, and --resume finishes what
// the journal lacks.
[[noreturn]] void fail_run(OpenRun& r, RunLog* log, const std::string& what) {
  r.info["status"] = "failed";
  r.info["error"] = what;
  r.info["finished"] = utc_timestamp();
  try {
    r.dir->write_json("run.json", r.info);
  } catch (const std::runtime_error&) {  // the disk that failed the run: run.json keeps its last status
  }
  if (log) log->write("run-failed", what);
  throw MeasurementFailed(what + " (finish with: orchestrate --resume " + r.dir->path() + ")");
}

RunnerOptions runner_options(const RunRequest& request, const OpenRun& r) {
  RunnerOptions o;
  if (!r.plan.workers.empty())
    for (std::size_t side = 0; side < r.plan.workers.size(); ++side)
      o.workers.push_back({r.plan.workers[side], side < r.plan.worker_args.size() ? r.plan.worker_args[side]
                                                                                : std::vector<std::string>{}});
  else
    o.workers = {{request.worker.empty() ? default_worker_path() : request.worker, {}}};
  o.worker_timeout_s = request.worker_timeout_s;
  o.retries = request.retries;
  // Pre-start defaults to 1 on the GPU, 0 on the CPU. With the context gate (no context created
  // or destroyed beside a measurement) one pre-started worker raised samples per minute on the
  // H200 (a context cannot be hidden behind a measurement without disturbing it), the disturbed
  // samples and the power of an A/B run of a real 5% regression unchanged; deeper pre-start gains
  // nothing more (docs/results/2026-11-29-h200-d). Without the gate, deeper pre-start disturbed
  // more samples and cut that power (docs/results/2026-11-29-h200-c; the figures:
  // docs/evidence.md#behind-the-code). A CPU worker starts in milliseconds: nothing to hide there,
  // and a waiting process would share the CPUs being measured.
  o.prestart = request.prestart >= 0 ? request.prestart : r.plan.device == "cuda" ? 1 : 0;
  o.context_gate = request.context_gate;
  // Not given: the starter's default for its kind of benchmark (set-up batches of Python
  // benchmarks on the GPU), one worker at a time otherwise. run.json records what was used, so a
  // resumed run measures as it began.
  o.setup_batch = request.setup_batch > 0 ? request.setup_batch
                  : r.started             ? r.started->default_setup_batch(r.plan)
                                          : 1;
  o.memory_budget_bytes = r.memory_budget;
  o.device = request.gpu.value_or(0);  // plans from before --gpus name no GPU per instance
  o.quiet = request.quiet;
  o.artifact_root = fs::absolute(r.dir->file("artifacts")).lexically_normal().string();
  return o;
}

// The run from its start to its summary, in a directory it holds the lock of.
RunResult measure_run(const RunRequest& request, OpenRun& r) {
  RunResult result;
  result.dir = r.dir->path();
  if (r.resumed) r.info["resumed"].push_back(utc_timestamp());
  // CUDA numbers devices fastest first, NVML and nvidia-smi by PCI bus: on a machine of mixed
  // GPUs the two differ. Workers get the PCI order unless the user chose one, so that a device
  // index names the same GPU to a worker and to the orchestrator's NVML checks.
  if (r.plan.device == "cuda") setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0);
  if (const char* order = std::getenv("CUDA_DEVICE_ORDER")) r.info["cuda_device_order"] = order;
  RunnerOptions ropts = runner_options(request, r);
  r.info["status"] = "running";
  r.info["prestart"] = ropts.prestart;
  r.info["context_gate"] = ropts.context_gate;
  if (ropts.setup_batch != 1) r.info["setup_batch"] = ropts.setup_batch;  // absent: one worker at a time
  r.info["gpus"] = plan_gpus(r.plan, ropts.device);
  r.dir->write_json("run.json", r.info);
  const auto env = collect_environment(request.command_line);
  r.dir->write_json(r.resumed ? "environment-resume.json" : "environment.json", env.data);
  for (const auto& w : env.warnings) request.log.warning(w);
  request.log.progress("run directory: " + r.dir->path());

  RunLog log(r.dir->file("log.txt"));
  log.write("run-start", r.resumed ? "resumed" : "new run");
  if (r.started) r.started->attach(ropts, *r.dir, log);
  Runner runner(*r.dir, r.plan, ropts, log);
  try {
    result.outcome = runner.run();
  } catch (const std::exception& e) {
    fail_run(r, &log, e.what());
  }
  if (r.started) r.started->finish(log);
  archive_run_artifacts(*r.dir, r.plan, log, request.log);

  const auto journal = read_journal(r.dir->file("samples.jsonl"));
  result.summary = summarize(r.plan, journal.samples);
  r.dir->write_json("summary.json", summary_to_json(result.summary));
  // Planned samples, each counted once (a slot is one planned sample).
  std::set<std::uint32_t> slots;
  for (const auto& s : journal.samples) slots.insert(s.slot);
  result.samples_recorded = slots.size();
  // A sequential run expects the samples up to the look at which each instance stopped.
  result.samples_expected = r.plan.sequential ? result.outcome.samples_expected : r.plan.schedule.total_samples();
  result.status = result.outcome.interrupted                          ? RunStatus::interrupted
                  : result.samples_recorded >= result.samples_expected ? RunStatus::complete
                                                                       : RunStatus::incomplete;
  r.info["finished"] = utc_timestamp();
  r.info["samples_expected"] = result.samples_expected;
  r.info["samples_recorded"] = result.samples_recorded;
  r.info["workers_started"] = result.outcome.workers_started;
  r.info["wall_seconds"] = result.outcome.wall_seconds;
  r.info["failures"] = result.outcome.failures.size();
  if (!result.outcome.deterministic_failure.empty()) r.info["error"] = result.outcome.deterministic_failure;
  r.info["status"] = result.status == RunStatus::interrupted ? "interrupted"
                     : result.status == RunStatus::complete  ? "complete"
                                                             : "incomplete";
  r.dir->write_json("run.json", r.info);
  log.write("run-end", r.info["status"].get<std::string>() + ": " + std::to_string(result.samples_recorded) +
                           " of " + std::to_string(result.samples_expected) + " samples");
  return result;
}

}  // namespace

void LocalExecutor::check(const Plan&, const RunRequest& request) const {
  if (request.slurm.any_given())
    throw UsageError("--shards, --max-running, --sbatch-option and --no-wait need --executor slurm");
}

Measured LocalExecutor::measure(OpenRun& r, const RunRequest& request) {
  try {
    return {measure_run(request, r), r.plan.schedule.sides};
  } catch (const UsageError&) {
    throw;
  } catch (const MeasurementFailed&) {
    throw;
  } catch (const std::exception& e) {  // a file of the run that cannot be written or read back
    fail_run(r, nullptr, e.what());
  }
}

Measured LocalExecutor::resume(const RunRequest& request) {
  OpenRun r = open_resumed_run(request, starter());
  if (r.info.value("status", "") == "complete") {
    request.log.progress("orchestrate: " + request.resume_dir + " is complete; nothing to resume");
    Measured measured{{}, r.plan.schedule.sides};
    measured.result.dir = r.dir->path();
    measured.result.status = RunStatus::already_complete;
    return measured;
  }
  return measure(r, as_recorded(request, r.info));
}

}  // namespace isobench::orchestrator
