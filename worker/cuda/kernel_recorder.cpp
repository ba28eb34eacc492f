#include "kernel_recorder.hpp"

#include <cuda_runtime_api.h>
#include <cupti.h>
#include <dlfcn.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "kernels/gpu_libraries.hpp"

namespace isobench::worker {

namespace {

// The newest record versions of the headers built with: CUPTI 13's, or those of CUDA 12.4's CUPTI
// (the cu12 wheel), which every later CUPTI 12 keeps.
#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
using MemcpyRecord = CUpti_ActivityMemcpy6;
using SynchronizationRecord = CUpti_ActivitySynchronization2;
#else
using KernelRecord = CUpti_ActivityKernel9;
using MemcpyRecord = CUpti_ActivityMemcpy5;
using SynchronizationRecord = CUpti_ActivitySynchronization;
#endif

// The fields read below sit at the same offsets in every kernel record version since
// CUpti_ActivityKernel4, so a libcupti older than the headers (whose records are an older
// version) is read correctly too.
static_assert(offsetof(CUpti_ActivityKernel4, start) == offsetof(KernelRecord, start));
static_assert(offsetof(CUpti_ActivityKernel4, end) == offsetof(KernelRecord, end));
static_assert(offsetof(CUpti_ActivityKernel4, gridX) == offsetof(KernelRecord, gridX));
static_assert(offsetof(CUpti_ActivityKernel4, blockX) == offsetof(KernelRecord, blockX));
static_assert(offsetof(CUpti_ActivityKernel4, name) == offsetof(KernelRecord, name));
static_assert(offsetof(CUpti_ActivityKernel4, streamId) == offsetof(KernelRecord, streamId));
static_assert(offsetof(CUpti_ActivityKernel4, correlationId) == offsetof(KernelRecord, correlationId));
// The same for the copies (since CUpti_ActivityMemcpy4), memsets (since CUpti_ActivityMemset2)
// and synchronisations (since the first version).
#define ISOBENCH_SAME_OFFSET(old, now, field) static_assert(offsetof(old, field) == offsetof(now, field))
ISOBENCH_SAME_OFFSET(CUpti_ActivityMemcpy4, MemcpyRecord, copyKind);
ISOBENCH_SAME_OFFSET(CUpti_ActivityMemcpy4, MemcpyRecord, bytes);
ISOBENCH_SAME_OFFSET(CUpti_ActivityMemcpy4, MemcpyRecord, start);
ISOBENCH_SAME_OFFSET(CUpti_ActivityMemcpy4, MemcpyRecord, end);
ISOBENCH_SAME_OFFSET(CUpti_ActivityMemcpy4, MemcpyRecord, streamId);
ISOBENCH_SAME_OFFSET(CUpti_ActivityMemcpy4, MemcpyRecord, correlationId);
ISOBENCH_SAME_OFFSET(CUpti_ActivityMemset2, CUpti_ActivityMemset4, bytes);
ISOBENCH_SAME_OFFSET(CUpti_ActivityMemset2, CUpti_ActivityMemset4, start);
ISOBENCH_SAME_OFFSET(CUpti_ActivityMemset2, CUpti_ActivityMemset4, end);
ISOBENCH_SAME_OFFSET(CUpti_ActivityMemset2, CUpti_ActivityMemset4, streamId);
ISOBENCH_SAME_OFFSET(CUpti_ActivityMemset2, CUpti_ActivityMemset4, correlationId);
ISOBENCH_SAME_OFFSET(CUpti_ActivitySynchronization, SynchronizationRecord, type);
ISOBENCH_SAME_OFFSET(CUpti_ActivitySynchronization, SynchronizationRecord, start);
ISOBENCH_SAME_OFFSET(CUpti_ActivitySynchronization, SynchronizationRecord, end);
ISOBENCH_SAME_OFFSET(CUpti_ActivitySynchronization, SynchronizationRecord, correlationId);
ISOBENCH_SAME_OFFSET(CUpti_ActivitySynchronization, SynchronizationRecord, streamId);
#undef ISOBENCH_SAME_OFFSET

// The kinds the pass records beside the kernels, for the per-iteration accounting.
constexpr std::pair<CUpti_ActivityKind, const char*> kAccountingKinds[] = {
    {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME"},
    {CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER"},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY"},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET"},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION"}};

struct CuptiApi {
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) dropped_records = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
  decltype(&cuptiGetVersion) version = nullptr;
  decltype(&cuptiFinalize) finalize = nullptr;
  decltype(&cuptiGetTimestamp) timestamp = nullptr;
  decltype(&cuptiGetCallbackName) callback_name = nullptr;
};

// What CUPTI's buffer callbacks reach: they take no user pointer. The library stays loaded once
// opened (never dlclose'd): CUPTI leaves threads and driver hooks behind until the process ends.
struct Collection {
  std::mutex mutex;
  void* library = nullptr;
  std::string library_name;
  CuptiApi api;
  ActivityRecords records;
  std::uint64_t lost = 0;  // dropped by CUPTI, or incomplete when flushed
  std::map<std::pair<int, std::uint32_t>, std::string> api_names;  // (driver?, cbid): CUPTI asked once
};

Collection& collection() {
  static Collection c;
  return c;
}

std::atomic<bool> recorder_exists{false};

constexpr std::size_t kBufferBytes = std::size_t{4} << 20;
constexpr std::size_t kBufferAlignment = 8;  // ACTIVITY_RECORD_ALIGNMENT in CUPTI's samples

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;  // no buffer: CUPTI drops the records and counts them
  *max_records = 0;                    // as many as fit
}

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": the runtime's callback names carry the
// version that introduced them.
std::string api_name(Collection& c, bool driver, std::uint32_t cbid) {
  auto [it, fresh] = c.api_names.try_emplace({driver ? 1 : 0, cbid});
  if (!fresh) return it->second;
  const char* name = nullptr;
  const auto domain = driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
  std::string text = c.api.callback_name(domain, cbid, &name) == CUPTI_SUCCESS && name
                         ? name
                         : std::string(driver ? "driver" : "runtime") + " call " + std::to_string(cbid);
  const auto v = text.rfind("_v");
  if (v != std::string::npos && v + 2 < text.size() &&
      text.find_first_not_of("0123456789", v + 2) == std::string::npos)
    text.resize(v);
  return it->second = text;
}

