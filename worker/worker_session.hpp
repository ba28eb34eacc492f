#pragma once
// One worker process's life: attach to the run's segment, set up the instances its lane lists,
// warm them up, wait for release when asked to, measure in the planned order and write each
// sample into its slot the moment it exists.

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace isobench::worker {

struct WorkerOptions {
  std::string segment;
  std::uint32_t lane = 0;
  std::uint64_t token = 0;
  int device = 0;  // CUDA device index
  std::map<std::string, std::string> plugin_overrides;  // plugin path in the plan -> library to load
  std::map<std::string, nlohmann::json> param_overrides;  // --set NAME=VALUE: forced on every instance
  std::string artifact_root;  // this side's artifacts/side-<s> folder of the run; empty: none
  // Multi-rank instances (docs/multi-rank.md): this worker is rank `rank` of `world` worker
  // processes meeting in rank group `group` of the segment. world 1: a worker of its own.
  std::uint32_t rank = 0;
  std::uint32_t world = 1;
  std::uint32_t group = 0;
};

// Returns the process exit code: 0 when every task finished, 3 when the worker failed (the
// reason is in the lane's error field and on stderr).
int run_worker(const WorkerOptions& options);

}  // namespace isobench::worker
