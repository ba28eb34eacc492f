#pragma once
// A bisection's record, <bisect dir>/bisect.json, written (atomically) after every build and every
// step: what it asks (the commits, the build command, the sweep and instances, the error
// budget), which commits were built, and every step with its run directory and verdicts. The
// walk itself is replayed from the steps (range_walk.hpp), so `orchestrate bisect --resume DIR`
// carries on from this file alone.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "orchestrator/bisect/commit_range.hpp"
#include "orchestrator/bisect/error_budget.hpp"
#include "orchestrator/bisect/range_walk.hpp"
#include "stats/verdict.hpp"

namespace isobench::orchestrator {

inline constexpr int kBisectSchemaVersion = 1;
inline constexpr const char* kBisectStateFile = "bisect.json";

// What a build leaves for a step to measure, relative to its {out}: a worker executable, a build
// of the sweep's one plugin (.so), or a folder put first on the Python path of that side.
enum class BuildArtifact { worker, plugin, python_path };

struct BisectStep {
  std::size_t commit = 0;  // index into the range: the commit tested against GOOD
  std::vector<std::string> instances;
  std::string run_dir;  // relative to the bisection's directory
  bool done = false;    // false: interrupted or broken off; --resume finishes its run
  std::map<std::string, stats::Verdict> verdicts;  // done: every instance's
};

struct BuildRecord {
  bool built = false;
  std::string problem;  // not built: why
};

struct BisectState {
  CommitRange range;
  std::string good_rev, bad_rev;  // as given
  std::string build_command;
  BuildArtifact artifact_kind = BuildArtifact::worker;
  std::string artifact;  // relative to {out}
  std::string sweep;     // absolute
  std::string python;    // both sides' interpreter, absolute (Python benchmarks); empty: python3 from PATH
  std::vector<std::string> instances;  // the endpoint check's, M of them
  std::string device = "auto";
  nlohmann::json overrides = nlohmann::json::object();  // SettingsOverrides::values()
  std::optional<std::int64_t> max_samples;
  ErrorBudget budget;
  double threshold = 0.02;
  std::vector<std::string> command_line;

  std::map<std::string, BuildRecord> builds;  // by commit hash
  std::vector<BisectStep> steps;

  nlohmann::json to_json() const;
  // Throws std::runtime_error naming the field.
  static BisectState from_json(const nlohmann::json& j);
};

// The walk the recorded skips and finished steps give.
RangeWalk replay_walk(const BisectState& state);

}  // namespace isobench::orchestrator
