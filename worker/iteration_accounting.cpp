#include "iteration_accounting.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace isobench::worker {

namespace {

using Interval = std::pair<std::uint64_t, std::uint64_t>;

// The length of the union of the intervals.
std::uint64_t covered_ns(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::uint64_t total = 0, begin = 0, end = 0;
  bool open = false;
  for (const auto& [b, e] : intervals) {
    if (open && b <= end) {
      end = std::max(end, e);
      continue;
    }
    if (open) total += end - begin;
    begin = b;
    end = e;
    open = true;
  }
  if (open) total += end - begin;
  return total;
}

std::string microseconds(double ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f us", ns / 1000.0);
  return text;
}

bool is_launch_call(const ApiCall& a) { return a.name.find("Launch") != std::string::npos; }

}  // namespace

IterationAccounting account_iterations(const ActivityRecords& records) {
  check_activity_records(records);
  const IterationMembership member = assign_iterations(records);
  const std::size_t n = records.iterations.size();
  IterationAccounting acc;
  acc.iterations = n;
  acc.dropped_records = records.dropped_records;

  std::vector<std::vector<Interval>> gpu_busy(n), sync_wait(n);
  std::vector<std::uint64_t> launches(n, 0);
  std::vector<std::uint64_t> launch_call_ns;
  std::uint64_t api_calls = 0;
  for (std::size_t i = 0; i < records.api_calls.size(); ++i) {
    if (member.api[i] < 0) continue;
    const auto& a = records.api_calls[i];
    ++api_calls;
    if (is_launch_call(a)) {
      launch_call_ns.push_back(a.end_ns - a.start_ns);
      if (launch_call_ns.back() > acc.longest_launch_ns) {
        acc.longest_launch_ns = launch_call_ns.back();
        acc.longest_launch_name = a.name;
      }
    }
  }
  std::map<std::string, std::uint64_t> copies, copy_bytes;
  std::uint64_t memsets = 0;
  for (std::size_t i = 0; i < records.gpu.size(); ++i) {
    const int it = member.gpu[i];
    if (it < 0) continue;
    const auto& g = records.gpu[i];
    gpu_busy[it].push_back({g.start_ns, g.end_ns});
    switch (g.kind) {
      case GpuActivity::Kind::kernel: ++launches[it]; break;
      case GpuActivity::Kind::memcpy:
        ++copies[g.copy_kind];
        copy_bytes[g.copy_kind] += g.bytes;
        break;
      case GpuActivity::Kind::memset: ++memsets; break;
    }
  }
  std::uint64_t syncs = 0;
  for (std::size_t i = 0; i < records.synchronizations.size(); ++i) {
    const int it = member.synchronizations[i];
    if (it < 0) continue;
    const auto& s = records.synchronizations[i];
    ++syncs;
    // Only the part inside the window is time the iteration did not spend enqueuing.
    const auto& w = records.iterations[it];
    const auto b = std::max(s.start_ns, w.begin_ns), e = std::min(s.end_ns, w.end_ns);
    if (b < e) sync_wait[it].push_back({b, e});
  }

  double gpu = 0, window = 0, waited = 0;
  for (std::size_t it = 0; it < n; ++it) {
    gpu += static_cast<double>(covered_ns(gpu_busy[it]));
    window += static_cast<double>(records.iterations[it].end_ns - records.iterations[it].begin_ns);
    waited += static_cast<double>(covered_ns(sync_wait[it]));
  }
  const double per = 1.0 / static_cast<double>(n);
  acc.gpu_ns = gpu * per;
  acc.host_window_ns = window * per;
  acc.synchronization_wait_ns = waited * per;
  acc.host_enqueue_ns = (window - waited) * per;
  std::uint64_t total_launches = 0;
  for (auto l : launches) total_launches += l;
  acc.kernel_launches = static_cast<double>(total_launches) * per;
  acc.kernel_launches_min = *std::min_element(launches.begin(), launches.end());
  acc.kernel_launches_max = *std::max_element(launches.begin(), launches.end());
  acc.api_calls = static_cast<double>(api_calls) * per;
  acc.synchronizations = static_cast<double>(syncs) * per;
  acc.memsets = static_cast<double>(memsets) * per;
  for (const auto& [kind, count] : copies) {
    acc.memcpys[kind] = static_cast<double>(count) * per;
    acc.memcpy_bytes[kind] = static_cast<double>(copy_bytes[kind]) * per;
  }

  acc.launch_calls = launch_call_ns.size();
  if (!launch_call_ns.empty()) {
    std::sort(launch_call_ns.begin(), launch_call_ns.end());
    acc.median_launch_ns = launch_call_ns[launch_call_ns.size() / 2];
    acc.blocking_launch = acc.longest_launch_ns > kBlockingLaunchFloorNs &&
                          static_cast<double>(acc.longest_launch_ns) >
                              kBlockingLaunchFactor * static_cast<double>(acc.median_launch_ns);
  }
  acc.host_bound = acc.gpu_ns > 0 && acc.host_enqueue_ns >= kHostBoundShare * acc.gpu_ns;
  return acc;
}

