#pragma once
// A run as a library call: RunRequest -> run() -> RunResult (orchestrator/run/run.hpp). The verbs
// (`orchestrate`, `ab`, `calibrate`) only map their command lines onto a request and the result
// onto an exit code; calibration builds requests itself.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/compare/comparison.hpp"
#include "orchestrator/log.hpp"
#include "orchestrator/python/python_environment.hpp"
#include "orchestrator/run/slurm_options.hpp"
#include "orchestrator/runner/runner.hpp"
#include "orchestrator/summary.hpp"
#include "orchestrator/sweep.hpp"
#include "stats/sequential_design.hpp"

namespace isobench::orchestrator {

struct RunRequest {
  // What: a sweep file to plan and run, a sweep the verb made (ab --pytest makes one of a pytest
  // file, orchestrator/sweep/pytest_collection.hpp), or a run directory to finish (--resume).
  std::string sweep_path;
  struct MadeSweep {
    std::string label;  // what refusals name as its file: "--pytest FILE"
    // Its text (YAML) for the run's device, "cpu" or "cuda": --device auto measures it on the GPU
    // where there is one.
    std::function<std::string(const std::string& device)> text;
  };
  std::optional<MadeSweep> made_sweep;
  std::string resume_dir;
  std::string out_dir;  // a new run's directory; default runs/<sweep>-<utc time>
  // Where: the device and GPUs, and how much device memory one worker may hold.
  std::string device = "auto";  // auto | cpu | cuda
  std::optional<int> gpu;       // --gpu N
  std::string gpus;             // --gpus 0,1 | all: the instances dealt over several GPUs
  std::uint64_t memory_budget_mib = 0;  // 0: 90% of the GPU's free memory, half the host's
  bool require_idle_gpu = false;        // refuse to run while another process uses the GPU
  // The workers.
  std::string worker;  // default: isobench-worker beside orchestrate
  double worker_timeout_s = 120;
  int retries = 2;
  int prestart = -1;          // workers started ahead of the measuring one; -1: 1 on the GPU, 0 on the CPU
  bool context_gate = true;   // no context created or destroyed beside a measurement
  int setup_batch = 0;        // measuring workers released into their set-up at once (RunnerOptions); 0: the
                              // default of the run's starter (8 for Python on the GPU, else 1: StartedSides)
  // Whether --context-gate and --setup-batch were given: a resumed run takes the values it was
  // started with (run.json) and refuses others.
  bool context_gate_given = false, setup_batch_given = false;
  // Whether --worker-timeout, --retries and --memory-budget were given: a run resumed here takes
  // the values given (it records none; left out, the defaults), a Slurm run for the tasks that
  // start from then on (left out, what slurm.json's task_options recorded).
  bool worker_timeout_given = false, retries_given = false, memory_budget_given = false;
  // What is measured: overrides of the sweep's settings, an earlier run's choices to replay
  // (--replay-from), or an earlier run to measure like (--like: its inner counts, choices, seed and
  // sample-changing settings; orchestrator/run/like_run.hpp).
  SettingsOverrides overrides;
  std::string replay_from;
  std::string like;
  // Only these instances of the sweep, by id (orchestrate bisect tests the instances whose range
  // a commit halves); empty: every instance.
  std::vector<std::string> instances;
  // An A/B run: two builds (worker executables, or two builds of the sweep's plugin), each with
  // NAME=VALUE parameters forced on its workers (--baseline-set, --candidate-set), judged by
  // `verdict`.
  bool ab = false;
  std::string baseline, candidate;
  std::vector<std::string> baseline_sets, candidate_sets;
  VerdictRule verdict;
  // ab --until-verdict: sequential sampling (compare/sequential_verdict.hpp). The sweep's samples
  // (or max_samples) are the most an instance takes per side at the ordinary looks, past which
  // only an instance whose interval lies beyond the floor goes on, up to extend_to; it is looked
  // at `looks` (default use_default_looks: orchestrator/sequential_plan.hpp) and stops at the
  // first look whose verdict is SLOWER, FASTER or SAME.
  bool until_verdict = false;
  // ab's default (given none of --until-verdict, --fixed-n, --samples, --max-samples, --looks,
  // --executor slurm): sequential as above where the sweep's samples allow more than one look and
  // some look can reach SLOWER or FASTER, the fixed n of the sweep's samples otherwise (a note
  // says why). docs/measurement.md says why this is the default.
  bool sequential_by_default = false;
  std::optional<std::int64_t> max_samples;  // --max-samples: replaces the sweep's samples
  std::vector<std::size_t> looks;           // --looks: samples per side at each look
  stats::SpendingFunction spending = stats::SpendingFunction::pocock;
  // --extend-to: an instance whose interval lies beyond the floor at the last look, its p short,
  // goes on up to this many per side (extend_looks; 0 or not above the most: no extension). Not
  // given: kDefaultExtendTo, lowered where a sweep is too large for it (extension_cap).
  std::optional<std::size_t> extend_to;
  // --futility: the futility level (SequentialPlan::futility; 0: none). Not given: kDefaultFutility.
  std::optional<double> futility;

  // Python benchmarks: every side's interpreter, environment variables and PYTHONPATH, and in an
  // A/B run each side's own (docs/python.md).
  PythonOptions python;
  bool quiet = false;  // no progress bar (the runner's; log's notes and progress are the verb's to drop)
  Log log;             // notes, warnings and progress: the verb binds it (Log::to_stderr)
  // Where it is measured: here, or sharded over a Slurm job array (--executor slurm, docs/slurm.md;
  // the run verbs choose the executor from these, orchestrator/run/executor.hpp).
  SlurmOptions slurm;
  std::vector<std::string> command_line;  // recorded in run.json and environment.json
};

enum class RunStatus {
  complete,          // every planned sample is in the journal
  incomplete,        // some samples are missing after every retry
  interrupted,       // Ctrl-C or SIGTERM: --resume finishes it
  already_complete,  // --resume of a complete run: nothing was measured
  submitted,         // sharded over Slurm and not waited for (--no-wait): nothing measured yet
};

struct RunResult {
  std::string dir;
  RunStatus status = RunStatus::complete;
  std::size_t samples_expected = 0;
  std::size_t samples_recorded = 0;
  RunOutcome outcome;
  std::vector<InstanceSummary> summary;
  std::optional<ComparisonReport> comparison;  // an A/B run: baseline against candidate

  // The exit-code contract (orchestrator/errors.hpp): 130 interrupted, 3 samples missing, 1 an
  // A/B verdict meets the --fail-on rule, else 0 (also for a run submitted and not waited for).
  int exit_code() const;
};

}  // namespace isobench::orchestrator
