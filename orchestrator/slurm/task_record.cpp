#include "task_record.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "orchestrator/gpu_environment.hpp"
#include "orchestrator/run_directory.hpp"

namespace isobench::orchestrator {

namespace {

nlohmann::json env_or_null(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? nlohmann::json(v) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json slurm_task_event(std::size_t samples_before, bool cuda) {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  const auto array_job = env_or_null("SLURM_ARRAY_JOB_ID"), array_task = env_or_null("SLURM_ARRAY_TASK_ID");
  nlohmann::json e = {{"type", kSlurmTaskEvent},
                      {"job", array_job.is_null() || array_task.is_null()
                                  ? nlohmann::json(nullptr)
                                  : nlohmann::json(array_job.get<std::string>() + "_" + array_task.get<std::string>())},
                      {"job_id", env_or_null("SLURM_JOB_ID")},
                      {"array_job_id", array_job},
                      {"array_task_id", array_task},
                      {"host", host},
                      {"node", env_or_null("SLURMD_NODENAME")},
                      {"cuda_visible_devices", env_or_null("CUDA_VISIBLE_DEVICES")},
                      {"slurm_job_gpus", env_or_null("SLURM_JOB_GPUS")},
                      {"gpu_uuid", nullptr},
                      {"gpu_name", nullptr},
                      {"time", unix_time_now()},
                      {"samples_before", samples_before}};
  if (cuda)
    if (const auto gpu = gpu_identity(0); gpu.is_object()) {
      e["gpu_uuid"] = gpu["uuid"];
      e["gpu_name"] = gpu["name"];
    }
  return e;
}

std::string task_name(const nlohmann::json& record) {
  return record.contains("job") && record["job"].is_string() ? record["job"].get<std::string>() : "a task run by hand";
}

}  // namespace isobench::orchestrator
