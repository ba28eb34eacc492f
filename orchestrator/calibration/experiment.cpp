#include "orchestrator/calibration/experiment.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "orchestrator/json_errors.hpp"
#include "orchestrator/run/local_executor.hpp"
#include "orchestrator/run/run.hpp"
#include "orchestrator/starters/worker_starters.hpp"
#include "orchestrator/plan.hpp"
#include "orchestrator/progress.hpp"
#include "orchestrator/run_directory.hpp"
#include "orchestrator/sample_journal.hpp"

namespace fs = std::filesystem;

namespace isobench::orchestrator::calibration {

namespace {

std::string pct_text(double pct) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", pct);
  return buf;
}

// The run's status from run.json; "" when the run has not started.
std::string run_status(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(fs::path(dir) / "run.json", ec)) return "";
  try {
    return RunDirectory::open(dir).read_json("run.json").value("status", "unknown");
  } catch (const std::exception&) {
    return "unknown";
  }
}

// The sweep a run reads: the file the user gave while it still holds the text the calibration
// copied, so that paths relative to its folder (plugins, Python files, commands) resolve as in a
// plain run of it; else the copy DIR/sweep.yaml (the calibration measures the sweep it started with).
std::string measured_sweep_path(const ExperimentSpec& spec) {
  const std::string copy = (fs::path(spec.dir) / "sweep.yaml").string();
  auto slurp = [](const std::string& path) -> std::optional<std::string> {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const auto given = slurp(spec.sweep_path);
  return given && given == slurp(copy) ? spec.sweep_path : copy;
}

RunRequest run_request(const ExperimentSpec& spec, const PlannedRun& run) {
  RunRequest o;
  o.sweep_path = measured_sweep_path(spec);
  o.device = spec.device;
  o.gpu = spec.gpu;
  o.worker = spec.worker;
  o.worker_timeout_s = spec.worker_timeout_s;
  o.retries = spec.retries;
  o.prestart = spec.prestart;
  o.quiet = true;
  o.overrides = with_variant(spec.overrides, run.variant);
  o.overrides.set("slowdown_pct", run.slowdown_pct);  // A/A runs: none, even if the sweep sets one
  o.command_line = {"orchestrate", "calibrate", "(in-process run of " + run.label() + ")"};
  if (run.mode == "sequential" || run.mode == "interleave") {
    o.overrides.set("isolation", run.mode);
    o.overrides.set("per", "batch");  // one worker takes every sample in these modes
  } else {
    o.overrides.set("isolation", "process");
    o.overrides.set("per", run.mode == "process-sample" ? "sample" : "batch");
  }
  if (run.mode == "ab") {
    o.ab = true;
    o.verdict.fail_on = FailOn::never;  // a calibration run measures rates; it gates nothing
    o.baseline = o.candidate = spec.worker.empty() ? default_worker_path() : spec.worker;
  }
  return o;
}

// A run of the experiment that was started already: finished from its own plan, which holds its
// settings, builds and GPU (a resumed run refuses any option that would choose them again).
RunRequest resume_request(const RunRequest& fresh, const std::string& dir) {
  RunRequest r;
  r.resume_dir = dir;
  r.device = fresh.device;
  if (!fresh.ab) r.worker = fresh.worker;
  r.worker_timeout_s = fresh.worker_timeout_s;
  r.retries = fresh.retries;
  r.prestart = fresh.prestart;
  r.verdict = fresh.verdict;
  r.quiet = fresh.quiet;
  r.command_line = fresh.command_line;
  return r;
}

// One run of the experiment: its exit code by the contract (130 interrupted, 3 incomplete) and
// what it measured.
RunResult run_experiment_run(const RunRequest& request) {
  LocalExecutor here(worker_starter_for(request));
  return run(request, here);
}

}  // namespace

const std::vector<std::string>& known_modes() {
  static const std::vector<std::string> modes = {"sequential", "interleave", "process", "process-sample", "ab"};
  return modes;
}

nlohmann::json ExperimentSpec::measurement_json() const {
  return {{"device", device}, {"gpu", gpu}, {"worker", worker}, {"overrides", overrides.values()}};
}

nlohmann::json ExperimentSpec::to_json() const {
  const auto& a = analysis;
  std::vector<std::string> variant_names;
  for (const auto& v : variants) variant_names.push_back(v.name);
  nlohmann::json j = {{"schema_version", kExperimentSchemaVersion},
                      {"sweep_path", sweep_path},
                      {"sweep_name", sweep_name},
                      {"modes", modes},
                      {"variants", variant_names},
                      {"runs", runs},
                      {"real_slowdowns", real_slowdowns},
                      {"measurement", measurement_json()},
                      {"worker_timeout_s", worker_timeout_s},
                      {"retries", retries},
                      {"prestart", prestart},
                      {"analysis",
                       {{"target_power", a.target_power},
                        {"target_delta", a.target_delta},
                        {"target_alpha", a.target_alpha},
                        {"max_n", a.max_n},
                        {"power_repetitions", a.power_repetitions},
                        {"sequential_most", a.sequential_most},
                        {"sequential_extend_to", a.sequential_extend_to}}}};
  if (environment_variables) j["environment_variables"] = environment_variables->to_json();
  return j;
}

