#include "kernel_recorder.hpp"

#include <cupti.h>
#include <dlfcn.h>

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <mutex>

namespace isobench::worker {

namespace {

// The fields read below sit at the same offsets in every kernel record version since
// CUpti_ActivityKernel4, so a libcupti older than the headers (whose records are an older
// version) is read correctly too.
static_assert(offsetof(CUpti_ActivityKernel4, start) == offsetof(CUpti_ActivityKernel10, start));
static_assert(offsetof(CUpti_ActivityKernel4, end) == offsetof(CUpti_ActivityKernel10, end));
static_assert(offsetof(CUpti_ActivityKernel4, gridX) == offsetof(CUpti_ActivityKernel10, gridX));
static_assert(offsetof(CUpti_ActivityKernel4, blockX) == offsetof(CUpti_ActivityKernel10, blockX));
static_assert(offsetof(CUpti_ActivityKernel4, name) == offsetof(CUpti_ActivityKernel10, name));

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
};

// What CUPTI's buffer callbacks reach: they take no user pointer. The library stays loaded once
// opened (never dlclose'd): CUPTI leaves threads and driver hooks behind until the process ends.
struct Collection {
  std::mutex mutex;
  void* library = nullptr;
  std::string library_name;
  CuptiApi api;
  std::vector<KernelActivity> activities;
  std::uint64_t lost = 0;  // dropped by CUPTI, or incomplete when flushed
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

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t, size_t valid_bytes) {
  auto& c = collection();
  {
    std::lock_guard lock(c.mutex);
    CUpti_Activity* record = nullptr;
    while (buffer && c.api.next_record(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
      if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      if (k->end == 0 || k->end < k->start) {  // flushed before the kernel finished
        ++c.lost;
        continue;
      }
      KernelActivity a;
      a.name = k->name ? k->name : "(unnamed)";
      a.grid = {k->gridX, k->gridY, k->gridZ};
      a.block = {k->blockX, k->blockY, k->blockZ};
      a.gpu_ns = k->end - k->start;
      c.activities.push_back(std::move(a));
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
  // The CUDA toolkit keeps libcupti in lib64 (CUDA 12.x and later) or extras/CUPTI/lib64.
  const char* candidates[] = {"libcupti.so",
                              "libcupti.so.13",
                              "libcupti.so.12",
                              "/usr/local/cuda/lib64/libcupti.so",
                              "/usr/local/cuda/lib64/libcupti.so.13",
                              "/usr/local/cuda/lib64/libcupti.so.12",
                              "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
                              "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
                              "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.12"};
  std::string first_error;
  void* library = nullptr;
  for (const char* name : candidates) {
    library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library) {
      c.library_name = name;
      break;
    }
    const char* error = dlerror();
    if (first_error.empty() && error) first_error = error;
  }
  if (!library)
    return "cannot load libcupti (tried libcupti.so, .so.13 and .so.12 on the library path, in /usr/local/cuda/lib64 "
           "and in /usr/local/cuda/extras/CUPTI/lib64): " + first_error;
  CuptiApi api;
  const bool complete = resolve(library, "cuptiActivityRegisterCallbacks", api.register_callbacks) &&
                        resolve(library, "cuptiActivityEnable", api.enable) &&
                        resolve(library, "cuptiActivityDisable", api.disable) &&
                        resolve(library, "cuptiActivityFlushAll", api.flush_all) &&
                        resolve(library, "cuptiActivityGetNextRecord", api.next_record) &&
                        resolve(library, "cuptiActivityGetNumDroppedRecords", api.dropped_records) &&
                        resolve(library, "cuptiGetResultString", api.result_string) &&
                        resolve(library, "cuptiGetVersion", api.version) &&
                        resolve(library, "cuptiFinalize", api.finalize);
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

KernelCapture KernelRecorder::record(const std::function<void()>& pass) {
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
    c.activities.clear();
    c.lost = 0;
  }
  if (auto r = api.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS)
    return failed("cuptiActivityEnable(CONCURRENT_KERNEL)", r);
  // Turns recording off on every way out of the pass, exceptions included.
  struct Off {
    const CuptiApi& api;
    CUptiResult flushed = CUPTI_SUCCESS;
    bool done = false;
    CUptiResult finish() {
      if (!done) {
        done = true;
        api.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        flushed = api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);  // every buffer back through the callback
      }
      return flushed;
    }
    ~Off() { finish(); }
  } off{api};
  pass();
  if (auto r = off.finish(); r != CUPTI_SUCCESS) return failed("cuptiActivityFlushAll", r);
  std::lock_guard lock(c.mutex);
  capture.activities = std::move(c.activities);
  c.activities.clear();
  capture.dropped_records = c.lost;
  return capture;
}

}  // namespace isobench::worker
