#include "orchestrator/run/machine.hpp"

#include <algorithm>
#include <charconv>

#include "orchestrator/build_identity.hpp"
#include "orchestrator/environment.hpp"
#include "orchestrator/gpu_environment.hpp"

namespace isobench::orchestrator {

namespace {

kernels::Backend choose_device(const std::string& device, bool sharded) {
  if (device == "cpu") return kernels::Backend::cpu;
  // Sharded over Slurm, the sweep is planned here and measured on the cluster's nodes, whose
  // GPUs this host does not see: the device is named, not detected (docs/slurm.md).
  if (sharded) {
    if (device == "auto")
      throw UsageError("--executor slurm: give --device cuda or --device cpu (this host does not see the cluster's GPUs)");
    return kernels::Backend::cuda;
  }
  const bool have_gpu = built_with_cuda() && gpu_available();
  if (device == "cuda") {
    if (!have_gpu)
      throw UsageError("--device cuda: no usable NVIDIA GPU (or this build has no CUDA); use --device cpu");
    return kernels::Backend::cuda;
  }
  return have_gpu ? kernels::Backend::cuda : kernels::Backend::cpu;
}

// The GPUs a new run spreads its instances over: --gpus (a list, or all that a worker sees), or
// --gpu alone. Every listed GPU must exist when NVML can tell.
std::vector<int> chosen_gpus(const RunRequest& request, kernels::Backend device) {
  if (request.gpus.empty()) return {request.gpu.value_or(0)};
  if (request.gpu) throw UsageError("--gpu and --gpus: give one of them");
  std::vector<int> gpus;
  if (request.gpus == "all") {
    const int n = visible_gpu_count();
    if (n == 0) throw UsageError("--gpus all: NVML shows no GPU here; list the GPUs (--gpus 0,1) or use --gpu");
    for (int i = 0; i < n; ++i) gpus.push_back(i);
    return gpus;
  }
  const std::string& list = request.gpus;
  std::size_t pos = 0;
  while (pos <= list.size()) {
    const std::size_t comma = std::min(list.find(',', pos), list.size());
    const std::string item = list.substr(pos, comma - pos);
    int gpu = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), gpu);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || gpu < 0)
      throw UsageError("--gpus " + list + ": '" + item + "' is not a GPU index (expected e.g. 0,1 or all)");
    if (std::find(gpus.begin(), gpus.end(), gpu) != gpus.end())
      throw UsageError("--gpus " + list + ": GPU " + item + " is listed twice");
    gpus.push_back(gpu);
    pos = comma + 1;
  }
  if (device == kernels::Backend::cuda && gpu_free_memory_bytes(0))
    for (const int gpu : gpus)
      if (!gpu_free_memory_bytes(gpu))
        throw UsageError("--gpus " + list + ": there is no CUDA device " + std::to_string(gpu) + " here (" +
                         std::to_string(visible_gpu_count()) + " visible)");
  return gpus;
}

// Another process computing on the GPU disturbs every number: with --require-idle-gpu that is an
// error before anything runs (without it, the environment warning says so loudly).
void check_gpu_idle(int gpu) {
  const auto env = collect_gpu_environment();
  if (!env.value("available", false) || !env.contains("gpus")) return;
  for (const auto& g : env["gpus"]) {
    if (g.value("index", -1) != gpu || !g.contains("processes") || g["processes"].empty()) continue;
    std::string pids;
    for (const auto& p : g["processes"]) pids += (pids.empty() ? "" : ", ") + p.value("pid", nlohmann::json(0)).dump();
    throw UsageError("--require-idle-gpu: GPU " + std::to_string(gpu) + " (" + g.value("name", std::string("?")) +
                     ") is in use by " + std::to_string(g["processes"].size()) + " other processes (pid " + pids + ")");
  }
}

}  // namespace

std::uint64_t memory_budget(const RunRequest& request, kernels::Backend device, const std::vector<int>& gpus) {
  if (request.memory_budget_mib > 0) return request.memory_budget_mib << 20;
  if (device == kernels::Backend::cuda) {
    std::uint64_t least = 0;
    for (const int gpu : gpus) {
      const auto free_bytes = gpu_free_memory_bytes(gpu);
      if (!free_bytes) return 0;
      least = least == 0 ? *free_bytes : std::min(least, *free_bytes);
    }
    return least / 10 * 9;
  }
  return host_memory_bytes() / 2;
}

Machine resolve_machine(const RunRequest& request) {
  Machine m;
  m.device = choose_device(request.device, request.slurm.sharded());
  m.gpus = chosen_gpus(request, m.device);
  m.memory_budget_bytes = memory_budget(request, m.device, m.gpus);
  if (m.device == kernels::Backend::cuda && request.require_idle_gpu)
    for (const int gpu : m.gpus) check_gpu_idle(gpu);
  return m;
}

}  // namespace isobench::orchestrator
