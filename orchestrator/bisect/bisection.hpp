#pragma once
// `orchestrate bisect` as a library call: BisectRequest -> bisect() -> BisectOutcome. Checks the
// request (the checkout and its commits, the sweep and its instances, whether a test can reach a
// verdict at all) before it builds anything, then walks: each commit it visits built once
// (build_cache.hpp), each test an A/B run of that build against GOOD's through run()
// (orchestrator/run/run.hpp) sampled until a verdict, under the error budget of error_budget.hpp;
// the record written after every build and step (bisect_state.hpp); what it ends with in
// bisect_outcome.hpp.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/bisect/bisect_outcome.hpp"
#include "orchestrator/bisect/bisect_state.hpp"
#include "orchestrator/log.hpp"
#include "orchestrator/sweep.hpp"

namespace isobench::orchestrator {

struct BisectRequest {
  std::string good, bad;       // revisions
  std::string build_command;   // {worktree} and {out} replaced
  BuildArtifact artifact_kind = BuildArtifact::worker;
  std::string artifact;        // relative to {out}
  std::string python;          // --python: both sides' interpreter (Python benchmarks); empty: python3
  std::string sweep_path;
  std::vector<std::string> select;  // --instances: an instance is walked when its id holds one of them
  std::string out_dir;              // default runs/bisect-<utc time>
  std::string resume_dir;
  std::string device = "auto";
  SettingsOverrides overrides;
  std::optional<std::int64_t> max_samples;  // the most samples per side of a test (default: the sweep's)
  double alpha = 0.001, confidence = 0.95, threshold = 0.02;  // over the whole walk (error_budget.hpp)
  // --quiet: no progress bar in the steps' runs (the verb binds `log` without progress either).
  bool quiet = false;
  // Progress, notes and warnings of the walk and of its steps' runs: the verb binds it
  // (Log::to_stderr); unbound, they are dropped.
  Log log;
  std::vector<std::string> command_line;
};

// Throws UsageError for bad input, before anything is built or measured, and leaves nothing
// behind (a bisection whose GOOD or BAD does not build, or whose endpoint check is refused, is
// removed again).
BisectOutcome bisect(const BisectRequest& request);

}  // namespace isobench::orchestrator
