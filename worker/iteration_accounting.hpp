#pragma once
// Per-iteration accounting of a model step: from the activity records of an untimed pass of N
// iterations (worker/activity_records.hpp) to what kernel teams ask of one iteration -- its GPU
// time, the host's time to enqueue it, the kernel launches, memory copies by direction and
// synchronisations it makes, the per-kernel table, and two flags. Pure computation, records in,
// accounting out: the worker fills the records from CUPTI, the tests from recorded streams.
//
// What belongs to an iteration: every API call that starts inside its host window, every GPU
// activity and synchronisation whose correlation id is one of those calls'. Records outside every
// window (set-up, the final synchronise of the pass) count in no iteration.
//
//   GPU time        the union of the iteration's kernel, memcpy and memset intervals: concurrent
//                   kernels count once, idle gaps not at all.
//   host enqueue    the iteration's host window less the time its synchronisations waited: what
//                   the host spent issuing the step (Python, the framework, the driver).
//   host-bound      host enqueue >= kHostBoundShare of GPU time (see below).
//   blocking launch the longest launch call (an API call whose name holds "Launch") is longer
//                   than kBlockingLaunchFactor times the median launch call and kBlockingLaunchFloorNs.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "worker/activity_records.hpp"
#include "worker/kernel_record.hpp"

namespace isobench::worker {

// Host-bound at half: a step whose host needs half as long to enqueue as its GPU needs to run it
// has no slack left for the host's jitter (a GC pause, a page fault, another process), and it is
// the ratio kernel teams quote when they find one ("spending half as long enqueuing the
// dispatches as we are executing them"). Below it the GPU stays fed; above it a faster kernel
// may not make the step faster.
inline constexpr double kHostBoundShare = 0.5;
// A launch call is normally a few microseconds; one that waits for room in the driver's full
// stream buffer takes as long as the GPU needs to drain it (milliseconds). 50 times the median
// is far outside the spread of ordinary launches, and the 100 us floor keeps a 5 us launch among
// 0.1 us ones (a cached graph) from being called blocking.
inline constexpr double kBlockingLaunchFactor = 50.0;
inline constexpr std::uint64_t kBlockingLaunchFloorNs = 100'000;

struct IterationAccounting {
  std::size_t iterations = 0;
  // Means per iteration.
  double gpu_ns = 0;
  double host_enqueue_ns = 0;
  double host_window_ns = 0;
  double kernel_launches = 0;
  double api_calls = 0;
  double synchronizations = 0;
  double synchronization_wait_ns = 0;
  std::map<std::string, double> memcpys;       // by direction ("HtoD", ...): copies per iteration
  std::map<std::string, double> memcpy_bytes;  // by direction: bytes per iteration
  double memsets = 0;
  // The spread of the launch count across iterations: equal when every iteration did the same.
  std::uint64_t kernel_launches_min = 0, kernel_launches_max = 0;
  // Launch calls over all iterations.
  std::uint64_t launch_calls = 0;
  std::uint64_t median_launch_ns = 0;
  std::uint64_t longest_launch_ns = 0;
  std::string longest_launch_name;
  bool host_bound = false;
  bool blocking_launch = false;
  std::uint64_t dropped_records = 0;

  // The "iteration" object of a kernel record (kernels.json): the per-kernel table is the
  // record's own "kernels", aggregated over the same iterations (pass_record).
  nlohmann::json to_json() const;
};

// Throws std::invalid_argument when the records are bad (check_activity_records).
IterationAccounting account_iterations(const ActivityRecords& records);

// --record-kernels' record of a pass of iterations: the per-kernel table of the kernels that ran
// inside the iterations (demangled, per name, grid and block, top GPU time first, `inner` = the
// number of iterations) with the accounting as its "iteration". When the records fail their
// check, or `accounting_failure` says why the recorder could not record what the accounting
// needs, the table holds every kernel of the pass and "iteration" the reason: the kernels are
// still worth having.
KernelRecord pass_record(const ActivityRecords& records, const std::string& accounting_failure = {});

}  // namespace isobench::worker
