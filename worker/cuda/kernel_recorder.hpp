#pragma once
// Records the CUDA kernels a piece of work runs, through CUPTI's activity API
// (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: KIND_KERNEL would serialise the kernels it watches).
// libcupti is loaded at run time with dlopen, not linked: a worker that is not asked to record
// never loads it, and a machine without it still measures; what failed becomes a reason in the
// record, not an error of the run. Only one recorder may exist in a process at a time (CUPTI's
// buffer callbacks carry no user data).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "worker/kernel_record.hpp"

namespace isobench::worker {

struct KernelCapture {
  std::vector<KernelActivity> activities;
  std::uint64_t dropped_records = 0;
  std::string recorder;  // "CUPTI API <version> (<library>)"
  std::string failure;   // not empty: nothing was captured, and why
};

class KernelRecorder {
 public:
  KernelRecorder();   // loads libcupti; never throws (see unavailable_reason())
  ~KernelRecorder();  // detaches CUPTI from the process: the timed samples run without it
  KernelRecorder(const KernelRecorder&) = delete;
  KernelRecorder& operator=(const KernelRecorder&) = delete;

  // Empty when CUPTI loaded; else why not ("cannot load libcupti (tried ...): ...").
  const std::string& unavailable_reason() const { return reason_; }

  // Runs `pass` with kernel recording on and returns the kernels it ran. `pass` must wait for
  // its work to finish (synchronise) before it returns. Exceptions from `pass` propagate after
  // recording is turned off.
  KernelCapture record(const std::function<void()>& pass);

 private:
  std::string reason_;
  std::string recorder_;
  bool owner_ = false;       // this is the process's one recorder
  bool registered_ = false;  // CUPTI's callbacks are registered: finalize on destruction
};

}  // namespace isobench::worker
