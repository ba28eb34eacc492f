#include "orchestrator/bisect/bisection.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "orchestrator/bisect/build_cache.hpp"
#include "orchestrator/compare/comparison.hpp"
#include "orchestrator/directory_lock.hpp"
#include "orchestrator/format/numbers.hpp"
#include "orchestrator/interrupt.hpp"
#include "orchestrator/python/python_environment.hpp"
#include "orchestrator/starters/worker_starters.hpp"
#include "orchestrator/run/local_executor.hpp"
#include "orchestrator/run/run.hpp"
#include "orchestrator/run_directory.hpp"
#include "stats/sequential_design.hpp"

namespace fs = std::filesystem;

namespace isobench::orchestrator {

namespace {

constexpr const char* kBuildsFolder = "builds";
constexpr const char* kStepsFolder = "steps";

// The ids of the sweep's instances that --instances selects (all without it).
std::vector<std::string> select_instances(const Sweep& sweep, const std::vector<std::string>& select) {
  std::vector<std::string> ids;
  for (const auto& instance : sweep.instances)
    if (select.empty() || std::any_of(select.begin(), select.end(), [&](const std::string& s) {
          return instance.id.find(s) != std::string::npos;
        }))
      ids.push_back(instance.id);
  if (ids.empty()) {
    std::string given;
    for (const auto& s : select) given += (given.empty() ? "" : ", ") + s;
    throw UsageError("bisect: --instances " + given + ": no instance of " + sweep.path + " has it in its id" +
                     (sweep.instances.empty() ? "" : " (ids look like " + sweep.instances.front().id + ")"));
  }
  return ids;
}

// A test of m instances must be able to reach SLOWER at its share of alpha: refused now, with the
// most samples per side that can, rather than after GOOD and BAD are built.
void check_reachable(const ErrorBudget& budget, std::size_t max_samples) {
  const auto reachable = [&](std::size_t n) {
    SequentialPlan plan;
    plan.alpha = budget.step_alpha(budget.instances);
    plan.instances = budget.instances;
    plan.confidence = budget.step_confidence();
    use_default_looks(plan, n);
    return plan.can_reject();
  };
  if (reachable(max_samples)) return;
  std::size_t least = max_samples + 1;
  while (least < 100000 && !reachable(least)) least += std::max<std::size_t>(1, least / 8);
  throw UsageError("bisect: up to " + std::to_string(max_samples) + " samples per side no test can reach SLOWER at alpha " +
                   format("%g", budget.alpha) + " over " + std::to_string(budget.tests) + " tests of " +
                   std::to_string(budget.instances) + " instances; give --max-samples " + std::to_string(least) +
                   " or more, or a larger --alpha");
}

BisectState new_state(const BisectRequest& request) {
  if (request.build_command.empty()) throw UsageError("bisect: --build: no command given");
  if (request.sweep_path.empty()) throw UsageError("bisect: give a sweep file; see --help");
  if (fs::path(request.artifact).is_absolute())
    throw UsageError("bisect: " + request.artifact + ": the build's artifact is a path relative to {out}");
  BisectState s;
  const Sweep sweep = load_sweep(request.sweep_path, request.overrides);
  s.instances = select_instances(sweep, request.select);
  s.range = resolve_commit_range(fs::current_path().string(), request.good, request.bad);
  s.good_rev = request.good;
  s.bad_rev = request.bad;
  s.build_command = request.build_command;
  s.artifact_kind = request.artifact_kind;
  s.artifact = request.artifact;
  s.sweep = fs::absolute(request.sweep_path).lexically_normal().string();
  if (!request.python.empty()) {
    if (std::none_of(sweep.instances.begin(), sweep.instances.end(), [&](const Instance& i) {
          return !i.python_module.empty() && std::count(s.instances.begin(), s.instances.end(), i.id);
        }))
      throw UsageError("bisect: --python " + request.python + ": the interpreter of Python benchmarks, and the "
                       "instances bisected have none");
    s.python = find_interpreter(request.python, "bisect: --python");  // absolute: the steps run elsewhere
  }
  s.device = request.device;
  s.overrides = request.overrides.values();
  s.max_samples = request.max_samples;
  if (request.max_samples && *request.max_samples < 2)
    throw UsageError("bisect: --max-samples " + std::to_string(*request.max_samples) + ": must be 2 or more");
  for (const auto& [value, flag] : {std::pair{request.alpha, "--alpha"}, std::pair{request.confidence, "--confidence"}})
    if (!(value > 0 && value < 1)) throw UsageError(std::string("bisect: ") + flag + " " + format("%g", value) + ": must lie in (0, 1)");
  if (!(request.threshold >= 0)) throw UsageError("bisect: --threshold " + format("%g", request.threshold) + ": must be 0 or more");
  s.budget = {request.alpha, request.confidence, RangeWalk::max_tests(s.range.size()), s.instances.size()};
  s.threshold = request.threshold;
  s.command_line = request.command_line;
  check_reachable(s.budget, static_cast<std::size_t>(request.max_samples.value_or(sweep.settings.samples)));
  return s;
}

std::string default_bisect_dir() {
  const std::string base = "runs/bisect-" + compact_utc_timestamp();
  std::string dir = base;
  for (int i = 2; fs::exists(dir); ++i) dir = base + "-" + std::to_string(i);
  return dir;
}

class Bisection {
 public:
  Bisection(RunDirectory dir, BisectState state, bool quiet, Log log)
      : dir_(std::move(dir)),
        state_(std::move(state)),
        walk_(replay_walk(state_)),
        cache_(state_.range.repo, fs::absolute(dir_.file(kBuildsFolder)).string(), state_.build_command,
               state_.artifact),
        quiet_(quiet),
        log_(std::move(log)) {}