const char* copy_kind_name(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "unknown";
  }
}

const char* sync_type_name(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return "stream_wait_event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "stream";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "context";
    default: return "unknown";
  }
}

// Records with no timestamps (0 and 0: CUPTI could not collect them) or flushed unfinished are
// lost, not recorded as zero-length work.
bool complete(std::uint64_t start, std::uint64_t end) { return end != 0 && end >= start; }

// The fields every GPU activity record has; null (and counted lost) when it is incomplete.
template <class Record>
GpuActivity* add_gpu_activity(Collection& c, GpuActivity::Kind kind, const Record& r) {
  if (!complete(r.start, r.end)) {
    ++c.lost;
    return nullptr;
  }
  GpuActivity& g = c.records.gpu.emplace_back();
  g.kind = kind;
  g.stream_id = r.streamId;
  g.start_ns = r.start;
  g.end_ns = r.end;
  g.correlation_id = r.correlationId;
  return &g;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid_bytes) {
  auto& c = collection();
  {
    std::lock_guard lock(c.mutex);
    auto& r = c.records;
    CUpti_Activity* record = nullptr;
    while (buffer && c.api.next_record(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
      switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
          const auto* k = reinterpret_cast<const KernelRecord*>(record);
          if (auto* g = add_gpu_activity(c, GpuActivity::Kind::kernel, *k)) {
            g->name = k->name ? k->name : "(unnamed)";
            g->grid = {k->gridX, k->gridY, k->gridZ};
            g->block = {k->blockX, k->blockY, k->blockZ};
          }
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
          const auto* m = reinterpret_cast<const MemcpyRecord*>(record);
          if (auto* g = add_gpu_activity(c, GpuActivity::Kind::memcpy, *m)) {
            g->copy_kind = copy_kind_name(m->copyKind);
            g->bytes = m->bytes;
          }
          break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
          const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
          if (auto* g = add_gpu_activity(c, GpuActivity::Kind::memset, *m)) g->bytes = m->bytes;
          break;
        }
        case CUPTI_ACTIVITY_KIND_RUNTIME:
        case CUPTI_ACTIVITY_KIND_DRIVER: {
          const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
          if (!complete(a->start, a->end)) {
            ++c.lost;
            break;
          }
          const bool driver = record->kind == CUPTI_ACTIVITY_KIND_DRIVER;
          r.api_calls.push_back({api_name(c, driver, a->cbid), driver, a->start, a->end, a->threadId, a->correlationId});
          break;
        }
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
          const auto* y = reinterpret_cast<const SynchronizationRecord*>(record);
          if (!complete(y->start, y->end)) {
            ++c.lost;
            break;
          }
          r.synchronizations.push_back({sync_type_name(y->type), y->start, y->end, y->streamId, y->correlationId});
          break;
        }
        default: break;
      }
    }
    size_t dropped = 0;
    if (c.api.dropped_records(context, stream, &dropped) == CUPTI_SUCCESS) c.lost += dropped;
  }
  std::free(buffer);
}

template <class Fn>
bool resolve(void* library, const char* symbol, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(library, symbol));
  return fn != nullptr;
}

