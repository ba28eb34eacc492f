#include "run_command.hpp"

#include <filesystem>
#include <iostream>
#include <memory>

#include "orchestrator/commands/compare_command.hpp"
#include "orchestrator/commands/option_checks.hpp"
#include "orchestrator/commands/python_options.hpp"
#include "orchestrator/commands/slurm_command.hpp"
#include "orchestrator/run/local_executor.hpp"
#include "orchestrator/run/run.hpp"
#include "orchestrator/slurm/slurm_executor.hpp"
#include "orchestrator/starters/worker_starters.hpp"
#include "orchestrator/sweep/pytest_collection.hpp"

namespace isobench::orchestrator {

namespace {

// The one place a run's executor is chosen: for a new run by --executor; for --resume, the one
// that made the run (a Slurm run's directory holds slurm.json), and Slurm's options on a run that
// is not one are refused. It receives the run's worker starter.
std::unique_ptr<Executor> choose_executor(const RunRequest& request) {
  const auto& s = request.slurm;
  if (request.resume_dir.empty()) {
    if (s.sharded()) return std::make_unique<SlurmExecutor>(worker_starter_for(request));
    return std::make_unique<LocalExecutor>(worker_starter_for(request));
  }
  if (resumes_slurm_run(request)) return std::make_unique<SlurmExecutor>(worker_starter_for(request));
  if (s.merge_only) throw UsageError(request.resume_dir + ": not a Slurm run (no slurm.json)");
  if (s.sharded() || s.any_given())
    throw UsageError("--resume " + request.resume_dir + ": not a Slurm run; --executor slurm and its options take a "
                     "new sweep");
  return std::make_unique<LocalExecutor>(worker_starter_for(request));
}

// What a run reads, which no output of it may replace: its sweep (or pytest file, or script), the
// worker builds, the run directories it reads (--like, --replay-from) or resumes.
std::vector<GuardedPath> read_paths(const RunRequest& r, const RunCommand& command) {
  return {{"the sweep", r.sweep_path, false},
          {"the pytest file", command.pytest.file, false},
          {"the script", command.script.file, false},
          {"the baseline build", r.baseline, false},
          {"the candidate build", r.candidate, false},
          {"the worker", r.worker, false},
          {"the run directory this run resumes", r.resume_dir, true},
          {"the run directory of --like", r.like, true},
          {"the run directory of --replay-from", r.replay_from, true}};
}

}  // namespace

void add_run_options(CLI::App& app, RunCommand& command) {
  RunRequest& o = command.request;
  app.add_option("sweep", o.sweep_path, "sweep file (YAML); see docs/sweep-format.md");
  app.add_option("--resume", o.resume_dir, "finish an interrupted run: measure only its missing samples");
  app.add_option("--out", o.out_dir, "run directory to create (default: runs/<sweep>-<utc time>)");
  app.add_option("--device", o.device, "where to run: auto (a GPU when present), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  app.add_option_function<int>("--gpu", [&o](int gpu) { o.gpu = gpu; }, "CUDA device index (default 0)")
      ->check(whole_number());
  app.add_option("--gpus", o.gpus,
                 "GPUs to spread the instances over, e.g. 0,1 or all: one schedule runs on each GPU at once, each "
                 "instance on one of them (docs/measurement.md)");
  app.add_option("--worker", o.worker, "worker executable (default: isobench-worker beside orchestrate)");
  app.add_option("--worker-timeout", o.worker_timeout_s, "seconds without a worker heartbeat before it is killed")
      ->check(positive_number())
      ->capture_default_str()
      ->each([&o](const std::string&) { o.worker_timeout_given = true; });
  app.add_option("--prestart", o.prestart,
                 "workers started ahead of the measuring one, released one at a time (default 1 on the GPU, 0 on "
                 "the CPU; docs/measurement.md)")
      ->check(CLI::Range(0, 8));
  app.add_option("--context-gate", o.context_gate,
                 "on: a worker creates its CUDA context only while no worker measures, and starts measuring only "
                 "while no other worker creates a context or exits; off: contexts come and go beside "
                 "measurements (to measure what the gate buys)")
      ->capture_default_str()
      ->each([&o](const std::string&) { o.context_gate_given = true; });
  app.add_option("--setup-batch", o.setup_batch,
                 "measuring workers released into their set-up at once, while none measures, then measured one "
                 "after another in plan order; with the context gate each holds its exit until its batch has "
                 "measured. --prestart then counts batches (default 8 for Python benchmarks on the GPU but "
                 "do_bench tests, 1 otherwise; docs/measurement.md)")
      ->check(CLI::Range(1, 32))
      ->each([&o](const std::string&) { o.setup_batch_given = true; });
  app.add_option("--memory-budget", o.memory_budget_mib,
                 "MiB of device memory one worker may hold; instances are grouped to fit (default: 90% of the "
                 "GPU's free memory, half the host's)")
      ->check(whole_number())
      ->each([&o](const std::string&) { o.memory_budget_given = true; });
  app.add_option("--retries", o.retries, "fresh workers tried for the samples of a failed one")
      ->check(CLI::Range(0, 100))
      ->capture_default_str()
      ->each([&o](const std::string&) { o.retries_given = true; });
  auto* format = app.add_option_function<std::string>(
                       "--format", [&command](const std::string& v) { command.format = parse_format(v); },
                       "summary (A/B: verdicts) on stdout: table (default), json, csv, markdown or none")
                       ->check(CLI::IsMember({"table", "json", "csv", "markdown", "none"}));
  auto* json = app.add_flag_callback("--json", [&command] { command.format = Format::json; }, "same as --format json");
  auto* csv = app.add_flag_callback("--csv", [&command] { command.format = Format::csv; }, "same as --format csv");
  auto* markdown = app.add_flag_callback("--markdown", [&command] { command.format = Format::markdown; },
                                         "same as --format markdown");
  format->excludes(json)->excludes(csv)->excludes(markdown);
  json->excludes(csv)->excludes(markdown);
  csv->excludes(markdown);
  app.add_flag("-q,--quiet", o.quiet, "no progress on stderr");
  app.add_flag("--require-idle-gpu", o.require_idle_gpu,
               "refuse to run while another process uses the GPU (otherwise a loud warning)");
  add_setting_options(app, o.overrides, {});
  add_python_options(app, o.python);
  app.add_option("--replay-from", o.replay_from,
                 "run directory whose recorded choices (cuBLASLt algorithms, instance_reports.json) this run replays");
  app.add_option("--like", o.like,
                 "an earlier run to measure like, so that compare joins every instance: its inner counts, "
                 "pinned choices (cuBLASLt algorithms, a Python benchmark's describe()), seed and the settings that "
                 "change what a sample measures; instances it lacks are calibrated afresh, a flag that contradicts "
                 "it is refused. Runs made at different times still carry the machine's drift: ab measures a change "
                 "(docs/measurement.md)")
      ->type_name("RUN_DIR");
  add_slurm_options(app, o.slurm);
}

void add_setting_options(CLI::App& app, SettingsOverrides& overrides, const std::vector<std::string>& except) {
  for (const auto& spec : ipc::setting_specs()) {
    const std::string name(spec.name);
    if (std::find(except.begin(), except.end(), name) != except.end()) continue;
    const std::string help = std::string(spec.help) + " (overrides the sweep)";
    if (spec.bare_flag) {
      app.add_flag_callback(spec.flag(), [&overrides, name] { overrides.set(name, true); }, help);
      continue;
    }
    app.add_option_function<std::string>(
        spec.flag(), [&overrides, name](const std::string& text) { overrides.set_text(name, text); }, help);
  }
}

void register_ab_command(CLI::App& app, RunCommand& command, int& exit_code) {
  RunRequest& options = command.request;
  auto* ab = app.add_subcommand("ab",
                                "A/B run: baseline and candidate worker builds alternate in fresh processes, in a "
                                "randomized balanced order, in one run; prints per-instance verdicts");
  add_run_options(*ab, command);
  ab->add_option("--baseline", options.baseline,
                 "worker executable of the baseline build, or a build of the sweep's plugin (.so); required unless "
                 "the sides differ in their Python options only");
  ab->add_option("--candidate", options.candidate,
                 "worker executable of the candidate build, or a build of the sweep's plugin (.so); required unless "
                 "the sides differ in their Python options only");
  add_python_side_options(*ab, options.python);
  auto* pytest = ab->add_option("--pytest", command.pytest.file,
                                "a pytest-benchmark test file to compare instead of a sweep: each test that takes the "
                                "benchmark fixture is an instance, run on the --device (docs/python.md)")
                     ->check(CLI::ExistingFile);
  ab->add_option("-k", command.pytest.select, "with --pytest: pytest's -k expression, the tests to compare")
      ->needs(pytest);
  ab->add_option("--pytest-arg", command.pytest.args, "with --pytest: one more pytest argument; repeatable")
      ->allow_extra_args(false)
      ->needs(pytest);
  ab->add_option("--pytest-timing", command.pytest.timing,
                 "with --pytest: how its tests time: fixture (the benchmark fixture or mark), do_bench (each call "
                 "through triton.testing.do_bench is an instance), auto (the fixture where a test takes it, else "
                 "do_bench; the default) (docs/python.md, \"do_bench suites\")")
      ->check(CLI::IsMember({"auto", "fixture", "do_bench"}))
      ->needs(pytest);
  auto* script = ab->add_option("--script", command.script.file,
                                "a benchmark script to compare instead of a sweep (Liger-Kernel's "
                                "benchmark/scripts/benchmark_*.py): run as `python FILE ARGS`, each call it makes "
                                "through triton.testing.do_bench is an instance, run on the --device (docs/python.md, "
                                "\"do_bench scripts\")")
                     ->check(CLI::ExistingFile)
                     ->excludes(pytest);
  ab->add_option("--script-arg", command.script.args, "with --script: one more argument of the script; repeatable")
      ->allow_extra_args(false)
      ->needs(script);
  // One value per occurrence: a repeatable option that took every value after it would take the
  // sweep file too (`--candidate-set algo=1 sweep.yaml`, the README's own command).
  ab->add_option("--baseline-set", options.baseline_sets,
                 "NAME=VALUE: the baseline's workers run every instance with parameter NAME at VALUE; repeatable")
      ->allow_extra_args(false);
  ab->add_option("--candidate-set", options.candidate_sets,
                 "NAME=VALUE: the candidate's workers run every instance with parameter NAME at VALUE (e.g. algo=1 "
                 "forces another cuBLASLt algorithm); repeatable")
      ->allow_extra_args(false);
  add_verdict_options(*ab, options.verdict);
  add_ci_output_options(*ab, command.ci);
  auto* until = ab->add_flag("--until-verdict", options.until_verdict,
                             "sequential sampling (the default unless --fixed-n, --samples or --executor slurm): "
                             "look at the samples at planned counts per side and stop each instance once it is "
                             "SLOWER, FASTER or SAME, alpha spent across the looks (docs/statistics.md)");
  auto* fixed = ab->add_flag("--fixed-n", command.fixed_n,
                             "take every instance's samples (the sweep's, or --samples) whatever the verdict: no "
                             "looks (docs/measurement.md)");
  fixed->excludes(until);
  auto* most = ab->add_option_function<std::int64_t>(
      "--max-samples", [&options](std::int64_t n) { options.max_samples = n; },
      "sequential sampling: the most samples per side (default: the sweep's samples)");
  auto* looks = ab->add_option("--looks", options.looks,
                               "sequential sampling: samples per side at each look, ascending, e.g. 8,12,16,24 (default "
                               "8, 12, 16, 24, 36, 54, ... up to the most, and a look for clear changes at 9 or 10 "
                               "where 8 cannot reject)")
                    ->delimiter(',');
  fixed->excludes(most)->excludes(looks);
  auto* spending = ab->add_option_function<std::string>(
        "--spending",
        [&options](const std::string& v) {
          options.spending =
              v == "obrien-fleming" ? stats::SpendingFunction::obrien_fleming : stats::SpendingFunction::pocock;
        },
        "sequential sampling: how alpha is spent across looks, pocock (default: even, for early stops) or "
        "obrien-fleming (most at the last look)")
      ->check(CLI::IsMember({"pocock", "obrien-fleming"}));
  fixed->excludes(spending);
  auto* extend =
      ab->add_option_function<std::size_t>(
            "--extend-to", [&options](std::size_t n) { options.extend_to = n; },
            "sequential sampling: an instance whose interval lies wholly beyond the floor at the last look, only its "
            "p (corrected for the instances) short of the level, goes on sampling up to N per side (default 60, or "
            "less where the sweep's instances x 60 x 2 sides are more than one run holds; 0, or N not above the "
            "most, for none); these looks spend a quarter of alpha (docs/statistics.md)")
          ->check(whole_number());
  fixed->excludes(extend);
  auto* futility =
      ab->add_option_function<double>(
            "--futility", [&options](double p) { options.futility = p; },
            "sequential sampling: stop an instance whose estimate lies inside the floor UNCERTAIN at a look after the "
            "first when its predicted chances of SAME and of an interval beyond the floor at the last look are both "
            "below P (at most 0.5); default 0.01, 0 for none (docs/statistics.md)")
          ->check(CLI::Range(0.0, kMaxFutility));
  fixed->excludes(futility);
  ab->footer(kExitCodesHelp);
  ab->callback([&command, &exit_code, spending, extend, futility] {
    command.request.ab = true;
    auto& r = command.request;
    for (auto* file : {&command.pytest.file, &command.script.file})
      if (!file->empty()) *file = std::filesystem::absolute(*file).lexically_normal().string();
    // An A/B across Python environments: one worker build on both sides.
    if (r.baseline.empty() && r.candidate.empty() && r.python.any_side_given())
      r.baseline = r.candidate = default_worker_path();
    // Looks or their spending given: sequential (with --samples N, N at most; over Slurm shards,
    // refused). None of the choices: sequential where the sweep allows it
    // (RunRequest::sequential_by_default); --samples N asks for N samples per side, a Slurm run
    // cannot look across its shards.
    if (r.max_samples || !r.looks.empty() || spending->count() > 0 || extend->count() > 0 || futility->count() > 0)
      r.until_verdict = true;
    else if (!r.until_verdict && !command.fixed_n && !r.overrides.has("samples") && !r.slurm.sharded())
      r.sequential_by_default = true;
    exit_code = run_command(command);
  });
}

int run_command(const RunCommand& command) {
  return exit_code_of("orchestrate", std::cerr, [&] {
    RunRequest r = command.request;
    r.log = Log::to_stderr(r.quiet);
    if (r.ab)
      for (const auto& [path, flag] : {std::pair{&r.baseline, "--baseline"}, std::pair{&r.candidate, "--candidate"}})
        if (path->empty())
          throw UsageError(std::string(flag) +
                           " is required (a worker build or a build of the sweep's plugin; a Python sweep may give "
                           "per-side Python options instead)");
    auto read = read_paths(r, command);
    check_output_dir("--out", r.out_dir, read);
    read.push_back({"the run directory this run writes", r.out_dir, true});
    check_ci_outputs(command.ci, read);
    // --pytest and --script make the sweep (one excludes the other).
    const auto make_sweep = [&r](const std::string& flag, const std::string& file, auto text) {
      if (!r.sweep_path.empty())
        throw UsageError(flag + " " + file + " and a sweep file " + r.sweep_path + ": " + flag +
                         " makes the sweep; give one of them");
      r.made_sweep = {flag + " " + file, std::move(text)};
    };
    if (!command.pytest.file.empty())
      make_sweep("--pytest", command.pytest.file,
                 [suite = command.pytest](const std::string& device) { return pytest_sweep_text(suite, device); });
    if (!command.script.file.empty())
      make_sweep("--script", command.script.file,
                 [suite = command.script](const std::string& device) { return script_sweep_text(suite, device); });
    const auto executor = choose_executor(r);
    const RunResult result = run(r, *executor);
    const int code = result.exit_code();
    if (result.status == RunStatus::already_complete || result.status == RunStatus::submitted) return code;
    if (result.comparison) {
      if (command.format) make_printer(*command.format)->comparison(std::cout, *result.comparison);
      print_outcome_line(*result.comparison, code, command.format, std::cout, std::cerr);
      write_ci_outputs(command.ci, ci_report(*result.comparison, "orchestrate ab", code));
    } else if (command.format && result.status != RunStatus::interrupted) {
      make_printer(*command.format)->summary(std::cout, result.summary);
    }
    const std::size_t missing = result.samples_expected - std::min(result.samples_recorded, result.samples_expected);
    if (result.status == RunStatus::interrupted)
      std::cerr << "orchestrate: interrupted; " << result.samples_recorded << " of " << result.samples_expected
                << " samples kept; finish with: orchestrate --resume " << result.dir << "\n";
    else if (result.status == RunStatus::incomplete && !result.outcome.deterministic_failure.empty())
      std::cerr << "orchestrate: " << missing << " of " << result.samples_expected
                << " samples not measured: workers failed before their first sample with one cause, not retried: "
                << result.outcome.deterministic_failure << " (see " << result.dir << "/log.txt)\n";
    else if (result.status == RunStatus::incomplete)
      std::cerr << "orchestrate: " << missing << " of " << result.samples_expected << " samples failed ("
                << result.outcome.failures.size() << " worker failures; see " << result.dir << "/log.txt; --resume "
                << result.dir << " measures them again)\n";
    return code;
  });
}

}  // namespace isobench::orchestrator