  // Walks until every instance is settled, the run is interrupted or a step breaks off.
  BisectOutcome walk() {
    BisectOutcome outcome{.dir = dir_.path(), .state = {}, .walk = walk_};
    try {
      cache_.remove_stale_worktrees();
    } catch (const std::runtime_error& e) {  // git not there now: the build says so
      log_.warning("bisect: stale worktrees not pruned: " + std::string(e.what()));
    }
    while (!interrupt_requested()) {
      const auto probe = walk_.next();
      if (!probe) break;
      if (!built(0) || interrupt_requested()) break;
      if (!built(probe->commit)) continue;  // skipped: the walk picks another
      if (interrupt_requested()) break;
      if (!test(*probe, outcome)) break;
    }
    outcome.interrupted = interrupt_requested();
    save();
    outcome.state = state_;
    outcome.walk = walk_;
    return outcome;
  }

  void save() const { dir_.write_json(kBisectStateFile, state_.to_json()); }

 private:
  std::string describe(std::size_t commit) const {
    const std::size_t n = state_.range.size();
    return state_.range.short_hash(commit) + " (" +
           (commit == 0 ? "GOOD" : commit == n ? "BAD" : std::to_string(commit) + " of " + std::to_string(n)) + ")";
  }

  // Whether `commit` is built, building it now when it was never tried. GOOD or BAD that does not
  // build is bad input (UsageError); another commit is skipped.
  bool built(std::size_t commit) {
    const std::string& hash = state_.range.commits[commit];
    if (!state_.builds.count(hash)) {
      log_.progress("bisect: building " + describe(commit));
      BuildOutcome b;
      try {
        b = cache_.build(hash);
      } catch (const std::runtime_error& e) {  // git could not make or remove the worktree
        if (interrupt_requested()) return false;
        throw MeasurementFailed("bisect: building " + describe(commit) + ": " + e.what());
      }
      if (interrupt_requested()) return false;  // a build cut short by Ctrl-C says nothing of the commit
      state_.builds[hash] = {b.built, b.problem};
      if (!b.built && commit > 0 && commit < state_.range.size()) walk_.skip(commit);
      save();
    }
    const BuildRecord& record = state_.builds.at(hash);
    if (record.built) return true;
    if (commit == 0 || commit == state_.range.size())
      throw UsageError("bisect: " + std::string(commit == 0 ? "--good " + state_.good_rev : "--bad " + state_.bad_rev) +
                       " (" + state_.range.short_hash(commit) + ") does not build: " + record.problem);
    log_.progress("bisect: skipping " + describe(commit) + ": " + record.problem);
    return false;
  }

