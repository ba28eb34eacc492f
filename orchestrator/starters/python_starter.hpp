#pragma once
// The worker starter of runs with Python benchmarks (docs/python.md): a zygote per side imports
// the benchmarks once and forks each of that side's workers (orchestrator/python/).
//
// A `pytest:` file is imported by its collection and by each side's zygote, seconds each (torch,
// Triton): the zygotes start with the first file and import it while the collector does, rather
// than after the plan (EarlyZygotes, orchestrator/python/python_sides.hpp), so the run starts
// after the longer of the two rather than their sum. The collector still decides the plan, as for
// calibrate and bisect. Once the run directory exists the sides are recorded in python.json, and
// after the samples the SASS of the Triton kernels the workers recorded is made (SassStep).
// A plan without Python benchmarks starts nothing: the runner spawns the worker executables.

#include <optional>

#include "orchestrator/python/python_sides.hpp"
#include "orchestrator/run/worker_starter.hpp"

namespace isobench::orchestrator {

// Workers to a set-up batch of a Python run on the GPU without --setup-batch (its StartedSides'
// default_setup_batch): 8, measured against 1 and 16 on an H100 (docs/measurement.md, "Set-up
// batches").
inline constexpr int kPythonSetupBatch = 8;
// That default for a plan: kPythonSetupBatch on the GPU, 1 on the CPU and for a plan with do_bench
// tests (their calls are set up inside the measuring phase, one by one).
int python_default_setup_batch(const Plan& plan);

class PythonStarter final : public WorkerStarter {
 public:
  explicit PythonStarter(PythonOptions options) : options_(std::move(options)) {}
  // Where no run was made in the directory the early zygotes found unused (the sweep or the plan
  // was refused), what FlagGems made there while they imported goes: <run>/flaggems-cache, and the
  // directory itself where it did not exist before.
  ~PythonStarter() override;
  PythonStarter(const PythonStarter&) = delete;
  PythonStarter& operator=(const PythonStarter&) = delete;
  void prepare_loading(SweepLoadOptions& options, const std::vector<std::string>& workers,
                       std::function<std::string(const std::string&)> run_dir, std::vector<LogLine>& start_log,
                       const Log& log) override;
  std::unique_ptr<StartedSides> start(const Plan& plan, const StartContext& context,
                                      std::vector<LogLine>& start_log) override;
  bool found_unused(const std::string& run_dir) const override;

 private:
  PythonOptions options_;
  std::optional<EarlyZygotes> early_;
  std::string found_unused_;    // the run directory the early zygotes found unused (EarlyZygotes)
  bool found_existed_ = false;  // it existed then (empty)
};

}  // namespace isobench::orchestrator
