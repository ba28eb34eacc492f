#pragma once
// The GPUs as NVML sees them, loaded at run time (dlopen), so the orchestrator never touches
// CUDA and a machine without the driver still runs: it gets {"available": false, "reason": ...}.

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace isobench::orchestrator {

// {"available": true, "driver_version", "cuda_driver_version", "gpus": [{index, name, uuid,
//  pci_bus_id, performance_state, clocks_event_reasons, clocks_mhz {sm, mem, sm_max, mem_max},
//  temperature_c, power_w, power_limit_w,
//  persistence_mode, ecc_enabled, memory_total_bytes, memory_free_bytes,
//  processes [{pid, used_memory_bytes}]}]}
nlohmann::json collect_gpu_environment();

// Free memory of the GPU a worker sees as CUDA device `index` (CUDA_VISIBLE_DEVICES honoured), in
// bytes; nullopt when NVML cannot say.
std::optional<std::uint64_t> gpu_free_memory_bytes(int index);

// {"uuid": "GPU-3f1c2a9e-...", "name": "NVIDIA H200"} of the GPU a worker sees as CUDA device
// `index` (CUDA_VISIBLE_DEVICES honoured), as environment.json names GPUs; null when NVML cannot
// say.
nlohmann::json gpu_identity(int index);

// How many CUDA devices a worker sees (CUDA_VISIBLE_DEVICES honoured), as far as NVML can say;
// 0 without NVML.
int visible_gpu_count();

}  // namespace isobench::orchestrator