  RunRequest step_request(const BisectStep& step) const {
    RunRequest r;
    r.sweep_path = state_.sweep;
    r.out_dir = dir_.file(step.run_dir);
    r.device = state_.device;
    r.overrides = SettingsOverrides::from_json(state_.overrides);
    r.ab = true;
    r.until_verdict = true;
    r.max_samples = state_.max_samples;
    // A step's most samples are the bisection's (--max-samples, its state): no extension past them.
    r.extend_to = 0;
    r.instances = step.instances;
    r.verdict.alpha = state_.budget.step_alpha(step.instances.size());
    r.verdict.confidence = state_.budget.step_confidence();
    r.verdict.threshold = state_.threshold;
    r.verdict.fail_on = FailOn::never;
    r.python.all.interpreter = state_.python;
    const std::string good = cache_.artifact(state_.range.commits[0]);
    const std::string candidate = cache_.artifact(state_.range.commits[step.commit]);
    if (state_.artifact_kind == BuildArtifact::python_path) {
      r.baseline = r.candidate = default_worker_path();
      r.python.sides[0].pythonpath = {good};
      r.python.sides[1].pythonpath = {candidate};
    } else {
      r.baseline = good;
      r.candidate = candidate;
    }
    r.quiet = quiet_;
    r.log = log_;
    r.command_line = state_.command_line;
    return r;
  }

  // The verdicts of a step's A/B run, as compare gives them from its directory (the run's own
  // sequential design decides); an instance without one is UNCERTAIN.
  std::map<std::string, stats::Verdict> verdicts(const BisectStep& step) const {
    std::map<std::string, stats::Verdict> out;
    for (const auto& id : step.instances) out[id] = stats::Verdict::uncertain;
    CompareRequest request;
    request.runs = {dir_.file(step.run_dir)};
    std::ostringstream warnings;
    try {
      for (const auto& c : compare(request, warnings).compared)
        if (out.count(c.id)) out[c.id] = c.verdict;
    } catch (const UsageError& e) {
      log_.progress("bisect: " + step.run_dir + ": no verdicts: " + e.what());
    }
    return out;
  }

  // Runs (or, after an interruption, finishes) the step of `probe`. False when the walk stops here.
  bool test(const Probe& probe, BisectOutcome& outcome) {
    const bool unfinished = !state_.steps.empty() && !state_.steps.back().done;
    if (!unfinished || state_.steps.back().commit != probe.commit || state_.steps.back().instances != probe.instances) {
      if (unfinished) state_.steps.pop_back();  // the walk has moved on (a build failed since)
      char name[32];
      std::snprintf(name, sizeof name, "%02zu-", state_.steps.size());
      state_.steps.push_back({.commit = probe.commit, .instances = probe.instances,
                              .run_dir = std::string(kStepsFolder) + "/" + name + state_.range.short_hash(probe.commit)});
      save();
    }
    BisectStep& step = state_.steps.back();
    const std::size_t number = state_.steps.size() - 1;
    log_.progress("bisect: step " + std::to_string(number) + ": " + describe(probe.commit) + " against GOOD on " +
                  std::to_string(probe.instances.size()) + " instance" + (probe.instances.size() == 1 ? "" : "s"));
    const std::string run_dir = dir_.file(step.run_dir);
    RunRequest request;
    if (fs::exists(fs::path(run_dir) / "run.json")) {
      request.resume_dir = run_dir;
      request.quiet = quiet_;
      request.log = log_;
      request.command_line = state_.command_line;
    } else {
      fs::remove_all(run_dir);  // a run cut off before its run.json: started afresh
      request = step_request(step);
    }
    RunResult result;
    try {
      LocalExecutor here(worker_starter_for(request));
      result = run(request, here);
    } catch (const Interrupted&) {
      return false;  // before its run directory existed: the step starts afresh on --resume
    } catch (const MeasurementFailed& e) {
      outcome.broke_off = step.run_dir + ": " + e.what();
      return false;
    } catch (const UsageError& e) {
      if (number == 0) throw;  // the endpoint check refused: bad input
      // A step's run that was started and cannot be finished now says nothing of the commit's
      // build: the bisection stops with why, and nothing is recorded.
      if (!request.resume_dir.empty()) {
        outcome.broke_off = step.run_dir + ": " + e.what();
        return false;
      }
      // This commit's build cannot be measured (its plugin lacks a kernel, say): skipped.
      state_.builds[state_.range.commits[probe.commit]] = {false, std::string("its run was refused: ") + e.what()};
      walk_.skip(probe.commit);
      state_.steps.pop_back();
      log_.progress("bisect: skipping " + describe(probe.commit) + ": " + e.what());
      save();
      return true;
    }
    if (result.status == RunStatus::interrupted) return false;
    step.verdicts = verdicts(step);
    step.done = true;
    walk_.record(step.commit, step.verdicts);
    save();
    std::map<stats::Verdict, std::size_t> counts;
    for (const auto& [id, v] : step.verdicts) ++counts[v];
    std::string line = "bisect: step " + std::to_string(number) + ":";
    for (const auto& [v, k] : counts) {
      line += ' ';
      line += std::to_string(k);
      line += ' ';
      line += stats::to_string(v);
    }
    log_.progress(line);
    return true;
  }

