#include "kernel_record.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <tuple>

namespace isobench::worker {

namespace {

// ASCII-only JSON: the orchestrator turns any other byte it finds in the segment into '?'.
std::string dump_ascii(const nlohmann::json& j) { return j.dump(-1, ' ', /*ensure_ascii=*/true); }

}  // namespace

double KernelRecord::kernels_per_launch() const {
  return inner ? static_cast<double>(kernel_launches) / inner : 0.0;
}

double KernelRecord::kernel_gpu_s_per_launch() const {
  return inner ? static_cast<double>(total_ns) * 1e-9 / inner : 0.0;
}

nlohmann::json KernelRecord::to_json() const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& k : kernels)
    list.push_back({{"name", k.name},
                    {"grid", k.grid},
                    {"block", k.block},
                    {"launches_per_sample", k.launches},
                    {"total_gpu_ns", k.total_ns},
                    {"mean_gpu_ns", k.launches ? static_cast<double>(k.total_ns) / k.launches : 0.0},
                    {"share", k.share}});
  nlohmann::json j = {{"pass", "untimed"},
                      {"inner", inner},
                      {"kernel_launches", kernel_launches},
                      {"kernels_per_launch", kernels_per_launch()},
                      {"kernel_gpu_s_per_launch", kernel_gpu_s_per_launch()},
                      {"dropped_records", dropped_records},
                      {"kernels", list},
                      {"truncated_kernels", truncated_kernels},
                      {"truncated_share", truncated_share}};
  if (!recorder.empty()) j["recorder"] = recorder;
  if (!iteration.is_null()) j["iteration"] = iteration;
  if (truncated_kernels > 0)
    j["note"] = std::to_string(truncated_kernels) + " kernels with the smallest GPU time left out to fit the record";
  if (dropped_records > 0)
    j["warning"] = "CUPTI dropped " + std::to_string(dropped_records) + " kernel records: the totals are low";
  return j;
}

std::string demangle_kernel_name(const std::string& symbol) {
  std::string name = symbol;
  if (symbol.rfind("_Z", 0) == 0) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> readable(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status),
                                                    std::free);
    if (status == 0 && readable) name = readable.get();
  }
  if (name.size() > kMaxKernelNameChars) name = name.substr(0, kMaxKernelNameChars - 3) + "...";
  return name;
}

KernelRecord aggregate_kernels(const std::vector<KernelActivity>& activities, std::uint32_t inner,
                               std::uint64_t dropped_records) {
  KernelRecord record;
  record.inner = inner;
  record.dropped_records = dropped_records;
  using Key = std::tuple<std::string, std::array<std::int32_t, 3>, std::array<std::int32_t, 3>>;
  std::map<Key, KernelStats> by_kernel;
  std::map<std::string, std::string> readable;  // CUPTI repeats the same symbol: demangle once
  for (const auto& a : activities) {
    auto [it, fresh] = readable.try_emplace(a.name);
    if (fresh) it->second = demangle_kernel_name(a.name);
    auto& k = by_kernel[Key{it->second, a.grid, a.block}];
    k.name = it->second;
    k.grid = a.grid;
    k.block = a.block;
    ++k.launches;
    k.total_ns += a.gpu_ns;
    ++record.kernel_launches;
    record.total_ns += a.gpu_ns;
  }
  for (auto& [key, k] : by_kernel) {
    k.share = record.total_ns ? static_cast<double>(k.total_ns) / static_cast<double>(record.total_ns) : 0.0;
    record.kernels.push_back(std::move(k));
  }
  // Largest GPU time first; the map's order (name, grid, block) breaks ties, so the order is the
  // same on every side and in every worker.
  std::stable_sort(record.kernels.begin(), record.kernels.end(),
                   [](const KernelStats& x, const KernelStats& y) { return x.total_ns > y.total_ns; });
  return record;
}

std::string encode_kernel_record(KernelRecord record, std::size_t max_bytes) {
  for (;;) {
    std::string text = dump_ascii(record.to_json());
    if (text.size() < max_bytes) return text;
    if (record.kernels.empty()) return encode_no_kernel_record("the kernel record does not fit", max_bytes);
    ++record.truncated_kernels;
    record.truncated_share += record.kernels.back().share;
    record.kernels.pop_back();
  }
}

std::string encode_no_kernel_record(const std::string& reason, std::size_t max_bytes) {
  std::string shown = reason;
  for (;;) {
    std::string text = dump_ascii({{"reason", shown}});
    if (text.size() < max_bytes) return text;
    if (shown.size() <= 3) return "{}";
    // Escapes make the text longer than the reason: cut by the excess, and again if needed.
    const std::size_t excess = text.size() - max_bytes + 1 + 3;
    shown = shown.substr(0, shown.size() > excess ? shown.size() - excess : 0) + "...";
  }
}

}  // namespace isobench::worker
