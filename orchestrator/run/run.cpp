#include "orchestrator/run/run.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>

#include "orchestrator/format/numbers.hpp"
#include "orchestrator/interrupt.hpp"
#include "orchestrator/run/like_run.hpp"
#include "orchestrator/run/machine.hpp"
#include "orchestrator/run/plan_run.hpp"
#include "orchestrator/run_directory.hpp"

namespace fs = std::filesystem;

namespace isobench::orchestrator {

namespace {

std::string default_out_dir(const std::string& sweep_name) {
  std::string base = "runs/" + sweep_name + "-" + compact_utc_timestamp();
  std::string dir = base;
  for (int i = 2; fs::exists(dir); ++i) dir = base + "-" + std::to_string(i);
  return dir;
}

// --until-verdict's most samples per side replace the sweep's: --max-samples, else the last of
// --looks; beside --samples, or beside each other with another count, they are a mistake.
SettingsOverrides sequential_overrides(const RunRequest& request) {
  SettingsOverrides overrides = request.overrides;
  if (!request.until_verdict) {
    if (request.max_samples || !request.looks.empty())
      throw UsageError(std::string(request.max_samples ? "--max-samples" : "--looks") +
                       " sets sequential sampling's looks: give --until-verdict with it");
    return overrides;
  }
  if (!request.ab)
    throw UsageError("--until-verdict stops an instance at its verdict, which only an A/B run has: use orchestrate ab");
  std::optional<std::int64_t> most = request.max_samples;
  if (!request.looks.empty()) {
    const auto last = static_cast<std::int64_t>(request.looks.back());
    if (most && *most != last)
      throw UsageError("--looks ends at " + std::to_string(last) + " and --max-samples is " + std::to_string(*most) +
                       ": the last look is the most samples per side; give one of them");
    most = last;
  }
  if (most) {
    if (overrides.has("samples"))
      throw UsageError(std::string(request.max_samples ? "--max-samples" : "--looks") +
                       " and --samples: with --until-verdict the most samples per side come from " +
                       (request.max_samples ? "--max-samples" : "the last of --looks") + "; leave --samples out");
    overrides.set("samples", *most);
  }
  return overrides;
}

// RunRequest::instances: the sweep's instances of those ids, each of which it must have.
void keep_instances(Sweep& sweep, const std::vector<std::string>& ids) {
  std::vector<Instance> kept;
  for (auto& instance : sweep.instances)
    if (std::find(ids.begin(), ids.end(), instance.id) != ids.end()) kept.push_back(std::move(instance));
  if (kept.size() != ids.size())
    for (const auto& id : ids)
      if (std::none_of(kept.begin(), kept.end(), [&id](const Instance& i) { return i.id == id; }))
        throw UsageError(sweep.path + ": no instance " + id);
  sweep.instances = std::move(kept);
}

// A new run: everything checked first (by `executor` too), then the run directory with its sweep,
// plan, run.json and the log of its start.
OpenRun open_new_run(const RunRequest& request, Executor& executor) {
  if (request.sweep_path.empty() && !request.made_sweep)
    throw UsageError("give a sweep file (or --resume RUN_DIR); see --help");
  std::optional<LikeRun> like;
  if (!request.like.empty()) {
    // --replay-from takes choices from one run and --like all of them from another: one source.
    if (!request.replay_from.empty())
      throw UsageError("--like " + request.like + " and --replay-from " + request.replay_from +
                       ": --like replays the choices of the run it is like; give one of them");
    like = read_like_run(request.like);
  }
  const SettingsOverrides overrides = sequential_overrides(request);
  // The run directory is named when the sweep's name is known: by the worker starter while the
  // sweep loads (a starter may keep files of the run there), or after the sweep is loaded.
  std::string dir = request.out_dir;
  const auto name_dir = [&dir](const std::string& sweep_name) {
    if (dir.empty()) dir = default_out_dir(sweep_name);
    return fs::absolute(dir).lexically_normal().string();
  };
  const std::vector<std::string> workers = side_workers(request);
  WorkerStarter& starter = executor.starter();
  std::vector<LogLine> start_log;  // what the start did before the run log exists, in order
  SweepLoadOptions load_options;
  starter.prepare_loading(load_options, workers, name_dir, start_log, request.log);
  const SettingsOverrides& sweep_overrides = like ? like_overrides(*like, overrides) : overrides;
  // A sweep the verb made is made for the machine's device, so the machine comes first; its
  // refusals name no place in a file the user never wrote.
  std::optional<Machine> made_for;
  if (request.made_sweep) made_for = resolve_machine(request);
  load_options.generated = made_for.has_value();
  Sweep sweep = made_for ? parse_sweep(request.made_sweep->text(made_for->device == kernels::Backend::cuda ? "cuda" : "cpu"),
                                       request.made_sweep->label, sweep_overrides, load_options)
                         : load_sweep(request.sweep_path, sweep_overrides, load_options);
  if (!request.instances.empty()) keep_instances(sweep, request.instances);
  for (const auto& note : sweep.notes) request.log.note(note);
  const Machine machine = made_for ? *made_for : resolve_machine(request);
  OpenRun r;
  r.plan = plan_new_run(request, sweep, machine, like ? &*like : nullptr);
  if (interrupt_requested()) throw Interrupted("interrupted while planning " + sweep.path + "; nothing was measured");
  executor.check(r.plan, request);
  r.memory_budget = machine.memory_budget_bytes;
  // What the workers need started is started now, so that what cannot start (code that does not
  // load) is bad input, found before the run directory exists. A used directory is refused before
  // that start, which may write into it: a zygote importing FlagGems makes the side's tuner
  // database folder, <run>/flaggems-cache/side-N, when it imports.
  const std::string run_path = name_dir(sweep.name);
  if (!starter.found_unused(run_path)) RunDirectory::check_unused(run_path);
  r.started = starter.start(r.plan, {workers, sweep.path, run_path, nullptr, request.log}, start_log);
  r.dir = std::make_unique<RunDirectory>(RunDirectory::create_checked(dir));
  r.lock.emplace(lock_run(*r.dir, dir, request.log));
  r.info = {{"schema_version", kRunSchemaVersion}, {"sweep", sweep.name},      {"started", utc_timestamp()},
            {"command_line", request.command_line}, {"resumed", nlohmann::json::array()}, {"status", "planned"}};
  // Where the run's wall time went before its directory existed (the zygotes' imports, the plan):
  // the command's own start, for bench/run_timeline.py.
  if (const auto began = process_start_time()) r.info["process_started"] = utc_timestamp(*began);
  // Until its sweep, plan and run.json are written the directory is no run that --resume could
  // finish (a full disk, a folder that vanished): it goes, and nothing was measured.
  try {
    r.dir->write_text("sweep.yaml", sweep.source_text);
    r.dir->write_json("plan.json", r.plan.to_json());
    r.dir->write_json("run.json", r.info);
    RunLog log(r.dir->file("log.txt"));
    for (const auto& line : start_log) log.write(line);
  } catch (const std::runtime_error& e) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    throw MeasurementFailed(std::string(e.what()) + "; nothing was measured (" + dir + " removed)");
  }
  return r;
}

// An A/B run's verdicts, baseline against candidate, by `rule`: the comparison model decides,
// whatever is printed. Nothing comparable (no instance with samples on both sides) is logged and
// gives none; compare's warnings go to `warnings`.
std::optional<ComparisonReport> compare_ab_run(const std::string& dir, const VerdictRule& rule, RunLog& log,
                                               const Log& warnings) {
  CompareRequest compare_request;
  compare_request.runs = {dir};
  compare_request.rule = rule;
  std::stringstream warnings_text;  // compare's own lines, "warning: ..."
  std::optional<ComparisonReport> report;
  try {
    report = compare(compare_request, warnings_text);
  } catch (const UsageError& e) {
    log.write("compare", e.what());  // nothing comparable: the run's samples are kept
  }
  for (std::string line; std::getline(warnings_text, line);)
    if (!line.empty()) warnings.status(line);
  return report;
}

}  // namespace

