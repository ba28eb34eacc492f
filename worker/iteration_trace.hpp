#pragma once
// The trace of one iteration as Chrome Trace Event JSON (the "JSON Object Format" that
// ui.perfetto.dev and chrome://tracing open): the host's CUDA API calls on their threads, the
// GPU's kernels, copies and memsets on their streams, the host's synchronisations, and a flow
// arrow from each API call to the GPU work it enqueued (flow id = CUPTI correlation id, as
// PyTorch's Kineto traces do). Only what belongs to the iteration (worker/activity_records.hpp,
// assign_iterations) is in it, so start-up and the other iterations are not; timestamps are
// microseconds from the iteration's start. The format's schema, as far as this writer uses it,
// is tests/data/trace/chrome_trace.schema.json, which CI checks these traces against. The worker
// writes it as ipc::kIterationTraceFile in the instance's artifact folder.

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "worker/activity_records.hpp"

namespace isobench::worker {

// `iteration` indexes records.iterations; `title` names the trace (instance id and side). Throws
// std::invalid_argument for bad records or an iteration out of range.
nlohmann::json iteration_trace(const ActivityRecords& records, std::size_t iteration, const std::string& title);

}  // namespace isobench::worker