ExperimentSpec ExperimentSpec::from_json(const nlohmann::json& j) {
  try {
    check_schema_version(j, "experiment.json");
    ExperimentSpec s;
    s.sweep_path = j.at("sweep_path").get<std::string>();
    s.sweep_name = j.at("sweep_name").get<std::string>();
    s.modes = j.at("modes").get<std::vector<std::string>>();
    // Written before --variants existed: the baseline alone.
    s.variants.clear();
    for (const auto& name : j.value("variants", std::vector<std::string>{"baseline"})) {
      try {
        s.variants.push_back(parse_variant(name));
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error(std::string("experiment.json: variants: ") + e.what());
      }
    }
    s.runs = j.at("runs").get<int>();
    s.real_slowdowns = j.at("real_slowdowns").get<std::vector<double>>();
    const auto& m = j.at("measurement");
    s.device = m.at("device").get<std::string>();
    s.gpu = m.at("gpu").get<int>();
    s.worker = m.at("worker").get<std::string>();
    // Written before the default build was recorded by its path: the one beside orchestrate, as then.
    if (s.worker.empty()) s.worker = default_worker_path();
    s.overrides = SettingsOverrides::from_json(m.at("overrides"));
    s.worker_timeout_s = j.at("worker_timeout_s").get<double>();
    s.retries = j.at("retries").get<int>();
    s.prestart = j.value("prestart", -1);
    const auto& a = j.at("analysis");
    s.analysis.target_power = a.at("target_power").get<double>();
    s.analysis.target_delta = a.at("target_delta").get<double>();
    s.analysis.target_alpha = a.at("target_alpha").get<double>();
    s.analysis.max_n = a.at("max_n").get<std::size_t>();
    s.analysis.power_repetitions = a.at("power_repetitions").get<std::size_t>();
    // Written before the extension: ab's defaults of the time, up to the runs' samples.
    s.analysis.sequential_most = a.value("sequential_most", std::size_t{0});
    s.analysis.sequential_extend_to = a.value("sequential_extend_to", std::size_t{0});
    if (j.contains("environment_variables")) try {
        s.environment_variables = RecordedEnvironment::from_json(j.at("environment_variables"));
      } catch (const std::runtime_error& e) {
        throw std::runtime_error(std::string("experiment.json: ") + e.what());
      }
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("experiment.json: " + json_error_text(e));
  }
}

std::string PlannedRun::label() const {
  return mode + (variant.is_baseline() ? "" : "/" + variant.name) +
         (slowdown_pct > 0 ? "/slowdown-" + pct_text(slowdown_pct) : "") + "/run-" + std::to_string(k);
}

std::vector<PlannedRun> planned_runs(const ExperimentSpec& spec) {
  std::vector<PlannedRun> runs;
  // Within a mode the variants take turns run by run, so drift over the experiment's hours
  // reaches every variant alike instead of favouring the first one measured.
  for (const auto& mode : spec.modes) {
    for (int k = 0; k < spec.runs; ++k)
      for (const auto& v : spec.variants) runs.push_back({mode, v, 0, k, ""});
    if (mode == "ab") continue;  // one build on both sides: no side can be slowed alone
    for (double pct : spec.real_slowdowns)
      for (int k = 0; k < spec.runs; ++k)
        for (const auto& v : spec.variants) runs.push_back({mode, v, pct, k, ""});
  }
  for (auto& r : runs) r.dir = (fs::path(spec.dir) / r.label()).string();
  return runs;
}

