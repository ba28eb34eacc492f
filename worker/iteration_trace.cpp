#include "iteration_trace.hpp"

#include <map>
#include <set>
#include <stdexcept>

#include "worker/kernel_record.hpp"

namespace isobench::worker {

namespace {

using nlohmann::json;

// Two processes in the viewer: the host (its threads) and the GPU (its streams, as threads).
constexpr int kHostPid = 1;
constexpr int kGpuPid = 2;
// The host's synchronisations carry no thread id: they get a track of their own.
constexpr std::uint32_t kSyncTid = 0;

// Signed: a GPU timestamp, normalised to the host's clock by CUPTI, may lie a little before the
// API call that enqueued it.
double us_since(std::uint64_t ns, std::uint64_t origin) {
  return (static_cast<double>(ns) - static_cast<double>(origin)) / 1000.0;
}

json metadata(const char* what, int pid, std::uint32_t tid, const std::string& name) {
  json m = {{"ph", "M"}, {"name", what}, {"pid", pid}, {"args", {{"name", name}}}};
  if (std::string(what) == "thread_name") m["tid"] = tid;
  return m;
}

std::string gpu_event_name(const GpuActivity& g, std::map<std::string, std::string>& readable) {
  switch (g.kind) {
    case GpuActivity::Kind::kernel: {
      auto [it, fresh] = readable.try_emplace(g.name);
      if (fresh) it->second = demangle_kernel_name(g.name);
      return it->second;
    }
    case GpuActivity::Kind::memcpy: return "memcpy " + g.copy_kind;
    case GpuActivity::Kind::memset: return "memset";
  }
  return "?";
}

}  // namespace

json iteration_trace(const ActivityRecords& records, std::size_t iteration, const std::string& title) {
  check_activity_records(records);
  if (iteration >= records.iterations.size())
    throw std::invalid_argument("iteration " + std::to_string(iteration) + " of " +
                                std::to_string(records.iterations.size()) + " recorded");
  const IterationMembership member = assign_iterations(records);
  const auto& window = records.iterations[iteration];
  const std::uint64_t origin = window.begin_ns;
  const int it = static_cast<int>(iteration);

  json events = json::array();
  std::set<std::uint32_t> threads, streams;
  events.push_back({{"ph", "X"}, {"cat", "iteration"}, {"name", "iteration " + std::to_string(iteration)},
                    {"pid", kHostPid}, {"tid", kSyncTid}, {"ts", 0.0},
                    {"dur", us_since(window.end_ns, origin)}});
  bool synchronised = false;
  std::map<std::uint32_t, const ApiCall*> caller;  // by correlation id
  for (std::size_t i = 0; i < records.api_calls.size(); ++i) {
    if (member.api[i] != it) continue;
    const auto& a = records.api_calls[i];
    threads.insert(a.thread_id);
    const double ts = us_since(a.start_ns, origin);
    events.push_back({{"ph", "X"}, {"cat", a.driver ? "cuda_driver" : "cuda_runtime"}, {"name", a.name},
                      {"pid", kHostPid}, {"tid", a.thread_id}, {"ts", ts}, {"dur", us_since(a.end_ns, a.start_ns)},
                      {"args", {{"correlation_id", a.correlation_id}}}});
    caller.emplace(a.correlation_id, &a);
  }
  std::map<std::string, std::string> readable;
  for (std::size_t i = 0; i < records.gpu.size(); ++i) {
    if (member.gpu[i] != it) continue;
    const auto& g = records.gpu[i];
    streams.insert(g.stream_id);
    json args = {{"correlation_id", g.correlation_id}, {"stream", g.stream_id}};
    if (g.kind == GpuActivity::Kind::kernel) {
      args["grid"] = g.grid;
      args["block"] = g.block;
    } else {
      args["bytes"] = g.bytes;
    }
    const double ts = us_since(g.start_ns, origin);
    const char* cat = g.kind == GpuActivity::Kind::kernel ? "kernel" : g.kind == GpuActivity::Kind::memcpy ? "memcpy" : "memset";
    events.push_back({{"ph", "X"}, {"cat", cat}, {"name", gpu_event_name(g, readable)}, {"pid", kGpuPid},
                      {"tid", g.stream_id}, {"ts", ts}, {"dur", us_since(g.end_ns, g.start_ns)}, {"args", args}});
    // One arrow per GPU activity: a graph launch enqueues many kernels under one correlation id,
    // and a flow id joins one start to one end. "bp": "e" binds the head to the slice it lies in
    // (the kernel), not to the next one.
    const ApiCall& a = *caller.at(g.correlation_id);
    const std::uint64_t flow = i + 1;
    events.push_back({{"ph", "s"}, {"cat", "correlation"}, {"name", "launch"}, {"id", flow}, {"pid", kHostPid},
                      {"tid", a.thread_id}, {"ts", us_since(a.start_ns, origin)}});
    events.push_back({{"ph", "f"}, {"bp", "e"}, {"cat", "correlation"}, {"name", "launch"}, {"id", flow},
                      {"pid", kGpuPid}, {"tid", g.stream_id}, {"ts", ts}});
  }
  for (std::size_t i = 0; i < records.synchronizations.size(); ++i) {
    if (member.synchronizations[i] != it) continue;
    const auto& s = records.synchronizations[i];
    synchronised = true;
    events.push_back({{"ph", "X"}, {"cat", "synchronization"}, {"name", "synchronize " + s.type},
                      {"pid", kHostPid}, {"tid", kSyncTid}, {"ts", us_since(s.start_ns, origin)},
                      {"dur", us_since(s.end_ns, s.start_ns)},
                      {"args", {{"correlation_id", s.correlation_id}, {"stream", s.stream_id}}}});
  }
  events.push_back(metadata("process_name", kHostPid, 0, "host"));
  events.push_back(metadata("process_name", kGpuPid, 0, "GPU"));
  events.push_back(metadata("thread_name", kHostPid, kSyncTid, synchronised ? "iteration, synchronisations" : "iteration"));
  for (auto t : threads)
    if (t != kSyncTid) events.push_back(metadata("thread_name", kHostPid, t, "thread " + std::to_string(t)));
  for (auto s : streams) events.push_back(metadata("thread_name", kGpuPid, s, "stream " + std::to_string(s)));

  return {{"traceEvents", events},
          {"displayTimeUnit", "ns"},
          {"otherData",
           {{"title", title},
            {"iteration", iteration},
            {"iterations_recorded", records.iterations.size()},
            {"clock", "CUPTI timestamps, microseconds from the iteration's start"}}}};
}

}  // namespace isobench::worker
