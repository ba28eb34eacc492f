#pragma once
// Records what a pass of iterations does on the device, through CUPTI's activity API: the
// kernels (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: KIND_KERNEL would serialise the kernels it
// watches), memory copies and memsets, the runtime and driver API calls that enqueued them, and
// the host's synchronisations, with each iteration's host window on CUPTI's clock
// (worker/activity_records.hpp).
// libcupti is loaded at run time with dlopen, not linked: a worker that is not asked to record
// never loads it, and a machine without it still measures; what failed becomes a reason in the
// record, not an error of the run. Only one recorder may exist in a process at a time (CUPTI's
// buffer callbacks carry no user data).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "worker/activity_records.hpp"

namespace isobench::worker {

struct KernelCapture {
  ActivityRecords records;
  std::string recorder;  // "CUPTI API <version> (<library>)"
  std::string failure;   // not empty: nothing was captured, and why
  // Not empty: the kernels were captured but not everything the accounting needs (an activity
  // kind CUPTI refused), and why.
  std::string accounting_failure;
};

class KernelRecorder {
 public:
  KernelRecorder();   // loads libcupti; never throws (see unavailable_reason())
  ~KernelRecorder();  // detaches CUPTI from the process: the timed samples run without it
  KernelRecorder(const KernelRecorder&) = delete;
  KernelRecorder& operator=(const KernelRecorder&) = delete;

  // Empty when CUPTI loaded; else why not ("cannot load libcupti (tried ...): ...").
  const std::string& unavailable_reason() const { return reason_; }

  // Runs `iteration` `iterations` times, then `finish` (which must wait for the work to end:
  // synchronise), with recording on, and returns what they did. Exceptions from either propagate
  // after recording is turned off.
  KernelCapture record(std::uint32_t iterations, const std::function<void()>& iteration,
                       const std::function<void()>& finish);

 private:
  std::string reason_;
  std::string recorder_;
  bool owner_ = false;       // this is the process's one recorder
  bool registered_ = false;  // CUPTI's callbacks are registered: finalize on destruction
};

}  // namespace isobench::worker
