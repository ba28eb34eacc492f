#pragma once
// One sample on its way from the worker's timer to the journal: the timer measures it, a rank of
// a multi-rank group hands its part to rank 0, the worker writes it into its slot of the segment,
// and the orchestrator journals it, all as this one struct. Its flags are bits here and names in
// the journal; both come from the one list below.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace isobench::ipc {

struct SampleValues {
  double value_s = 0;         // seconds per launch: the mean or min of the inner launches
  double sm_clock_mhz = 0;    // the lowest SM clock read around the sample (CUDA; 0: unknown)
  // Host time queueing the inner launches, per launch: CUDA, the launch calls (or the graph
  // launch) only, which beside the GPU time shows a host-bound kernel; CPU, the launches
  // themselves (their wall time); commands and unknown: 0.
  double host_enqueue_s = 0;
  double kernel_gpu_s = 0;    // GPU time of the kernels per launch, from the worker's record pass; 0: none
  std::uint64_t begin_ns = 0;  // CLOCK_MONOTONIC around the timed region
  std::uint64_t end_ns = 0;
  std::uint32_t flags = 0;     // SampleFlag bits
  std::uint32_t inner = 0;     // launches in the sample
};
static_assert(std::is_trivially_copyable_v<SampleValues>);

// What a sample's flags say about it. The journal names them; docs/run-format.md explains them.
enum SampleFlag : std::uint32_t {
  flag_low_sm_clock = 1u << 0,
  flag_graph_fallback = 1u << 1,
  flag_blocking_timeout = 1u << 2,
  flag_summary = 1u << 3,
};

struct SampleFlagInfo {
  SampleFlag bit;
  std::string_view name;
  std::string_view meaning;
};

inline constexpr SampleFlagInfo kSampleFlags[] = {
    {flag_low_sm_clock, "low_sm_clock",
     "the SM clock read around the sample was under 90% of the device's maximum"},
    {flag_graph_fallback, "graph_fallback", "the CUDA graph timer could not capture the launches; events were used"},
    {flag_blocking_timeout, "blocking_timeout",
     "the blocking kernel gave up before every launch was queued: launch latency may be in the sample"},
    {flag_summary, "summary",
     "not one sample: an imported tool's summary statistic, where its file holds no samples (orchestrate import)"},
};

// The names of the bits set, in the list's order; bits that name no flag are left out.
inline std::vector<std::string> sample_flag_names(std::uint32_t bits) {
  std::vector<std::string> names;
  for (const auto& f : kSampleFlags)
    if (bits & f.bit) names.emplace_back(f.name);
  return names;
}

// The bit of a flag's name; nullopt for a name that is no flag.
inline std::optional<std::uint32_t> sample_flag_bit(std::string_view name) {
  for (const auto& f : kSampleFlags)
    if (f.name == name) return f.bit;
  return std::nullopt;
}

}  // namespace isobench::ipc
