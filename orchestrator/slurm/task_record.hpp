#pragma once
// What an array task journals in its shard's samples.jsonl before it measures anything: which
// task it is, where it runs and on which GPU. Every sample after it, up to the next task's
// record, was taken by that task (docs/slurm.md), so the merged run can say for every sample
// which task, host and GPU took it.

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace isobench::orchestrator {

inline constexpr const char* kSlurmTaskEvent = "slurm_task";

// {"type": "slurm_task", "job": "1234_3" (squeue's name of the array task), "job_id" (the
// task's own SLURM_JOB_ID), "array_job_id", "array_task_id", "host" (gethostname), "node"
// (SLURMD_NODENAME), "cuda_visible_devices", "slurm_job_gpus", "gpu_uuid" and "gpu_name" (what
// NVML says of CUDA device 0, CUDA sweeps only), "time" (unix seconds), "samples_before" (the
// samples already in the journal)}. Fields Slurm's environment does not give are null.
nlohmann::json slurm_task_event(std::size_t samples_before, bool cuda);

// How messages name the task of a record: its "job" ("1234_3"), or "a task run by hand".
std::string task_name(const nlohmann::json& record);

}  // namespace isobench::orchestrator