// Loads libcupti once per process; empty on success, else why not.
std::string load_cupti(Collection& c) {
  if (c.library) return {};
  // libcupti of the build's CUDA major where the other runtime libraries are looked for: the
  // loader's path, the nvidia-* wheels beside an installed isobench (torch's CUDA 13 wheels keep
  // it in nvidia/cu13/lib), $CUDA_HOME/lib64, the toolkit's lib64 and extras/CUPTI/lib64. Then,
  // since the activity records used here are the same in older CUPTIs, any libcupti.so or the
  // previous major on the loader's path.
  void* library = nullptr;
  std::string first_error;
  try {
    library = kernels::open_gpu_library(*kernels::gpu_library("libcupti", CUDART_VERSION / 1000));
    c.library_name = "libcupti.so." + std::to_string(CUDART_VERSION / 1000);
  } catch (const std::runtime_error& e) {
    first_error = e.what();
  }
  for (const char* name : {"libcupti.so", "libcupti.so.12"}) {
    if (library) break;
    if ((library = dlopen(name, RTLD_NOW | RTLD_LOCAL))) c.library_name = name;
  }
  if (!library) return "cannot load libcupti: " + first_error;
  CuptiApi api;
  const bool complete = resolve(library, "cuptiActivityRegisterCallbacks", api.register_callbacks) &&
                        resolve(library, "cuptiActivityEnable", api.enable) &&
                        resolve(library, "cuptiActivityDisable", api.disable) &&
                        resolve(library, "cuptiActivityFlushAll", api.flush_all) &&
                        resolve(library, "cuptiActivityGetNextRecord", api.next_record) &&
                        resolve(library, "cuptiActivityGetNumDroppedRecords", api.dropped_records) &&
                        resolve(library, "cuptiGetResultString", api.result_string) &&
                        resolve(library, "cuptiGetVersion", api.version) &&
                        resolve(library, "cuptiFinalize", api.finalize) &&
                        resolve(library, "cuptiGetTimestamp", api.timestamp) &&
                        resolve(library, "cuptiGetCallbackName", api.callback_name);
  if (!complete) {
    dlclose(library);  // nothing of it ran yet
    return c.library_name + " lacks a CUPTI entry point the recorder uses";
  }
  c.library = library;
  c.api = api;
  return {};
}

std::string describe(const CuptiApi& api, CUptiResult result) {
  const char* text = nullptr;
  if (api.result_string && api.result_string(result, &text) == CUPTI_SUCCESS && text) return text;
  return "CUPTI error " + std::to_string(static_cast<int>(result));
}

}  // namespace

KernelRecorder::KernelRecorder() {
  if (recorder_exists.exchange(true)) {
    reason_ = "another kernel recorder is active in this process";
    return;
  }
  owner_ = true;
  auto& c = collection();
  reason_ = load_cupti(c);
  if (!reason_.empty()) return;
  std::uint32_t version = 0;
  c.api.version(&version);
  recorder_ = "CUPTI API " + std::to_string(version) + " (" + c.library_name + ")";
}

KernelRecorder::~KernelRecorder() {
  if (!owner_) return;
  // Detach CUPTI (its callbacks and driver hooks) so nothing of it stays beside the timed samples.
  if (registered_) collection().api.finalize();
  recorder_exists.store(false);
}

KernelCapture KernelRecorder::record(std::uint32_t iterations, const std::function<void()>& iteration,
                                    const std::function<void()>& finish) {
  KernelCapture capture;
  capture.recorder = recorder_;
  if (!reason_.empty()) {
    capture.failure = reason_;
    return capture;
  }
  auto& c = collection();
  const CuptiApi& api = c.api;
  auto failed = [&](const std::string& call, CUptiResult result) {
    capture.failure = call + " failed: " + describe(api, result);
    return capture;
  };
  if (!registered_) {
    if (auto r = api.register_callbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS)
      return failed("cuptiActivityRegisterCallbacks", r);
    registered_ = true;
  }
  {
    std::lock_guard lock(c.mutex);
    c.records = {};
    c.lost = 0;
  }
  if (auto r = api.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS)
    return failed("cuptiActivityEnable(CONCURRENT_KERNEL)", r);
  // Turns recording off on every way out of the pass, exceptions included.
  struct Off {
    const CuptiApi& api;
    std::vector<CUpti_ActivityKind> enabled{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};
    CUptiResult flushed = CUPTI_SUCCESS;
    bool done = false;
    CUptiResult finish() {
      if (!done) {
        done = true;
        for (auto kind : enabled) api.disable(kind);
        flushed = api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // every buffer back through the callback
      }
      return flushed;
    }
    ~Off() { finish(); }
  } off{api};
  // Without one of these the kernels are still recorded; the accounting says what was missing.
  for (const auto& [kind, name] : kAccountingKinds) {
    if (auto r = api.enable(kind); r != CUPTI_SUCCESS) {
      if (capture.accounting_failure.empty())
        capture.accounting_failure = std::string("cuptiActivityEnable(") + name + ") failed: " + describe(api, r);
      continue;
    }
    off.enabled.push_back(kind);
  }
  std::vector<IterationWindow> windows(iterations);
  for (auto& w : windows) {
    api.timestamp(&w.begin_ns);
    iteration();
    api.timestamp(&w.end_ns);
  }
  finish();
  if (auto r = off.finish(); r != CUPTI_SUCCESS) return failed("cuptiActivityFlushAll", r);
  std::lock_guard lock(c.mutex);
  capture.records = std::move(c.records);
  c.records = {};
  capture.records.iterations = std::move(windows);
  capture.records.dropped_records = c.lost;
  return capture;
}

}  // namespace isobench::worker
