#pragma once
// What the machine was when the run happened (google/benchmark's `context`): host, CPU, memory,
// OS, build, command line, and the GPUs through NVML when a driver is there. Warnings for states
// that spoil numbers (a CPU governor that is not "performance", another process on the GPU).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isobench::orchestrator {

struct Environment {
  nlohmann::json data;
  std::vector<std::string> warnings;
};

Environment collect_environment(const std::vector<std::string>& command_line);

// True when an NVIDIA GPU and driver are present (NVML answers with at least one device).
bool gpu_available();

// Physical memory of the host in bytes (0 when unknown).
std::uint64_t host_memory_bytes();

}  // namespace isobench::orchestrator