int RunResult::exit_code() const {
  if (status == RunStatus::interrupted) return exit_interrupted;
  if (status == RunStatus::incomplete) return exit_measurement_failed;
  if (comparison && comparison->fails()) return exit_regression;
  return exit_ok;
}

std::string default_worker_path() {
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "isobench-worker";
  return (self.parent_path() / "isobench-worker").string();
}

DirectoryLock lock_run(const RunDirectory& dir, const std::string& what, const Log& log) {
  auto lock = DirectoryLock::take(dir.file("run.lock"), log);
  if (!lock)
    throw UsageError(what + ": another orchestrate is measuring this run now (" + dir.file("run.lock") +
                     " is locked); let it finish, or stop it, then --resume " + dir.path());
  return std::move(*lock);
}

RunResult run(const RunRequest& request, Executor& executor) {
  install_interrupt_handlers();
  Measured measured;
  if (request.resume_dir.empty()) {
    OpenRun r = open_new_run(request, executor);
    measured = executor.measure(r, request);
  } else {
    measured = executor.resume(request);
  }
  RunResult& result = measured.result;
  // An A/B run answers with verdicts, baseline against candidate; one interrupted, not measured
  // yet or stopped by a deterministic failure has none to give (its remedies would offer the
  // --resume that cannot help).
  if (measured.sides == 2 && (result.status == RunStatus::complete || result.status == RunStatus::incomplete) &&
      result.outcome.deterministic_failure.empty()) {
    RunLog log(result.dir + "/log.txt");
    const auto began = std::chrono::steady_clock::now();
    result.comparison = compare_ab_run(result.dir, request.verdict, log, request.log);
    if (result.comparison)
      log.write("verdicts", "compared in " +
                                format("%.3f", std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count()) +
                                " s");
  }
  return std::move(result);
}

}  // namespace isobench::orchestrator