KernelRecord pass_record(const ActivityRecords& records, const std::string& accounting_failure) {
  const auto inner = static_cast<std::uint32_t>(records.iterations.size());
  std::string reason = accounting_failure;
  IterationAccounting accounting;
  if (reason.empty()) {
    try {
      accounting = account_iterations(records);
    } catch (const std::invalid_argument& e) {
      reason = std::string("the activity records are inconsistent: ") + e.what();
    }
  }
  std::vector<KernelActivity> kernels;
  const IterationMembership member = reason.empty() ? assign_iterations(records) : IterationMembership{};
  for (std::size_t i = 0; i < records.gpu.size(); ++i) {
    const auto& g = records.gpu[i];
    if (g.kind != GpuActivity::Kind::kernel || (reason.empty() && member.gpu[i] < 0)) continue;
    kernels.push_back({g.name, g.grid, g.block, g.end_ns >= g.start_ns ? g.end_ns - g.start_ns : 0});
  }
  KernelRecord record = aggregate_kernels(kernels, inner, records.dropped_records);
  record.iteration = reason.empty() ? accounting.to_json() : nlohmann::json{{"reason", reason}};
  return record;
}

nlohmann::json IterationAccounting::to_json() const {
  nlohmann::json copies = nlohmann::json::object();
  for (const auto& [kind, count] : memcpys) copies[kind] = {{"count", count}, {"bytes", memcpy_bytes.at(kind)}};
  nlohmann::json j = {{"iterations", iterations},
                      {"gpu_ns", gpu_ns},
                      {"host_enqueue_ns", host_enqueue_ns},
                      {"host_window_ns", host_window_ns},
                      {"host_enqueue_share", gpu_ns > 0 ? host_enqueue_ns / gpu_ns : 0.0},
                      {"kernel_launches", kernel_launches},
                      {"kernel_launches_range", {kernel_launches_min, kernel_launches_max}},
                      {"api_calls", api_calls},
                      {"memcpys", copies},
                      {"memsets", memsets},
                      {"synchronizations", synchronizations},
                      {"synchronization_wait_ns", synchronization_wait_ns},
                      {"launch_calls", launch_calls},
                      {"median_launch_ns", median_launch_ns},
                      {"longest_launch_ns", longest_launch_ns},
                      {"longest_launch", longest_launch_name},
                      {"host_bound", host_bound},
                      {"blocking_launch", blocking_launch},
                      {"dropped_records", dropped_records}};
  std::vector<std::string> flags;
  if (host_bound)
    flags.push_back("host-bound: enqueuing an iteration takes " +
                    std::to_string(static_cast<int>(100 * host_enqueue_ns / gpu_ns + 0.5)) + "% of its GPU time");
  if (blocking_launch)
    flags.push_back("blocking launch: one " + longest_launch_name + " took " +
                    microseconds(static_cast<double>(longest_launch_ns)) + " against a median of " +
                    microseconds(static_cast<double>(median_launch_ns)) + " (a full stream buffer?)");
  if (kernel_launches_min != kernel_launches_max)
    flags.push_back("iterations differ: " + std::to_string(kernel_launches_min) + " to " +
                    std::to_string(kernel_launches_max) + " kernel launches");
  if (dropped_records > 0)
    flags.push_back("CUPTI dropped " + std::to_string(dropped_records) + " records: the counts are low");
  if (!flags.empty()) j["flags"] = flags;
  return j;
}

}  // namespace isobench::worker
