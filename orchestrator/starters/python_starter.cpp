#include "orchestrator/starters/python_starter.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "orchestrator/python/sass_step.hpp"
#include "orchestrator/sweep/pytest_collection.hpp"

namespace isobench::orchestrator {

namespace {

// A `pytest:` file's tests, collected in the baseline side's environment; the run log's line of it
// goes into `log`.
std::vector<CollectedTest> collect_pytest_logged(const PythonOptions& options, const std::string& file,
                                                 const std::string& select, const std::vector<std::string>& args,
                                                 const std::string& timing, std::vector<LogLine>& log) {
  const auto began = std::chrono::steady_clock::now();
  const std::string python = pytest_collector_python(options);
  auto tests = collect_pytest_tests(file, select, args, python, pytest_collector_variables(options), timing);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - began;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2f", took.count());
  log.push_back({utc_timestamp(), "pytest-collection",
                 file + ": " + std::to_string(tests.size()) + " tests collected by " +
                     (python.empty() ? "python3" : python) + " in " + seconds + " s"});
  return tests;
}

// The zygotes of a run, handed to the runner once its directory exists, and the SASS step after.
class PythonSidesStarted final : public StartedSides {
 public:
  PythonSidesStarted(PythonSides sides, Log log) : sides_(std::move(sides)), log_(std::move(log)) {}

  void attach(RunnerOptions& runner, const RunDirectory& dir, RunLog& log) override {
    attach_python_sides(sides_, runner, dir, log, log_);
    dir_ = &dir;
    artifact_root_ = runner.artifact_root;
    sass_.emplace(sides_, runner.artifact_root);
    runner.on_sides_reported = [this] { sass_->start(); };
  }

  int default_setup_batch(const Plan& plan) const override { return python_default_setup_batch(plan); }

  void finish(RunLog& log) override {
    // Every worker has exited: the zygotes exit now, beside the SASS step, the summary and the
    // verdicts, rather than one after another once the run is over (a zygote that imported torch
    // takes a while to exit).
    for (auto& zygote : sides_.zygotes) zygote->close();
    if (sass_) sass_->finish(log, log_);
    if (dir_) note_tuner_fallbacks(*dir_, artifact_root_, log_);
  }

 private:
  PythonSides sides_;
  Log log_;
  std::optional<SassStep> sass_;
  const RunDirectory* dir_ = nullptr;  // the run's, which outlives the run's sides
  std::string artifact_root_;
};

}  // namespace

// A Python benchmark's set-up (inputs, a first launch that compiles or loads its kernels, a
// correctness check) is the user's code in a fresh worker, and costs far more than measuring:
// on an H100, batches of 8 took ab's defaults from 12.7-13.7 s to 10.5 s to SLOWER, every A/A
// SAME (docs/results/2026-12-06-h100-setup-batch-default). Not for do_bench tests: their calls
// are set up one by one inside the measuring phase (isobench.do_bench), so a batch holds nothing
// back; nor on the CPU, where set-ups beside each other would share the cores being measured.
int python_default_setup_batch(const Plan& plan) {
  return plan.device == "cuda" && !any_pytest_flag(plan, "timing", "do_bench") ? kPythonSetupBatch : 1;
}

void PythonStarter::prepare_loading(SweepLoadOptions& options, const std::vector<std::string>& workers,
                                    std::function<std::string(const std::string&)> run_dir,
                                    std::vector<LogLine>& start_log, const Log&) {
  options.collect_pytest = [this, workers, run_dir, &start_log](const std::string& sweep_name, const std::string& file,
                                                                const std::string& select,
                                                                const std::vector<std::string>& args,
                                                                const std::string& timing) {
    // A benchmark script is not imported ahead of its plan: a zygote imports only its top-level
    // import statements, from a folder of its own (isobench.script_bridge), which the pytest
    // collection an early zygote does would not.
    if (timing != "script") {
      if (!early_) {
        std::error_code ec;
        found_existed_ = std::filesystem::exists(run_dir(sweep_name), ec);
        early_.emplace(options_, workers, run_dir(sweep_name), timing);
        found_unused_ = early_->found_unused();
      }
      for (auto& line : early_->import_pytest(file, args)) start_log.push_back(std::move(line));
    }
    return collect_pytest_logged(options_, file, select, args, timing, start_log);
  };
}

PythonStarter::~PythonStarter() {
  early_.reset();  // its zygotes gone first, none still importing
  if (found_unused_.empty()) return;
  const std::filesystem::path dir(found_unused_);
  std::error_code ec;
  if (std::filesystem::exists(dir / "run.json", ec)) return;  // a run was made there
  std::filesystem::remove_all(dir / "flaggems-cache", ec);
  if (!found_existed_) std::filesystem::remove(dir, ec);  // only where nothing else is in it
}

bool PythonStarter::found_unused(const std::string& run_dir) const {
  return !found_unused_.empty() && found_unused_ == run_dir;
}

std::unique_ptr<StartedSides> PythonStarter::start(const Plan& plan, const StartContext& context,
                                                   std::vector<LogLine>& start_log) {
  auto sides = start_python_sides(plan, context.workers, options_, context.resumed, context.sweep_path, context.log,
                                  context.run_dir, early_ ? &*early_ : nullptr);
  if (early_) {
    for (auto& line : early_->finish()) start_log.push_back(std::move(line));
    early_.reset();
  }
  if (sides.zygotes.empty()) return nullptr;
  // Each side's start and readiness at the times they happened: the run's wall time before its
  // directory exists is mostly the zygotes' imports (bench/run_timeline.py).
  for (std::size_t side = 0; side < sides.zygotes.size(); ++side) {
    const auto& zygote = *sides.zygotes[side];
    const std::string who = "side " + std::to_string(side) + ": pid " + std::to_string(zygote.pid());
    start_log.push_back({utc_timestamp(zygote.started_at()), "zygote-spawned", who});
    start_log.push_back({utc_timestamp(zygote.ready_at()), "zygote-ready", who + ", imports done"});
  }
  return std::make_unique<PythonSidesStarted>(std::move(sides), context.log);
}

}  // namespace isobench::orchestrator
