#include "orchestrator/run/run.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

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
// plan and run.json.
OpenRun open_new_run(const RunRequest& request, const Executor& executor) {
  if (request.sweep_path.empty() && request.pytest.file.empty())
    throw UsageError("give a sweep file (or --resume RUN_DIR); see --help");
  if (!request.sweep_path.empty() && !request.pytest.file.empty())
    throw UsageError("--pytest " + request.pytest.file + " and a sweep file " + request.sweep_path +
                     ": --pytest makes the sweep; give one of them");
  std::optional<LikeRun> like;
  if (!request.like.empty()) {
    // --replay-from takes choices from one run and --like all of them from another: one source.
    if (!request.replay_from.empty())
      throw UsageError("--like " + request.like + " and --replay-from " + request.replay_from +
                       ": --like replays the choices of the run it is like; give one of them");
    like = read_like_run(request.like);
  }
  const SettingsOverrides overrides = sequential_overrides(request);
  const SweepLoadOptions load_options{pytest_collector_python(request.python),
                                      [&request] { return pytest_collector_variables(request.python); }};
  const SettingsOverrides& sweep_overrides = like ? like_overrides(*like, overrides) : overrides;
  // ab --pytest: the suite's sweep runs on the machine's device, so the machine comes first.
  std::optional<Machine> pytest_machine;
  if (!request.pytest.file.empty()) pytest_machine = resolve_machine(request);
  Sweep sweep =
      pytest_machine
          ? parse_sweep(pytest_sweep_text(request.pytest, pytest_machine->device == kernels::Backend::cuda ? "cuda" : "cpu"),
                        "--pytest " + request.pytest.file, sweep_overrides, load_options)
          : load_sweep(request.sweep_path, sweep_overrides, load_options);
  if (!request.instances.empty()) keep_instances(sweep, request.instances);
  if (!request.quiet)
    for (const auto& note : sweep.notes) std::cerr << "note: " << note << "\n";
  const Machine machine = pytest_machine ? *pytest_machine : resolve_machine(request);
  OpenRun r;
  r.plan = plan_new_run(request, sweep, machine, like ? &*like : nullptr);
  if (interrupt_requested()) throw Interrupted("interrupted while planning " + sweep.path + "; nothing was measured");
  executor.check(r.plan, request);
  r.memory_budget = machine.memory_budget_bytes;
  // Python benchmarks: each side's zygote imports them now, so that a module that does not import
  // is bad input, found before the run directory exists.
  const std::string worker = fs::absolute(request.worker.empty() ? default_worker_path() : request.worker).string();
  const std::string dir = request.out_dir.empty() ? default_out_dir(sweep.name) : request.out_dir;
  r.python = start_python_sides(r.plan, r.plan.workers.empty() ? std::vector<std::string>{worker} : r.plan.workers,
                                request.python, nullptr, sweep.path, fs::absolute(dir).lexically_normal().string());
  r.dir = std::make_unique<RunDirectory>(RunDirectory::create(dir));
  r.lock.emplace(lock_run(*r.dir, dir));
  r.info = {{"schema_version", kRunSchemaVersion}, {"sweep", sweep.name},      {"started", utc_timestamp()},
            {"command_line", request.command_line}, {"resumed", nlohmann::json::array()}, {"status", "planned"}};
  // Until its sweep, plan and run.json are written the directory is no run that --resume could
  // finish (a full disk, a folder that vanished): it goes, and nothing was measured.
  try {
    r.dir->write_text("sweep.yaml", sweep.source_text);
    r.dir->write_json("plan.json", r.plan.to_json());
    r.dir->write_json("run.json", r.info);
  } catch (const std::runtime_error& e) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    throw MeasurementFailed(std::string(e.what()) + "; nothing was measured (" + dir + " removed)");
  }
  return r;
}

// An A/B run's verdicts, baseline against candidate, by `rule`: the comparison model decides,
// whatever is printed. Nothing comparable (no instance with samples on both sides) is logged and
// gives none; compare's warnings go to stderr.
std::optional<ComparisonReport> compare_ab_run(const std::string& dir, const VerdictRule& rule, RunLog& log) {
  CompareRequest compare_request;
  compare_request.runs = {dir};
  compare_request.rule = rule;
  std::ostringstream warnings;
  std::optional<ComparisonReport> report;
  try {
    report = compare(compare_request, warnings);
  } catch (const UsageError& e) {
    log.write("compare", e.what());  // nothing comparable: the run's samples are kept
  }
  if (!warnings.str().empty()) std::cerr << warnings.str();
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

DirectoryLock lock_run(const RunDirectory& dir, const std::string& what) {
  DirectoryLock lock(dir.file("run.lock"));
  if (lock.held_elsewhere())
    throw UsageError(what + ": another orchestrate is measuring this run now (" + lock.path() +
                     " is locked); let it finish, or stop it, then --resume " + dir.path());
  return lock;
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
    result.comparison = compare_ab_run(result.dir, request.verdict, log);
  }
  return std::move(result);
}

}  // namespace isobench::orchestrator
