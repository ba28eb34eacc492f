#pragma once
// The instance table the orchestrator writes into the segment as JSON text: what a worker needs
// to set up and time each instance. The binary InstanceEntry beside it carries the pinned inner
// count and the worker's reports.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "settings.hpp"

namespace isobench::ipc {

struct WorkerInstance {
  std::string id;
  std::string kernel;
  std::string backend;         // "cpu", "cuda" or "command"; a Python benchmark is "cpu" or "cuda"
  nlohmann::json params;       // every axis, defaults filled
  std::uint64_t seed = 0;      // inputs: the same on every side and in every run of the seed
  // How it is measured. Only the settings that travel in the instance table (ipc/settings.hpp)
  // are read from it; warm-up and the inner count reach the worker pinned in the segment's
  // InstanceEntry and keep their defaults here.
  MeasureSettings measure;
  std::string plugin;                // the kernel's plugin library; empty: a built-in kernel
  std::vector<std::string> command;  // backend "command": the program and its arguments
  std::string command_dir;           // backend "command": its working directory
  // A Python benchmark (docs/python.md): the module (an absolute .py path or an importable
  // name) and its set-up function; the worker runs it through the kernel its zygote registered
  // for them. Both empty: not a Python benchmark.
  std::string python_module;
  std::string python_function;
  // A test of a pytest file (python_module: the file, python_function: the test's name in it):
  // {"args": [pytest's extra arguments]}, which the zygote runs it with; null otherwise.
  nlohmann::json pytest;
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
