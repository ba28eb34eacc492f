#pragma once
// What --record-kernels reports about an instance: the kernels one untimed pass of `inner`
// launches ran, aggregated per kernel (demangled name, grid, block) with launches, GPU time and
// share, and the totals per benchmark launch. Pure host code: worker/cuda/kernel_recorder.hpp
// collects the activities through CUPTI; this part is what the tests check without a GPU.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isobench::worker {

// One kernel execution as CUPTI reported it.
struct KernelActivity {
  std::string name;  // as the driver gives it: mangled for C++ kernels
  std::array<std::int32_t, 3> grid{};
  std::array<std::int32_t, 3> block{};
  std::uint64_t gpu_ns = 0;  // end - start
};

// Every execution of one kernel (same name, grid and block) in the pass.
struct KernelStats {
  std::string name;  // demangled, at most kMaxKernelNameChars
  std::array<std::int32_t, 3> grid{};
  std::array<std::int32_t, 3> block{};
  std::uint64_t launches = 0;  // in the pass, which is one sample's worth of launches
  std::uint64_t total_ns = 0;
  double share = 0;  // of the pass's kernel GPU time
};

struct KernelRecord {
  std::uint32_t inner = 0;             // benchmark launches in the pass
  std::uint64_t kernel_launches = 0;   // kernel executions CUPTI reported
  std::uint64_t total_ns = 0;          // their GPU time
  std::uint64_t dropped_records = 0;   // activities CUPTI lost (its buffers were full)
  std::vector<KernelStats> kernels;    // largest share first
  std::size_t truncated_kernels = 0;   // dropped to fit the segment's buffer, smallest first
  double truncated_share = 0;          // their share of the GPU time
  std::string recorder;                // which CUPTI recorded it, e.g. "CUPTI API 130001 (libcupti.so.13)"
  // The per-iteration accounting of the pass (worker/iteration_accounting.hpp), or {"reason": ...}
  // when it could not be made; null for records made without one.
  nlohmann::json iteration;

  double kernels_per_launch() const;
  double kernel_gpu_s_per_launch() const;
  nlohmann::json to_json() const;
};

// Longer demangled names (deeply templated kernels) are cut here, the same way on every side,
// so a record holds several kernels and names still compare across builds.
inline constexpr std::size_t kMaxKernelNameChars = 1000;

// The readable name of a kernel symbol; the symbol itself when it is not a mangled C++ name.
std::string demangle_kernel_name(const std::string& symbol);

// Groups the activities of one pass of `inner` launches per kernel, largest GPU time first.
KernelRecord aggregate_kernels(const std::vector<KernelActivity>& activities, std::uint32_t inner,
                               std::uint64_t dropped_records = 0);

// The record as JSON text shorter than `max_bytes`: the kernels with the smallest share are
// dropped until it fits, and the record says how many and how much GPU time they had.
std::string encode_kernel_record(KernelRecord record, std::size_t max_bytes);

// Why there is no record: {"reason": ...}, shorter than `max_bytes`.
std::string encode_no_kernel_record(const std::string& reason, std::size_t max_bytes);

}  // namespace isobench::worker
