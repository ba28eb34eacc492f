#include "orchestrator/history/run_entry.hpp"

#include <cstdio>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "orchestrator/compare/compare_inputs.hpp"
#include "orchestrator/run_directory.hpp"
#include "orchestrator/sha256.hpp"

namespace isobench::orchestrator::history {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string text_at(const json& j, std::initializer_list<const char*> path) {
  const json* at = &j;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return {};
    at = &(*at)[key];
  }
  return at->is_string() ? at->get<std::string>() : std::string();
}

std::string joined(const std::set<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// GPU runs are told apart by the GPUs their samples name (model, UUID), or else environment.json,
// with the driver and CUDA versions; a run whose samples name none (CPU kernels, imported CPU results) by CPU and host.
Machine machine_of(const Run& run, const json& environment) {
  Machine m;
  std::set<std::string> names, uuids;
  for (const auto* by_id : {&run.gpus, &run.candidate_gpus})
    for (const auto& [id, gpus] : *by_id)
      for (const auto& gpu : gpus) {
        names.insert(gpu.name);
        uuids.insert(gpu.uuid);
      }
  // Imported GPU results (nvbench) name their devices in environment.json only, without UUIDs.
  if (uuids.empty() && environment.contains("gpu") && environment["gpu"].is_object() &&
      environment["gpu"].contains("gpus") && environment["gpu"]["gpus"].is_array())
    for (const auto& gpu : environment["gpu"]["gpus"])
      if (gpu.is_object() && gpu.contains("name") && gpu["name"].is_string()) {
        names.insert(gpu["name"].get<std::string>());
        uuids.insert(gpu.contains("uuid") && gpu["uuid"].is_string() ? gpu["uuid"].get<std::string>() : "no UUID");
      }
  m.cpu = text_at(environment, {"cpu", "model"});
  m.host = text_at(environment, {"host", "hostname"});
  if (!uuids.empty()) {
    m.gpu_name = joined(names);
    m.gpu_uuid = joined(uuids);
    m.driver = text_at(environment, {"gpu", "driver_version"});
    m.cuda = text_at(environment, {"gpu", "cuda_driver_version"});
    m.key = m.gpu_name + " " + m.gpu_uuid + ", driver " + (m.driver.empty() ? "?" : m.driver) + ", CUDA " +
            (m.cuda.empty() ? "?" : m.cuda);
  } else {
    m.key = (m.cpu.empty() ? std::string("unknown CPU") : m.cpu) + " on " + (m.host.empty() ? "unknown host" : m.host);
  }
  return m;
}

std::string exact(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

}  // namespace

RunEntry read_run_entry(const std::string& dir, const std::string& label, std::ostream& err) {
  const Run run = read_run(dir, err);
  json info, environment;
  try {
    const RunDirectory directory = RunDirectory::open(dir);
    info = directory.read_json("run.json");
    if (directory.exists("environment.json")) environment = directory.read_json("environment.json");
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  const std::string run_json = (fs::path(dir) / "run.json").string();
  if (!info.contains("started") || !info["started"].is_string())
    throw UsageError(run_json + ": \"started\" is not a string (the run's start time)");
  if (info.contains("status") && !info["status"].is_string()) throw UsageError(run_json + ": \"status\" is not a string");
  if (info.contains("source") && !info["source"].is_string()) throw UsageError(run_json + ": \"source\" is not a string");
  // A run still being written would be stored half-measured, and replaced by every later add.
  if (const std::string status = info.value("status", ""); status == "running" || status == "planned")
    throw UsageError(run_json + ": status \"" + status + "\": the run is still being measured (or its orchestrator " +
                     "died: orchestrate --resume " + dir + " finishes it); add it once it has ended");

  RunEntry entry;
  entry.dir = fs::absolute(dir).lexically_normal().string();
  entry.label = label;
  entry.started = info["started"].get<std::string>();
  entry.status = info.value("status", std::string("unknown"));
  entry.source = info.value("source", std::string("isobench"));
  entry.environment = environment.is_null() ? "{}" : environment.dump();
  entry.sides = run.ab ? 2 : 1;
  entry.machine = machine_of(run, environment);
  // The uid is the run wherever its directory lies and however often plan.json was rewritten
  // (calibration pins inner counts after the start): its start, its machine and its instances.
  Sha256 uid, content;
  uid.update(entry.started + "\n" + entry.machine.key + "\n");
  for (const auto& id : run.order) {
    uid.update(id + "\n");
    for (int side = 0; side < entry.sides; ++side) {
      const auto& by_id = side == 0 ? run.samples : run.candidate_samples;
      const auto it = by_id.find(id);
      RunSeries s{id, side, run.plan.at(id).dump(), it == by_id.end() ? std::vector<double>{} : it->second};
      // Piece by piece: GCC 12 warns (-Wrestrict, a false positive) on "literal" + std::string&&.
      content.update(id);
      content.update(side == 0 ? " 0:" : " 1:");
      for (double v : s.samples) {
        content.update(" ");
        content.update(exact(v));
      }
      content.update("\n");
      entry.series.push_back(std::move(s));
    }
  }
  entry.content_sha256 = content.finish_hex();
  // An imported file is never resumed: its samples are part of what it is. Two files of one
  // machine, start time and benchmarks (a baseline and a candidate build imported from one day's
  // results) are two runs.
  if (entry.source != "isobench") uid.update("content " + entry.content_sha256 + "\n");
  entry.uid = uid.finish_hex();
  return entry;
}

}  // namespace isobench::orchestrator::history
