#pragma once
// What CUPTI reports about an untimed pass of a benchmark's iterations, as plain data: the host's
// CUDA API calls (runtime and driver), the GPU's kernels, memory copies and memsets, the host's
// synchronisations, and where each iteration began and ended on the host. The fields are
// CUPTI's (CUpti_ActivityAPI, CUpti_ActivityKernel*, CUpti_ActivityMemcpy*, CUpti_ActivityMemset*,
// CUpti_ActivitySynchronization*): timestamps in ns on CUPTI's clock, correlation ids that join a
// GPU activity to the API call that enqueued it. worker/cuda/kernel_recorder.cpp fills it from
// CUPTI; tests fill it from recorded streams (read_activity_records), and both go through
// check_activity_records before anything is computed from them.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isobench::worker {

struct ApiCall {
  std::string name;          // "cudaLaunchKernel", "cuLaunchKernel" (cuptiGetCallbackName)
  bool driver = false;       // CUPTI_ACTIVITY_KIND_DRIVER; else RUNTIME
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t thread_id = 0;
  std::uint32_t correlation_id = 0;
};

struct GpuActivity {
  enum class Kind { kernel, memcpy, memset };
  Kind kind = Kind::kernel;
  std::string name;  // kernels: the symbol as the driver gives it (mangled for C++)
  std::array<std::int32_t, 3> grid{}, block{};  // kernels only
  std::string copy_kind;   // memcpys: "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", ... (CUpti_ActivityMemcpyKind)
  std::uint64_t bytes = 0; // memcpys and memsets
  std::uint32_t stream_id = 0;
  std::uint64_t start_ns = 0, end_ns = 0;
  std::uint32_t correlation_id = 0;
};

struct Synchronization {
  std::string type;  // "event", "stream_wait_event", "stream", "context" (CUpti_ActivitySynchronizationType)
  std::uint64_t start_ns = 0, end_ns = 0;  // on the host: how long it waited
  std::uint32_t stream_id = 0;
  std::uint32_t correlation_id = 0;
};

// One iteration (one benchmark launch) on the host, on CUPTI's clock (cuptiGetTimestamp).
struct IterationWindow {
  std::uint64_t begin_ns = 0, end_ns = 0;
};

struct ActivityRecords {
  std::vector<IterationWindow> iterations;  // in order, not overlapping
  std::vector<ApiCall> api_calls;
  std::vector<GpuActivity> gpu;
  std::vector<Synchronization> synchronizations;
  std::uint64_t dropped_records = 0;  // CUPTI lost them (full buffers) or they were incomplete
};

// Throws std::invalid_argument with one line naming the record ("gpu[12] (kernel): end_ns 100
// is before start_ns 200") when a record cannot be right: no iterations, an iteration or record
// that ends before it starts, iterations out of order or overlapping, a GPU activity or
// synchronisation whose correlation id no API call has, two API calls with one correlation id, a
// kernel without a name or with a zero grid or block dimension, an unknown copy or sync kind.
void check_activity_records(const ActivityRecords& records);

// Which iteration each record belongs to (an index into `iterations`, or -1 for none): an API
// call to the window its start lies in, a GPU activity or synchronisation to its API call's.
struct IterationMembership {
  std::vector<int> api, gpu, synchronizations;
};
// `records` must have passed check_activity_records.
IterationMembership assign_iterations(const ActivityRecords& records);

// A recorded stream as JSON (the test data's format, docs/model-workloads.md): {"iterations":
// [{"begin_ns", "end_ns"}], "api": [...], "gpu": [...], "synchronizations": [...],
// "dropped_records"}. Throws std::invalid_argument naming `source`, the field and what is wrong;
// the result has passed check_activity_records.
ActivityRecords read_activity_records(const nlohmann::json& stream, const std::string& source);

}  // namespace isobench::worker
