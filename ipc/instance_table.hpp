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
  std::string plugin;                // the kernel's plugin library; empty: a built-in kernel
  std::vector<std::string> command;  // backend "command": the program and its arguments
  std::string command_dir;           // backend "command": its working directory
};

std::string encode_instances(const std::vector<WorkerInstance>& instances);
// Throws std::runtime_error naming the instance and field on malformed input.
std::vector<WorkerInstance> decode_instances(std::string_view json_text);

}  // namespace isobench::ipc