  RunDirectory dir_;
  BisectState state_;
  RangeWalk walk_;
  BuildCache cache_;
  bool quiet_;
  Log log_;
};

// bisect.lock, held by the one process that builds, measures and writes bisect.json in a
// bisection's directory; UsageError when another holds it.
DirectoryLock lock_bisection(const RunDirectory& dir, const std::string& what, const Log& log) {
  auto lock = DirectoryLock::take(dir.file("bisect.lock"), log);
  if (!lock)
    throw UsageError(what + ": another orchestrate bisect is working in " + dir.path() + " now (" +
                     dir.file("bisect.lock") + " is locked); let it finish, or stop it, then bisect --resume " +
                     dir.path());
  return std::move(*lock);
}

// A new bisection: everything checked, then its directory.
std::pair<RunDirectory, BisectState> open_new_bisection(const BisectRequest& request,
                                                        std::optional<DirectoryLock>& lock) {
  BisectState state = new_state(request);
  const std::string dir = request.out_dir.empty() ? default_bisect_dir() : request.out_dir;
  RunDirectory created = RunDirectory::create(fs::absolute(dir).lexically_normal().string());
  lock.emplace(lock_bisection(created, "bisect", request.log));
  created.write_json(kBisectStateFile, state.to_json());
  return {std::move(created), std::move(state)};
}

std::pair<RunDirectory, BisectState> open_resumed_bisection(const BisectRequest& request,
                                                            std::optional<DirectoryLock>& lock) {
  const std::string resume = "bisect --resume " + request.resume_dir;
  try {
    RunDirectory dir = RunDirectory::open_record(fs::absolute(request.resume_dir).lexically_normal().string(),
                                                 kBisectStateFile, "bisection directory");
    lock.emplace(lock_bisection(dir, resume, request.log));  // bisect.json is read by its holder, as it wrote it
    try {
      BisectState state = BisectState::from_json(dir.read_json(kBisectStateFile));
      replay_walk(state);  // steps that do not fit the range are damage, found now
      return {std::move(dir), std::move(state)};
    } catch (const std::exception& e) {
      throw UsageError(resume + ": " + dir.file(kBisectStateFile) + ": " + e.what());
    }
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw UsageError(resume + ": " + e.what());
  }
}

}  // namespace

BisectOutcome bisect(const BisectRequest& request) {
  install_interrupt_handlers();
  const bool resumed = !request.resume_dir.empty();
  std::optional<DirectoryLock> lock;
  auto [dir, state] = resumed ? open_resumed_bisection(request, lock) : open_new_bisection(request, lock);
  const std::string path = dir.path();
  request.log.progress("bisect directory: " + path);
  // The steps run from the bisection's directory: Python's path starts with the current folder,
  // where the checkout's own modules (of whichever commit is checked out) would shadow the
  // --python-path folders of both sides.
  fs::current_path(path);
  Bisection bisection(std::move(dir), std::move(state), request.quiet, request.log);
  try {
    return bisection.walk();
  } catch (const UsageError&) {
    // GOOD or BAD does not build, or the endpoint check was refused: nothing was measured.
    if (!resumed) fs::remove_all(path);
    throw;
  }
}

}  // namespace isobench::orchestrator
