#pragma once
// The instance table the orchestrator writes into the segment as JSON text: what a worker needs
// to set up and time each instance. The binary InstanceEntry beside it carries the pinned inner
// count and the worker's reports.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace isobench::ipc {

struct WorkerInstance {
  std::string id;
  std::string kernel;
  std::string backend;         // "cpu", "cuda" or "command"
  nlohmann::json params;       // every axis, defaults filled
  std::uint64_t seed = 0;      // inputs: the same on every side and in every run of the seed
  std::string statistic = "mean";
  std::string timer = "events";
  bool cold_cache = false;
  int rotate_buffers = 1;
  bool blocking_kernel = false;
  double slowdown_pct = 0;
  // One untimed CUPTI pass after warm-up records the CUDA kernels the instance runs
  // (--record-kernels); the samples are timed without it.
  bool record_kernels = false;
  // Before each measured sample, outside the timed region: the worker sleeps idle_gap_ms (host
  // idle, device idle), and with realloc destroys the instance and sets it up and warms it up
  // again (same seed, same inputs, fresh buffers).
  double idle_gap_ms = 0;
  bool realloc = false;
  std::string plugin;                // the kernel's plugin library; empty: a built-in kernel
  std::vector<std::string> command;  // backend "command": the program and its arguments
  std::string command_dir;           // backend "command": its working directory
};

// One instance as a JSON object. The segment's instance table and plan.json both hold instances
// in this form (plan.json adds its own fields beside these), so a new field is written and read
// in these two functions only.
nlohmann::json to_json(const WorkerInstance& instance);
// Reads and validates one instance. Throws std::runtime_error "CONTEXT: problem" on malformed
// input; `context` names the instance for the reader ("instance table entry 3").
WorkerInstance worker_instance_from_json(const nlohmann::json& j, std::string_view context);

std::string encode_instances(const std::vector<WorkerInstance>& instances);
// Throws std::runtime_error naming the instance and field on malformed input.
std::vector<WorkerInstance> decode_instances(std::string_view json_text);

}  // namespace isobench::ipc
