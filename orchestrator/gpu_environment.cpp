#include "gpu_environment.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace isobench::orchestrator {

namespace {

// The few NVML entry points used, declared here so the build needs no nvml.h.
using nvmlDevice_t = void*;
struct NvmlMemory {
  unsigned long long total, free, used;
};
struct NvmlProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id, compute_instance_id;
};
struct NvmlPciInfo {  // nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it
  char bus_id_legacy[16];
  unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
constexpr int kSuccess = 0;
constexpr int kInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE
constexpr int kClockSm = 1, kClockMem = 2;

class Nvml {
 public:
  Nvml() {
    lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib_) {
      const char* e = dlerror();
      reason_ = e ? e : "libnvidia-ml.so.1 not found";
      return;
    }
    auto init = sym<int (*)()>("nvmlInit_v2");
    if (!init || init() != kSuccess) {
      reason_ = "nvmlInit failed";
      return;
    }
    ok_ = true;
  }
  ~Nvml() {
    if (ok_)
      if (auto shutdown = sym<int (*)()>("nvmlShutdown")) shutdown();
    if (lib_) dlclose(lib_);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool ok() const { return ok_; }
  const std::string& reason() const { return reason_; }

  template <class F>
  F sym(const char* name) const {
    return lib_ ? reinterpret_cast<F>(dlsym(lib_, name)) : nullptr;
  }

  std::optional<nvmlDevice_t> device(int index) const {
    auto get = sym<int (*)(unsigned, nvmlDevice_t*)>("nvmlDeviceGetHandleByIndex_v2");
    nvmlDevice_t d = nullptr;
    if (!get || get(static_cast<unsigned>(index), &d) != kSuccess) return std::nullopt;
    return d;
  }

  std::string text(const char* fn, nvmlDevice_t d) const {
    auto f = sym<int (*)(nvmlDevice_t, char*, unsigned)>(fn);
    char buf[256] = {0};
    if (!f || f(d, buf, sizeof buf) != kSuccess) return {};
    return buf;
  }

  std::optional<unsigned> uint_value(const char* fn, nvmlDevice_t d) const {
    auto f = sym<int (*)(nvmlDevice_t, unsigned*)>(fn);
    unsigned v = 0;
    if (!f || f(d, &v) != kSuccess) return std::nullopt;
    return v;
  }

  std::optional<unsigned> clock(const char* fn, nvmlDevice_t d, int type) const {
    auto f = sym<int (*)(nvmlDevice_t, int, unsigned*)>(fn);
    unsigned v = 0;
    if (!f || f(d, type, &v) != kSuccess) return std::nullopt;
    return v;
  }

  std::optional<NvmlMemory> memory(nvmlDevice_t d) const {
    auto f = sym<int (*)(nvmlDevice_t, NvmlMemory*)>("nvmlDeviceGetMemoryInfo");
    NvmlMemory m{};
    if (!f || f(d, &m) != kSuccess) return std::nullopt;
    return m;
  }

 private:
  void* lib_ = nullptr;
  bool ok_ = false;
  std::string reason_;
};

template <class T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json collect_gpu_environment() {
  Nvml nvml;
  if (!nvml.ok()) return {{"available", false}, {"reason", nvml.reason()}};
  nlohmann::json out = {{"available", true}};
  char buf[128] = {0};
  if (auto f = nvml.sym<int (*)(char*, unsigned)>("nvmlSystemGetDriverVersion"); f && f(buf, sizeof buf) == kSuccess)
    out["driver_version"] = buf;
  if (auto f = nvml.sym<int (*)(int*)>("nvmlSystemGetCudaDriverVersion_v2")) {
    int v = 0;
    if (f(&v) == kSuccess) out["cuda_driver_version"] = std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  }
  unsigned count = 0;
  auto get_count = nvml.sym<int (*)(unsigned*)>("nvmlDeviceGetCount_v2");
  if (!get_count || get_count(&count) != kSuccess) count = 0;
  out["gpus"] = nlohmann::json::array();
  for (unsigned i = 0; i < count; ++i) {
    auto d = nvml.device(static_cast<int>(i));
    if (!d) continue;
    nlohmann::json g = {{"index", i},
                        {"name", nvml.text("nvmlDeviceGetName", *d)},
                        {"uuid", nvml.text("nvmlDeviceGetUUID", *d)},
                        {"clocks_mhz",
                         {{"sm", or_null(nvml.clock("nvmlDeviceGetClockInfo", *d, kClockSm))},
                          {"mem", or_null(nvml.clock("nvmlDeviceGetClockInfo", *d, kClockMem))},
                          {"sm_max", or_null(nvml.clock("nvmlDeviceGetMaxClockInfo", *d, kClockSm))},
                          {"mem_max", or_null(nvml.clock("nvmlDeviceGetMaxClockInfo", *d, kClockMem))}}}};
    if (auto t = nvml.sym<int (*)(nvmlDevice_t, int, unsigned*)>("nvmlDeviceGetTemperature")) {
      unsigned c = 0;
      g["temperature_c"] = t(*d, 0, &c) == kSuccess ? nlohmann::json(c) : nlohmann::json(nullptr);
    }
    if (auto mw = nvml.uint_value("nvmlDeviceGetPowerUsage", *d)) g["power_w"] = *mw / 1000.0;
    if (auto mw = nvml.uint_value("nvmlDeviceGetEnforcedPowerLimit", *d)) g["power_limit_w"] = *mw / 1000.0;
    if (auto p = nvml.uint_value("nvmlDeviceGetPersistenceMode", *d)) g["persistence_mode"] = *p == 1;
    if (auto f = nvml.sym<int (*)(nvmlDevice_t, int*, int*)>("nvmlDeviceGetEccMode")) {
      int cur = 0, pending = 0;
      if (f(*d, &cur, &pending) == kSuccess) g["ecc_enabled"] = cur == 1;
    }
    if (auto m = nvml.memory(*d)) {
      g["memory_total_bytes"] = m->total;
      g["memory_free_bytes"] = m->free;
    }
    if (auto f = nvml.sym<int (*)(nvmlDevice_t, NvmlPciInfo*)>("nvmlDeviceGetPciInfo_v3")) {
      NvmlPciInfo pci{};
      if (f(*d, &pci) == kSuccess) g["pci_bus_id"] = pci.bus_id;
    }
    if (auto f = nvml.sym<int (*)(nvmlDevice_t, int*)>("nvmlDeviceGetPerformanceState")) {
      int state = 0;
      if (f(*d, &state) == kSuccess) g["performance_state"] = "P" + std::to_string(state);
    }
    // Why clocks are held below their maximum right now (power cap, thermal, idle...): a bitmask
    // of nvmlClocksEventReasons; 0 or 1 (GPU idle) is the state a measurement wants.
    for (const char* name : {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"}) {
      auto f = nvml.sym<int (*)(nvmlDevice_t, unsigned long long*)>(name);
      unsigned long long reasons = 0;
      if (f && f(*d, &reasons) == kSuccess) {
        g["clocks_event_reasons"] = reasons;
        break;
      }
    }
    g["processes"] = nlohmann::json::array();
    auto list = nvml.sym<int (*)(nvmlDevice_t, unsigned*, NvmlProcessInfo*)>("nvmlDeviceGetComputeRunningProcesses_v3");
    if (!list) list = nvml.sym<int (*)(nvmlDevice_t, unsigned*, NvmlProcessInfo*)>("nvmlDeviceGetComputeRunningProcesses_v2");
    if (list) {
      std::vector<NvmlProcessInfo> procs(64);
      unsigned n = static_cast<unsigned>(procs.size());
      int status = list(*d, &n, procs.data());
      if (status == kInsufficientSize) {  // n now holds the count needed; processes may come and go
        procs.resize(n + 16);
        n = static_cast<unsigned>(procs.size());
        status = list(*d, &n, procs.data());
      }
      if (status == kSuccess)
        for (unsigned k = 0; k < n && k < procs.size(); ++k)
          g["processes"].push_back({{"pid", procs[k].pid}, {"used_memory_bytes", procs[k].used_gpu_memory}});
      else
        g["processes"] = nullptr;  // unknown, not "none"
    }
    out["gpus"].push_back(g);
  }
  return out;
}

namespace {

// The NVML device of the GPU a worker sees as CUDA device `index`.
std::optional<nvmlDevice_t> cuda_index_device(const Nvml& nvml, int index) {
  // `index` is the worker's CUDA device index. NVML counts every GPU in PCI order, so go through
  // CUDA_VISIBLE_DEVICES when it is set (indices, or UUIDs "GPU-..."). Without it the orders
  // agree on machines of identical GPUs (CUDA's fastest-first order ties break by PCI bus).
  std::optional<nvmlDevice_t> d;
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::vector<std::string> entries;
    std::string entry;
    for (const char* c = visible;; ++c) {
      if (*c == ',' || *c == '\0') {
        entries.push_back(entry);
        entry.clear();
        if (*c == '\0') break;
      } else if (*c != ' ') {
        entry += *c;
      }
    }
    if (static_cast<std::size_t>(index) >= entries.size()) return std::nullopt;
    const std::string& chosen = entries[static_cast<std::size_t>(index)];
    if (chosen.rfind("GPU-", 0) == 0 || chosen.rfind("MIG-", 0) == 0) {
      auto by_uuid = nvml.sym<int (*)(const char*, nvmlDevice_t*)>("nvmlDeviceGetHandleByUUID");
      nvmlDevice_t handle = nullptr;
      if (!by_uuid || by_uuid(chosen.c_str(), &handle) != kSuccess) return std::nullopt;
      d = handle;
    } else {
      try {
        d = nvml.device(std::stoi(chosen));
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
  } else {
    d = nvml.device(index);
  }
  return d;
}

}  // namespace

std::optional<std::uint64_t> gpu_free_memory_bytes(int index) {
  Nvml nvml;
  if (!nvml.ok() || index < 0) return std::nullopt;
  const auto d = cuda_index_device(nvml, index);
  if (!d) return std::nullopt;
  auto m = nvml.memory(*d);
  if (!m) return std::nullopt;
  return m->free;
}

nlohmann::json gpu_identity(int index) {
  Nvml nvml;
  if (!nvml.ok() || index < 0) return nullptr;
  const auto d = cuda_index_device(nvml, index);
  if (!d) return nullptr;
  const std::string uuid = nvml.text("nvmlDeviceGetUUID", *d);
  if (uuid.empty()) return nullptr;
  return {{"uuid", uuid}, {"name", nvml.text("nvmlDeviceGetName", *d)}};
}

int visible_gpu_count() {
  Nvml nvml;  // one NVML session for the whole count
  if (!nvml.ok()) return 0;
  int n = 0;
  for (; n < 1024; ++n) {  // as far as gpu_free_memory_bytes answers
    const auto d = cuda_index_device(nvml, n);
    if (!d || !nvml.memory(*d)) break;
  }
  return n;
}

}  // namespace isobench::orchestrator
