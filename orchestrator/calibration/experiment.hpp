#pragma once
// The runs of a calibration and where they live: K identical runs per isolation mode in
// DIR/<mode>/run-<k>/, and K runs per injected slowdown in DIR/<mode>/slowdown-<pct>/run-<k>/,
// each an ordinary run directory made by the run library (orchestrator/run/run.hpp) in-process. A variant other than baseline
// (--variants) adds its name under the mode: DIR/<mode>/<variant>/run-<k>/. DIR/experiment.json
// keeps the settings, so a second invocation (or --resume DIR) skips complete runs and resumes
// the rest.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "orchestrator/calibration/analysis.hpp"
#include "orchestrator/calibration/variant.hpp"
#include "orchestrator/recorded_environment.hpp"
#include "orchestrator/sweep.hpp"

namespace isobench::orchestrator::calibration {

inline constexpr int kExperimentSchemaVersion = 1;

// sequential | interleave | process (a fresh worker per batch) | process-sample | ab
const std::vector<std::string>& known_modes();

struct ExperimentSpec {
  std::string sweep_path;  // absolute; runs read it while it matches the copy DIR/sweep.yaml, else the copy
  std::string sweep_name;
  std::string dir;
  std::vector<std::string> modes;
  std::vector<Variant> variants = {Variant{}};  // each mode runs once per variant; default: baseline only
  int runs = 5;
  std::vector<double> real_slowdowns;  // percent
  std::string device = "auto";
  int gpu = 0;
  std::string worker;  // the worker build, absolute (the default's path when none was given)
  double worker_timeout_s = 120;
  int retries = 2;
  int prestart = -1;  // as orchestrate --prestart; -1: the run's default (1 on the GPU, 0 on the CPU)
  SettingsOverrides overrides;
  // The variables of orchestrate's environment that decide what a sample measures, as the
  // calibration started (as a run's plan.json records them): its later runs, and a resume's, are
  // measured in it or refused. None in an experiment.json from before it was recorded.
  std::optional<RecordedEnvironment> environment_variables;
  AnalysisOptions analysis;

  // What must not change between invocations on one directory: the measurement itself.
  nlohmann::json measurement_json() const;
  nlohmann::json to_json() const;
  static ExperimentSpec from_json(const nlohmann::json& j);  // throws std::runtime_error
};

struct PlannedRun {
  std::string mode;
  Variant variant;
  double slowdown_pct = 0;  // 0: an A/A run
  int k = 0;
  std::string dir;
  // "interleave/run-2", "process/slowdown-5/run-0", "process/idle_gap_ms=50/run-1"
  std::string label() const;
};

std::vector<PlannedRun> planned_runs(const ExperimentSpec& spec);

struct ExperimentOutcome {
  int exit_code = 0;      // 0; 3 some run not complete; 130 interrupted; 2 bad input
  std::string refusal;    // exit code 2: why the first run refused its input
  std::size_t skipped = 0;  // runs already complete
  std::size_t ran = 0;
  std::size_t incomplete = 0;
  // A run's workers failed before their first sample with one cause (exit code 3): the run, the
  // cause and where its log is. The runs after it were not started: they would fail the same way.
  std::string deterministic_failure;
};

// Runs every planned run not complete yet, in plan order, with a progress line (and ETA) per
// run on stderr unless quiet.
ExperimentOutcome run_experiment(const ExperimentSpec& spec, bool quiet);

// The calibration directory's own files (it is no run directory: it has no run.json), written
// through a temporary file and rename() like a run's, so a reader never sees half a file.
void write_calibration_file(const std::string& dir, const std::string& name, const std::string& text);
nlohmann::json read_calibration_json(const std::string& dir, const std::string& name);  // throws "path: problem"

// Reads the samples of every planned run that has a journal (complete or not).
CalibrationInput load_input(const ExperimentSpec& spec);

}  // namespace isobench::orchestrator::calibration