ExperimentOutcome run_experiment(const ExperimentSpec& spec, bool quiet) {
  ExperimentOutcome outcome;
  const auto runs = planned_runs(spec);
  std::vector<const PlannedRun*> todo;
  for (const auto& r : runs) {
    if (run_status(r.dir) == "complete")
      ++outcome.skipped;
    else
      todo.push_back(&r);
  }
  const Log log = Log::to_stderr(quiet);
  log.progress("calibrate: " + std::to_string(runs.size()) + " runs, " + std::to_string(outcome.skipped) +
               " already complete, " + std::to_string(todo.size()) + " to run");
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < todo.size(); ++i) {
    const PlannedRun& run = *todo[i];
    auto request = run_request(spec, run);
    const std::string status = run_status(run.dir);
    std::error_code ec;
    if (!status.empty()) {
      request = resume_request(request, run.dir);
    } else if (fs::exists(run.dir, ec) && !fs::exists(fs::path(run.dir) / "samples.jsonl", ec)) {
      // Stopped between creating the directory and its first run.json: nothing measured yet.
      fs::remove_all(run.dir, ec);
    }
    if (request.resume_dir.empty()) {
      request.out_dir = run.dir;
      fs::create_directories(fs::path(run.dir).parent_path(), ec);
    }
    const auto run_start = std::chrono::steady_clock::now();
    // A run that broke off (MeasurementFailed) is recorded in its directory and counts as not
    // complete; bad input stops the experiment (UsageError goes to the verb).
    int rc = exit_ok;
    try {
      const RunResult result = run_experiment_run(request);
      rc = result.exit_code();
      // Workers that fail before their first sample with one cause fail the same way in every run
      // left: the experiment stops here and says why, once.
      if (!result.outcome.deterministic_failure.empty()) {
        outcome.deterministic_failure = run.label() + ": " + result.outcome.deterministic_failure + " (see " +
                                        run.dir + "/log.txt)";
        outcome.exit_code = exit_measurement_failed;
        ++outcome.ran;
        ++outcome.incomplete;
        return outcome;
      }
    } catch (const MeasurementFailed& e) {
      log.progress("calibrate: " + run.label() + ": " + e.what());
      rc = exit_measurement_failed;
    } catch (const UsageError& e) {
      outcome.exit_code = exit_bad_input;
      outcome.refusal = e.what();
      return outcome;
    }
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (rc == exit_interrupted) {
      outcome.exit_code = exit_interrupted;
      return outcome;
    }
    ++outcome.ran;
    const bool complete = run_status(run.dir) == "complete";
    if (!complete) ++outcome.incomplete;
    const std::size_t left = todo.size() - i - 1;
    log.progress("calibrate: [" + std::to_string(outcome.skipped + i + 1) + "/" + std::to_string(runs.size()) + "] " +
                 run.label() + " " + (complete ? "complete" : "NOT complete (exit " + std::to_string(rc) + ")") +
                 " in " + format_duration(took) + "; " + std::to_string(left) + " left, ETA " +
                 format_duration(elapsed / static_cast<double>(i + 1) * static_cast<double>(left)));
  }
  if (outcome.incomplete) outcome.exit_code = exit_measurement_failed;
  return outcome;
}

void write_calibration_file(const std::string& dir, const std::string& name, const std::string& text) {
  const fs::path target = fs::path(dir) / name;
  const fs::path temporary = fs::path(dir) / ("." + name + ".tmp");
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error(temporary.string() + ": cannot write");
  }
  fs::rename(temporary, target);
}

nlohmann::json read_calibration_json(const std::string& dir, const std::string& name) {
  const fs::path path = fs::path(dir) / name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": cannot read");
  try {
    return nlohmann::json::parse(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path.string() + ": invalid JSON: " + json_error_text(e));
  }
}

CalibrationInput load_input(const ExperimentSpec& spec) {
  CalibrationInput input;
  std::map<std::string, std::size_t> index;  // instance id -> position in input.instances
  std::map<std::pair<std::string, std::string>, std::size_t> mode_index;  // (mode, variant) -> row
  for (const auto& mode : spec.modes)
    for (const auto& v : spec.variants) {
      mode_index[{mode, v.name}] = input.modes.size();
      input.modes.push_back({mode, mode == "ab", {}, {}, v.name});
    }
  for (const auto& run : planned_runs(spec)) {
    std::error_code ec;
    if (!fs::exists(fs::path(run.dir) / "plan.json", ec) || !fs::exists(fs::path(run.dir) / "run.json", ec)) continue;
    const auto dir = RunDirectory::open(run.dir);
    const Plan plan = Plan::from_json(dir.read_json("plan.json"));
    if (input.device.empty()) input.device = plan.device;
    for (const auto& p : plan.instances)
      if (index.emplace(p.worker.id, input.instances.size()).second) input.instances.push_back({p.worker.id, p.family});
    RunData data;
    data.values.resize(plan.instances.size());  // grown below once every run is read
    if (fs::exists(dir.file("samples.jsonl"), ec)) {
      for (const auto& s : read_journal(dir.file("samples.jsonl")).samples) {
        const std::size_t i = index.at(s.instance);
        if (data.values.size() <= i) data.values.resize(i + 1);
        data.values[i][s.side < 2 ? s.side : 1].push_back(s.values.value_s);
      }
    }
    const auto info = dir.read_json("run.json");
    data.wall_seconds = info.value("wall_seconds", 0.0);
    data.samples_recorded = info.value("samples_recorded", std::size_t{0});
    data.workers_started = info.value("workers_started", std::size_t{0});
    auto& mode = input.modes[mode_index.at({run.mode, run.variant.name})];
    if (run.slowdown_pct == 0) {
      mode.baseline.push_back(std::move(data));
    } else {
      auto it = std::find_if(mode.slowdowns.begin(), mode.slowdowns.end(),
                             [&](const SlowdownRuns& s) { return s.pct == run.slowdown_pct; });
      if (it == mode.slowdowns.end()) it = mode.slowdowns.insert(mode.slowdowns.end(), {run.slowdown_pct, {}});
      it->runs.push_back(std::move(data));
    }
  }
  // Every run holds a slot for every instance seen in any run.
  for (auto& mode : input.modes) {
    for (auto& r : mode.baseline) r.values.resize(input.instances.size());
    for (auto& s : mode.slowdowns)
      for (auto& r : s.runs) r.values.resize(input.instances.size());
  }
  return input;
}

}  // namespace isobench::orchestrator::calibration
