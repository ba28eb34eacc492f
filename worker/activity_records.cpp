#include "activity_records.hpp"

#include <algorithm>
#include <map>
#include <limits>
#include <set>
#include <stdexcept>

namespace isobench::worker {

namespace {

using nlohmann::json;

// CUpti_ActivityMemcpyKind and CUpti_ActivitySynchronizationType, by the names the recorder gives them.
const std::set<std::string> kCopyKinds = {"unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
                                          "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};
const std::set<std::string> kSyncTypes = {"unknown", "event", "stream_wait_event", "stream", "context"};

const char* kind_name(GpuActivity::Kind kind) {
  switch (kind) {
    case GpuActivity::Kind::kernel: return "kernel";
    case GpuActivity::Kind::memcpy: return "memcpy";
    case GpuActivity::Kind::memset: return "memset";
  }
  return "?";
}

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(what); }

void check_interval(const std::string& where, std::uint64_t start, std::uint64_t end) {
  if (end < start)
    bad(where + ": end_ns " + std::to_string(end) + " is before start_ns " + std::to_string(start));
}

// The JSON reader's helpers: every missing or mistyped field is named with its record.
const json& field(const json& record, const char* name, const std::string& where) {
  if (!record.is_object()) bad(where + ": not an object");
  const auto it = record.find(name);
  if (it == record.end()) bad(where + ": no field '" + name + "'");
  return *it;
}

template <class T>
T unsigned_field(const json& record, const char* name, const std::string& where) {
  const json& v = field(record, name, where);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
    bad(where + "." + name + ": not a non-negative integer (" + v.dump() + ")");
  const auto value = v.get<std::uint64_t>();
  if (value > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
    bad(where + "." + name + ": " + std::to_string(value) + " is out of range");
  return static_cast<T>(value);
}

std::string string_field(const json& record, const char* name, const std::string& where) {
  const json& v = field(record, name, where);
  if (!v.is_string()) bad(where + "." + name + ": not a string (" + v.dump() + ")");
  return v.get<std::string>();
}

std::array<std::int32_t, 3> dim3_field(const json& record, const char* name, const std::string& where) {
  const json& v = field(record, name, where);
  if (!v.is_array() || v.size() != 3) bad(where + "." + name + ": not an array of 3 integers (" + v.dump() + ")");
  std::array<std::int32_t, 3> d{};
  for (std::size_t i = 0; i < 3; ++i) {
    if (!v[i].is_number_integer()) bad(where + "." + name + ": not an array of 3 integers (" + v.dump() + ")");
    d[i] = v[i].get<std::int32_t>();
  }
  return d;
}

const json& array_of(const json& stream, const char* name, const std::string& source) {
  static const json empty = json::array();
  const auto it = stream.find(name);
  if (it == stream.end()) return empty;
  if (!it->is_array()) bad(source + ": '" + name + "' is not an array");
  return *it;
}

}  // namespace

void check_activity_records(const ActivityRecords& records) {
  if (records.iterations.empty()) bad("iterations: none recorded");
  for (std::size_t i = 0; i < records.iterations.size(); ++i) {
    const auto& it = records.iterations[i];
    const std::string where = "iterations[" + std::to_string(i) + "]";
    if (it.end_ns < it.begin_ns)
      bad(where + ": end_ns " + std::to_string(it.end_ns) + " is before begin_ns " + std::to_string(it.begin_ns));
    if (i > 0 && it.begin_ns < records.iterations[i - 1].end_ns)
      bad(where + ": begins at " + std::to_string(it.begin_ns) + ", before iteration " + std::to_string(i - 1) +
          " ends (" + std::to_string(records.iterations[i - 1].end_ns) + ")");
  }
  std::map<std::uint32_t, std::size_t> api_by_correlation;
  for (std::size_t i = 0; i < records.api_calls.size(); ++i) {
    const auto& a = records.api_calls[i];
    const std::string where = "api[" + std::to_string(i) + "] (" + a.name + ")";
    if (a.name.empty()) bad("api[" + std::to_string(i) + "]: no name");
    check_interval(where, a.start_ns, a.end_ns);
    const auto [seen, fresh] = api_by_correlation.emplace(a.correlation_id, i);
    if (!fresh)
      bad(where + ": correlation id " + std::to_string(a.correlation_id) + " is also api[" +
          std::to_string(seen->second) + "]'s");
  }
  for (std::size_t i = 0; i < records.gpu.size(); ++i) {
    const auto& g = records.gpu[i];
    const std::string where = "gpu[" + std::to_string(i) + "] (" + kind_name(g.kind) + ")";
    check_interval(where, g.start_ns, g.end_ns);
    if (!api_by_correlation.count(g.correlation_id))
      bad(where + ": correlation id " + std::to_string(g.correlation_id) + " matches no API call");
    if (g.kind == GpuActivity::Kind::kernel) {
      if (g.name.empty()) bad(where + ": no kernel name");
      for (int d = 0; d < 3; ++d)
        if (g.grid[d] <= 0 || g.block[d] <= 0) bad(where + " " + g.name + ": a grid or block dimension is not positive");
    }
    if (g.kind == GpuActivity::Kind::memcpy && !kCopyKinds.count(g.copy_kind))
      bad(where + ": unknown copy kind '" + g.copy_kind + "' (HtoD, DtoH, DtoD, HtoH, PtoP, HtoA, AtoH, AtoA, AtoD, DtoA, unknown)");
  }
  for (std::size_t i = 0; i < records.synchronizations.size(); ++i) {
    const auto& s = records.synchronizations[i];
    const std::string where = "synchronizations[" + std::to_string(i) + "]";
    check_interval(where, s.start_ns, s.end_ns);
    if (!kSyncTypes.count(s.type))
      bad(where + ": unknown type '" + s.type + "' (event, stream_wait_event, stream, context, unknown)");
    if (!api_by_correlation.count(s.correlation_id))
      bad(where + ": correlation id " + std::to_string(s.correlation_id) + " matches no API call");
  }
}

IterationMembership assign_iterations(const ActivityRecords& records) {
  IterationMembership m;
  const auto& windows = records.iterations;
  std::map<std::uint32_t, int> by_correlation;
  for (const auto& a : records.api_calls) {
    // Windows are ordered and disjoint: the last one that begins at or before the call's start.
    const auto next = std::upper_bound(windows.begin(), windows.end(), a.start_ns,
                                       [](std::uint64_t t, const IterationWindow& w) { return t < w.begin_ns; });
    int iteration = -1;
    if (next != windows.begin() && a.start_ns < std::prev(next)->end_ns)
      iteration = static_cast<int>(std::prev(next) - windows.begin());
    m.api.push_back(iteration);
    by_correlation[a.correlation_id] = iteration;
  }
  for (const auto& g : records.gpu) m.gpu.push_back(by_correlation.at(g.correlation_id));
  for (const auto& s : records.synchronizations) m.synchronizations.push_back(by_correlation.at(s.correlation_id));
  return m;
}

ActivityRecords read_activity_records(const json& stream, const std::string& source) {
  if (!stream.is_object()) bad(source + ": not a JSON object");
  ActivityRecords r;
  const auto& iterations = array_of(stream, "iterations", source);
  for (std::size_t i = 0; i < iterations.size(); ++i) {
    const std::string where = source + ": iterations[" + std::to_string(i) + "]";
    r.iterations.push_back({unsigned_field<std::uint64_t>(iterations[i], "begin_ns", where),
                            unsigned_field<std::uint64_t>(iterations[i], "end_ns", where)});
  }
  const auto& api = array_of(stream, "api", source);
  for (std::size_t i = 0; i < api.size(); ++i) {
    const std::string where = source + ": api[" + std::to_string(i) + "]";
    ApiCall a;
    a.name = string_field(api[i], "name", where);
    const std::string domain = string_field(api[i], "domain", where);
    if (domain != "runtime" && domain != "driver") bad(where + ".domain: '" + domain + "' is neither runtime nor driver");
    a.driver = domain == "driver";
    a.start_ns = unsigned_field<std::uint64_t>(api[i], "start_ns", where);
    a.end_ns = unsigned_field<std::uint64_t>(api[i], "end_ns", where);
    a.thread_id = unsigned_field<std::uint32_t>(api[i], "thread_id", where);
    a.correlation_id = unsigned_field<std::uint32_t>(api[i], "correlation_id", where);
    r.api_calls.push_back(std::move(a));
  }
  const auto& gpu = array_of(stream, "gpu", source);
  for (std::size_t i = 0; i < gpu.size(); ++i) {
    const std::string where = source + ": gpu[" + std::to_string(i) + "]";
    GpuActivity g;
    const std::string kind = string_field(gpu[i], "kind", where);
    if (kind == "kernel") {
      g.kind = GpuActivity::Kind::kernel;
      g.name = string_field(gpu[i], "name", where);
      g.grid = dim3_field(gpu[i], "grid", where);
      g.block = dim3_field(gpu[i], "block", where);
    } else if (kind == "memcpy") {
      g.kind = GpuActivity::Kind::memcpy;
      g.copy_kind = string_field(gpu[i], "copy_kind", where);
      g.bytes = unsigned_field<std::uint64_t>(gpu[i], "bytes", where);
    } else if (kind == "memset") {
      g.kind = GpuActivity::Kind::memset;
      g.bytes = unsigned_field<std::uint64_t>(gpu[i], "bytes", where);
    } else {
      bad(where + ".kind: '" + kind + "' is not kernel, memcpy or memset");
    }
    g.stream_id = unsigned_field<std::uint32_t>(gpu[i], "stream_id", where);
    g.start_ns = unsigned_field<std::uint64_t>(gpu[i], "start_ns", where);
    g.end_ns = unsigned_field<std::uint64_t>(gpu[i], "end_ns", where);
    g.correlation_id = unsigned_field<std::uint32_t>(gpu[i], "correlation_id", where);
    r.gpu.push_back(std::move(g));
  }
  const auto& syncs = array_of(stream, "synchronizations", source);
  for (std::size_t i = 0; i < syncs.size(); ++i) {
    const std::string where = source + ": synchronizations[" + std::to_string(i) + "]";
    Synchronization s;
    s.type = string_field(syncs[i], "type", where);
    s.start_ns = unsigned_field<std::uint64_t>(syncs[i], "start_ns", where);
    s.end_ns = unsigned_field<std::uint64_t>(syncs[i], "end_ns", where);
    s.stream_id = unsigned_field<std::uint32_t>(syncs[i], "stream_id", where);
    s.correlation_id = unsigned_field<std::uint32_t>(syncs[i], "correlation_id", where);
    r.synchronizations.push_back(std::move(s));
  }
  if (stream.contains("dropped_records")) r.dropped_records = unsigned_field<std::uint64_t>(stream, "dropped_records", source);
  try {
    check_activity_records(r);
  } catch (const std::invalid_argument& e) {
    bad(source + ": " + e.what());
  }
  return r;
}

}  // namespace isobench::worker
