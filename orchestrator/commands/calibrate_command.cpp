#include "orchestrator/commands/calibrate_command.hpp"
#include "orchestrator/commands/option_checks.hpp"
#include "orchestrator/commands/run_command.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include "orchestrator/calibration/analysis.hpp"
#include "orchestrator/calibration/experiment.hpp"
#include "orchestrator/compare/comparison.hpp"
#include "orchestrator/interrupt.hpp"
#include "orchestrator/printers/calibration_report.hpp"
#include "orchestrator/printers/printer.hpp"
#include "orchestrator/recorded_environment.hpp"
#include "orchestrator/run/plan_run.hpp"
#include "orchestrator/run/resume_checks.hpp"
#include "orchestrator/run/run.hpp"
#include "orchestrator/run_directory.hpp"
#include "orchestrator/sweep.hpp"

namespace fs = std::filesystem;

namespace isobench::orchestrator {

namespace {

using namespace calibration;

struct CalibrateArgs {
  std::string sweep, resume, out;
  std::string modes = "sequential,interleave,process,ab";
  std::string variants = "baseline";
  int runs = 5;
  std::vector<double> real_slowdowns;
  double target_power_pct = 90, target_delta_pct = 5, target_alpha = 0.001;
  std::size_t max_n = 512, power_repetitions = 1000;
  std::size_t sequential_most = 0, extend_to = kDefaultExtendTo;
  std::string device = "auto";
  int gpu = 0;
  std::string worker;
  double worker_timeout_s = 120;
  int retries = 2;
  int prestart = -1;
  bool quiet = false;
  SettingsOverrides overrides;
  std::set<std::string> given;  // the options on the command line, by their long name
};

std::vector<std::string> split_modes(const std::string& text) {
  std::vector<std::string> modes;
  std::stringstream in(text);
  std::string mode;
  while (std::getline(in, mode, ',')) {
    if (std::find(known_modes().begin(), known_modes().end(), mode) == known_modes().end())
      throw UsageError("--modes: unknown mode '" + mode +
                     "' (known: sequential, interleave, process, process-sample, ab)");
    if (std::find(modes.begin(), modes.end(), mode) != modes.end())
      throw UsageError("--modes: '" + mode + "' given twice");
    modes.push_back(mode);
  }
  if (modes.empty()) throw UsageError("--modes: give at least one mode");
  return modes;
}

ExperimentSpec spec_from_args(const CalibrateArgs& a) {
  if (a.runs < 2) throw UsageError("--runs must be at least 2 (A/A pairs need two runs)");
  for (double p : a.real_slowdowns)
    if (!(p > 0)) throw UsageError("--real-slowdown must be a positive percentage");
  if (!(a.target_power_pct > 0 && a.target_power_pct < 100))
    throw UsageError("--target-power must be a percentage in (0, 100)");
  if (!(a.target_delta_pct > 0)) throw UsageError("--target-delta must be a positive percentage");
  if (!(a.target_alpha > 0 && a.target_alpha < 1)) throw UsageError("--target-alpha must be in (0, 1)");
  if (a.max_n < 2) throw UsageError("--max-n must be at least 2");
  if (a.power_repetitions == 0) throw UsageError("--power-repetitions must be at least 1");
  if (a.sequential_most == 1) throw UsageError("--max-samples must be 0 (the runs' samples) or at least 2");
  if (!a.worker.empty()) check_worker_build(a.worker, "--worker");  // before a directory exists
  ExperimentSpec s;
  s.sweep_path = a.sweep.empty() ? a.sweep : fs::absolute(a.sweep).lexically_normal().string();
  s.modes = split_modes(a.modes);
  try {
    s.variants = parse_variants(a.variants);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--variants: ") + e.what());
  }
  s.runs = a.runs;
  s.real_slowdowns = a.real_slowdowns;
  std::sort(s.real_slowdowns.begin(), s.real_slowdowns.end());
  s.real_slowdowns.erase(std::unique(s.real_slowdowns.begin(), s.real_slowdowns.end()), s.real_slowdowns.end());
  s.device = a.device;
  s.gpu = a.gpu;
  // The build is recorded, not "the default": a resume measures with it wherever orchestrate is then.
  s.worker = a.worker.empty() ? default_worker_path() : fs::absolute(a.worker).lexically_normal().string();
  s.worker_timeout_s = a.worker_timeout_s;
  s.retries = a.retries;
  s.prestart = a.prestart;
  s.overrides = a.overrides;
  s.analysis.target_power = a.target_power_pct / 100;
  s.analysis.target_delta = a.target_delta_pct / 100;
  s.analysis.target_alpha = a.target_alpha;
  s.analysis.max_n = a.max_n;
  s.analysis.power_repetitions = a.power_repetitions;
  s.analysis.sequential_most = a.sequential_most;
  s.analysis.sequential_extend_to = a.extend_to;
  return s;
}

bool directory_has_files(const std::string& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && !fs::is_empty(dir, ec);
}

// A calibration directory's experiment.json; damage there is bad input.
ExperimentSpec stored_experiment(const std::string& dir) {
  try {
    return ExperimentSpec::from_json(read_calibration_json(dir, "experiment.json"));
  } catch (const std::exception& e) {
    throw UsageError(dir + ": " + e.what());
  }
}

// The environment the calibration was started in (experiment.json's environment_variables), as
// it is now: a variable that decides what a sample measures, set otherwise, would measure its
// later runs in another environment than its first. Refused in one line between `before` and
// `after`; an experiment.json from before it was recorded is not checked.
void check_environment(const ExperimentSpec& spec, const std::string& before, const std::string& after) {
  if (!spec.environment_variables) return;
  const std::string difference = environment_difference(*spec.environment_variables, "the calibration was started");
  if (!difference.empty()) throw UsageError(before + difference + after);
}

// The environment variables a calibration of `sweep` records: those that decide what its runs'
// workers measure, as a run's plan.json records them (PATH where a command benchmark's program
// is looked up in it).
RecordedEnvironment deciding_environment(const Sweep& sweep) {
  const bool path_decides = std::any_of(sweep.instances.begin(), sweep.instances.end(),
                                        [](const Instance& i) { return looked_up_in_path(i.command); });
  return record_environment(deciding_variables(path_decides));
}

// What a calibration directory holds, planned again over it (--out DIR): it may grow (more modes,
// variants, runs or slowdowns), never shrink, which would leave runs measured out of its analysis
// and its resumes. "" when `grown` keeps all of `stored`, else both, as options: "--runs 5 (this
// one: --runs 3)".
std::string shrunk(const ExperimentSpec& stored, const ExperimentSpec& grown) {
  const auto list = [](const auto& items, const auto& name) {
    std::string text;
    for (const auto& x : items) text += (text.empty() ? "" : ",") + name(x);
    return text;
  };
  const auto keeps = [](const auto& had, const auto& has, const auto& name) {
    return std::all_of(had.begin(), had.end(), [&](const auto& x) {
      return std::any_of(has.begin(), has.end(), [&](const auto& y) { return name(y) == name(x); });
    });
  };
  const auto both = [](const std::string& flag, const std::string& held, const std::string& given) {
    return flag + " " + held + " (this one: " + flag + " " + (given.empty() ? "none" : given) + ")";
  };
  const auto mode = [](const std::string& m) { return m; };
  const auto variant = [](const Variant& v) { return v.name; };
  const auto pct = [](double p) {
    std::ostringstream text;
    text << p;
    return text.str();
  };
  if (!keeps(stored.modes, grown.modes, mode))
    return both("--modes", list(stored.modes, mode), list(grown.modes, mode));
  if (!keeps(stored.variants, grown.variants, variant))
    return both("--variants", list(stored.variants, variant), list(grown.variants, variant));
  if (grown.runs < stored.runs) return both("--runs", std::to_string(stored.runs), std::to_string(grown.runs));
  if (!keeps(stored.real_slowdowns, grown.real_slowdowns, pct))
    return both("--real-slowdown", list(stored.real_slowdowns, pct), list(grown.real_slowdowns, pct));
  return "";
}

// The settings of a calibration planned again over its directory (--out DIR) that decide how its
// runs are read (--target-power, ...) or how failures are handled (--worker-timeout, --retries):
// given, they replace the recorded ones, and the directory is analysed again with them: its runs
// are kept and the analysis is a function of them, so nothing measured is lost and the earlier
// reading comes back by giving the earlier settings. Left out, the recorded ones stay: a default
// does not replace what was chosen. --prestart decides how samples are taken: given otherwise than
// recorded, refused as a measurement setting is (a calibration's runs are pooled). Returns a note
// naming each setting replaced, "" when none.
std::string take_settings_over(ExperimentSpec& spec, const ExperimentSpec& stored, const CalibrateArgs& a) {
  std::string replaced;
  const auto take = [&](const char* flag, auto& value, const auto& was, double shown) {
    if (!a.given.count(flag)) {
      value = was;
    } else if (value != was) {
      std::ostringstream text;
      text << flag << " " << static_cast<double>(value) * shown << " (was " << static_cast<double>(was) * shown << ")";
      replaced += (replaced.empty() ? "" : ", ") + text.str();
    }
  };
  auto& an = spec.analysis;
  const auto& had = stored.analysis;
  take("--target-power", an.target_power, had.target_power, 100);
  take("--target-delta", an.target_delta, had.target_delta, 100);
  take("--target-alpha", an.target_alpha, had.target_alpha, 1);
  take("--max-n", an.max_n, had.max_n, 1);
  take("--power-repetitions", an.power_repetitions, had.power_repetitions, 1);
  take("--max-samples", an.sequential_most, had.sequential_most, 1);
  take("--extend-to", an.sequential_extend_to, had.sequential_extend_to, 1);
  take("--worker-timeout", spec.worker_timeout_s, stored.worker_timeout_s, 1);
  take("--retries", spec.retries, stored.retries, 1);
  if (a.given.count("--prestart") && spec.prestart != stored.prestart)
    throw UsageError(spec.dir + " holds a calibration measured with " +
                     (stored.prestart < 0 ? "the default pre-start" : "--prestart " + std::to_string(stored.prestart)) +
                     " (this one: --prestart " + std::to_string(spec.prestart) +
                     "); leave --prestart out, or use another --out");
  spec.prestart = stored.prestart;
  return replaced;
}

// A resumed calibration measures as it began (experiment.json): an option that would measure
// otherwise is refused naming both, one that would plan other runs is not taken, and the recorded
// worker build must still be there.
void check_resume_options(const CalibrateArgs& a, const ExperimentSpec& spec) {
  const std::string resume = "--resume " + a.resume;
  const auto refuse = [&](const std::string& flag, const std::string& given, const std::string& recorded) {
    throw UsageError(resume + ": " + flag + " " + given + " is not what the calibration was started with (" + recorded +
                     "); a resumed calibration measures as it began: leave " + flag + " out");
  };
  if (a.given.count("--worker") && !same_file(a.worker, spec.worker)) refuse("--worker", a.worker, spec.worker);
  if (a.given.count("--device") && a.device != spec.device) refuse("--device", a.device, "--device " + spec.device);
  if (a.given.count("--gpu") && a.gpu != spec.gpu)
    refuse("--gpu", std::to_string(a.gpu), "--gpu " + std::to_string(spec.gpu));
  if (a.given.count("--prestart") && a.prestart != spec.prestart)
    refuse("--prestart", std::to_string(a.prestart),
           spec.prestart < 0 ? "the default pre-start" : "--prestart " + std::to_string(spec.prestart));
  const auto text = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  for (const auto& [name, value] : a.overrides.values().items()) {
    const std::string flag = ipc::find_setting(name)->flag();
    const auto& recorded = spec.overrides.values();
    if (!recorded.contains(name)) refuse(flag, text(value), "the sweep's " + name);
    if (recorded.at(name) != value) refuse(flag, text(value), flag + " " + text(recorded.at(name)));
  }
  for (const char* flag :
       {"--out", "--modes", "--variants", "--runs", "--real-slowdown", "--target-power", "--target-delta",
        "--target-alpha", "--max-n", "--power-repetitions", "--worker-timeout", "--retries"})
    if (a.given.count(flag))
      throw UsageError(resume + ": " + flag +
                       " is not taken: a resumed calibration finishes the runs its experiment.json plans; to plan "
                       "others give the sweep with --out " + a.resume);
  check_worker_build(spec.worker, resume + ": the calibration's worker build");
  check_environment(spec, resume + ": ",
                    "; a resumed calibration measures in the environment it began with: set it back, or start "
                    "a new calibration");
}

// What a fresh calibration made, undone when its first run refuses its input: the outermost folder
// this invocation created, or the contents of the empty folder it was given.
struct FreshDirectory {
  fs::path folder;  // empty: nothing fresh (a resumed calibration)
  bool existed = false;
  void undo() const {
    std::error_code ec;
    if (!existed) fs::remove_all(folder, ec);
    else
      for (const auto& entry : fs::directory_iterator(folder, ec)) fs::remove_all(entry.path(), ec);
  }
};

// Prepares the calibration directory.
FreshDirectory prepare_directory(ExperimentSpec& spec, const CalibrateArgs& args) {
  if (!args.resume.empty()) {
    if (!args.sweep.empty()) throw UsageError("give a sweep file or --resume DIR, not both");
    std::error_code ec;
    if (!fs::exists(fs::path(args.resume) / "experiment.json", ec))
      throw UsageError(args.resume + ": not a calibration directory (no experiment.json)");
    spec = stored_experiment(args.resume);
    spec.dir = args.resume;
    check_resume_options(args, spec);
    return {};
  }
  if (args.sweep.empty()) throw UsageError("give a sweep file (or --resume DIR); see --help");
  spec = spec_from_args(args);
  const Sweep sweep = load_sweep(args.sweep, spec.overrides);  // every problem before anything runs
  for (const auto& v : spec.variants) {
    if (v.is_baseline()) continue;
    try {
      load_sweep(args.sweep, with_variant(spec.overrides, v));  // e.g. realloc with a command benchmark
    } catch (const SweepError& e) {
      throw UsageError("--variants " + v.name + ": " + e.what());
    }
  }
  // A calibration whose n cannot reach a verdict at the target alpha measures no power at all.
  VerdictRule rule;
  rule.alpha = spec.analysis.target_alpha;
  if (const auto problem = unreachable_verdict(static_cast<std::size_t>(sweep.settings.samples),
                                               static_cast<std::size_t>(sweep.settings.samples),
                                               sweep.instances.size(), rule);
      !problem.empty())
    throw UsageError(problem + " (--target-alpha): give --samples N");
  spec.sweep_name = sweep.name;
  spec.dir = args.out.empty() ? "runs/calibrate-" + sweep.name + "-" + compact_utc_timestamp() : args.out;
  std::error_code ec;
  if (fs::exists(fs::path(spec.dir) / "experiment.json", ec)) {
    // Re-running on a directory: the measurement must be the same; modes, K and slowdowns may grow.
    const auto stored = stored_experiment(spec.dir);
    std::ifstream in(fs::path(spec.dir) / "sweep.yaml");
    const std::string stored_sweep((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (stored.measurement_json() != spec.measurement_json() || stored_sweep != sweep.source_text)
      throw UsageError(spec.dir +
                     " holds a calibration with another sweep or other measurement settings; use another --out");
    check_environment(stored, spec.dir + " holds a calibration measured in another environment: ",
                      "; set it back, or use another --out");
    if (const auto lost = shrunk(stored, spec); !lost.empty())
      throw UsageError(spec.dir + " holds a calibration of " + lost +
                       ": a calibration only grows, and its runs would be left out; give at least what it holds, or "
                       "use another --out");
    const std::string replaced = take_settings_over(spec, stored, args);
    // Its runs were measured in the environment it recorded (none before it was recorded).
    spec.environment_variables = stored.environment_variables;
    write_calibration_file(spec.dir, "experiment.json", spec.to_json().dump(2) + "\n");
    if (!replaced.empty())
      std::cerr << "calibrate: " << spec.dir << " is analysed again with " << replaced
                << " (its runs are kept; the earlier settings, given again, read them as before)\n";
    return {};
  }
  spec.environment_variables = deciding_environment(sweep);
  if (fs::exists(spec.dir, ec) && !fs::is_directory(spec.dir, ec))
    throw UsageError(spec.dir + " exists and is not a directory");
  if (directory_has_files(spec.dir))
    throw UsageError(spec.dir + " exists and is not a calibration directory");
  FreshDirectory fresh{fs::absolute(spec.dir).lexically_normal(), fs::exists(spec.dir, ec)};
  while (!fresh.existed && fresh.folder.parent_path() != fresh.folder && !fs::exists(fresh.folder.parent_path(), ec))
    fresh.folder = fresh.folder.parent_path();
  fs::create_directories(spec.dir, ec);
  if (ec) throw UsageError(spec.dir + ": cannot create: " + ec.message());
  write_calibration_file(spec.dir, "sweep.yaml", sweep.source_text);
  write_calibration_file(spec.dir, "experiment.json", spec.to_json().dump(2) + "\n");
  return fresh;
}

void write_outputs(const ExperimentSpec& spec, const CalibrationInput& input, const CalibrationResult& result) {
  auto j = to_json(result);
  j["sweep"] = spec.sweep_name;
  j["device"] = input.device;
  j["runs_per_mode"] = spec.runs;  // per mode and variant
  j["variants"] = nlohmann::json::array();
  for (const auto& v : spec.variants) j["variants"].push_back(v.name);
  j["real_slowdowns_pct"] = spec.real_slowdowns;
  j["created"] = utc_timestamp();
  write_calibration_file(spec.dir, "calibration.json", j.dump(2) + "\n");
  const CalibrationReportContext context{spec.sweep_name, input.device, static_cast<std::size_t>(spec.runs),
                                         spec.real_slowdowns};
  write_calibration_file(spec.dir, "report.md", calibration_report_markdown(result, context));
  write_calibration_file(spec.dir, "fpr.svg", fpr_chart_svg(result));
  write_calibration_file(spec.dir, "power_delta.svg", power_delta_chart_svg(result));
  write_calibration_file(spec.dir, "power_n.svg", power_n_chart_svg(result));
}

int calibrate(const CalibrateArgs& args) {
  install_interrupt_handlers();
  ExperimentSpec spec;
  const FreshDirectory fresh = prepare_directory(spec, args);
  if (!args.quiet) std::cerr << "calibration directory: " << spec.dir << "\n";
  const auto outcome = run_experiment(spec, args.quiet);
  if (outcome.exit_code == exit_bad_input) {
    // The first run refused its input: leave nothing behind.
    if (!fresh.folder.empty() && outcome.ran == 0 && outcome.skipped == 0) fresh.undo();
    throw UsageError(outcome.refusal);
  }
  if (outcome.exit_code == exit_interrupted) {
    std::cerr << "calibrate: interrupted; finish with: orchestrate calibrate --resume " << spec.dir << "\n";
    return exit_interrupted;
  }
  if (!outcome.deterministic_failure.empty()) {
    // What --resume would retry is what failed: the cause is to be fixed, not retried.
    std::cerr << "calibrate: workers failed before their first sample with one cause, not retried: "
              << outcome.deterministic_failure << "; nothing analysed\n";
    return outcome.exit_code;
  }
  const auto input = load_input(spec);
  AnalysisOptions options = spec.analysis;
  // Every run is complete and kept; only the reading is cut, and nothing of it is written.
  options.checkpoint = [&spec] {
    if (interrupt_requested())
      throw Interrupted("interrupted during the analysis (every run is complete); analyse with: orchestrate "
                        "calibrate --resume " + spec.dir);
  };
  const CalibrationResult result = analyse(input, options);
  write_outputs(spec, input, result);
  make_printer(Format::table)->calibration(std::cout, result);
  if (!args.quiet) std::cerr << "calibrate: report in " << spec.dir << "/report.md\n";
  if (outcome.exit_code == 3)
    std::cerr << "calibrate: " << outcome.incomplete << " runs are not complete; the analysis used what they hold. "
              << "Retry them with: orchestrate calibrate --resume " << spec.dir << "\n";
  return outcome.exit_code;
}

}  // namespace

void register_calibrate_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CalibrateArgs>();
  auto* cmd = app.add_subcommand(
      "calibrate",
      "A/A calibration: K identical runs per isolation mode; false-positive rate of every pair of runs "
      "(Brunner-Munzel, alpha 0.001/0.01/0.05, Wilson intervals), power to detect slowdowns, samples needed, "
      "cost per mode. Writes calibration.json, report.md and SVG charts. See docs/calibration.md");
  auto& a = *args;
  cmd->add_option("sweep", a.sweep, "sweep file (YAML)");
  cmd->add_option("--resume", a.resume, "finish a calibration directory: skip complete runs, resume the rest, analyse");
  cmd->add_option("--out", a.out,
                  "calibration directory (default: runs/calibrate-<sweep>-<utc time>); an existing one is resumed");
  cmd->add_option("--runs", a.runs, "K: identical runs per mode (>= 2)")->capture_default_str();
  cmd->add_option("--modes", a.modes,
                  "comma-separated: sequential, interleave, process (fresh worker per batch), process-sample "
                  "(fresh worker per sample), ab (one build on both sides of an A/B run)")
      ->capture_default_str();
  cmd->add_option("--variants", a.variants,
                  "comma-separated isolation measures, each calibrated on its own over every mode (a row per mode "
                  "and variant; '+' joins measures): " +
                      variant_syntax() + ". E.g. baseline,cold_cache,idle_gap_ms=50,realloc")
      ->capture_default_str();
  // One value per occurrence, so that `--real-slowdown 5 sweep.yaml` leaves the sweep alone.
  cmd->add_option("--real-slowdown", a.real_slowdowns,
                  "PCT: K more runs per mode (not ab) with a real injected slowdown of PCT percent; repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--target-power", a.target_power_pct, "power (percent) the recommended n must reach")
      ->capture_default_str();
  cmd->add_option("--target-delta", a.target_delta_pct, "slowdown (percent) the recommended n must detect")
      ->capture_default_str();
  cmd->add_option("--target-alpha", a.target_alpha, "alpha of the power tables and the recommended n")
      ->capture_default_str();
  cmd->add_option("--max-n", a.max_n, "largest n searched for the target power")
      ->check(whole_number())
      ->capture_default_str();
  cmd->add_option("--power-repetitions", a.power_repetitions, "simulated comparisons per (n, delta)")
      ->check(whole_number())
      ->capture_default_str();
  cmd->add_option("--max-samples", a.sequential_most,
                  "the sequential rule's most samples per side, as ab --max-samples (default 0: the runs' samples)")
      ->check(whole_number())
      ->capture_default_str();
  cmd->add_option("--extend-to", a.extend_to,
                  "the sequential rule's cap for an instance beyond the floor short of its level, as ab --extend-to "
                  "(0: none); the measured comparisons reach it where the runs have its samples")
      ->check(whole_number())
      ->capture_default_str();
  cmd->add_option("--device", a.device, "where to run: auto, cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--gpu", a.gpu, "CUDA device index")->check(whole_number())->capture_default_str();
  cmd->add_option("--worker", a.worker, "worker executable (default: isobench-worker beside orchestrate)");
  cmd->add_option("--worker-timeout", a.worker_timeout_s, "seconds without a worker heartbeat before it is killed")
      ->check(positive_number())
      ->capture_default_str();
  cmd->add_option("--retries", a.retries, "fresh workers tried for the samples of a failed one")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  cmd->add_option("--prestart", a.prestart,
                  "workers started ahead of the measuring one in every run (default as for runs: 1 on the GPU, 0 on the CPU)")
      ->check(CLI::Range(0, 8));
  cmd->add_flag("-q,--quiet", a.quiet, "no progress on stderr");
  // Measurement settings of every run; isolation comes from --modes, slowdowns from --real-slowdown.
  // Those three options are refused by name (hidden from --help), not left for CLI11 to report as
  // "arguments not expected", a message that names the sweep file first.
  add_setting_options(*cmd, a.overrides, {"isolation", "per", "slowdown_pct"});
  for (const auto& [name, why] : {std::pair{"isolation", "calibrate sets the isolation of its runs from --modes"},
                                  std::pair{"per", "calibrate sets the isolation of its runs from --modes "
                                                   "(process-sample: a fresh worker per sample)"},
                                  std::pair{"slowdown_pct", "calibrate injects slowdowns with --real-slowdown"}}) {
    const std::string flag = ipc::find_setting(name)->flag(), reason = why;
    cmd->add_option_function<std::string>(flag, [flag, reason](const std::string&) {
         throw CLI::ValidationError(flag, reason);
       })->group("");
  }
  cmd->footer(std::string(kExitCodesHelp) + " calibrate never exits 1: it measures false-positive rates, not a change.");
  cmd->callback([args, cmd, &exit_code] {
    for (const CLI::Option* option : cmd->get_options())
      if (option->count() > 0) args->given.insert(option->get_name());
    exit_code = exit_code_of("calibrate", std::cerr, [&] { return calibrate(*args); });
  });
}

}  // namespace isobench::orchestrator
