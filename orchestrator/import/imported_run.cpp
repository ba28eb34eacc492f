#include "orchestrator/import/imported_run.hpp"
#include "orchestrator/import/tool_readers.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <stdexcept>

#include "orchestrator/compare/compare_inputs.hpp"
#include "orchestrator/run_directory.hpp"
#include "orchestrator/sample_journal.hpp"

namespace isobench::orchestrator::import {

namespace fs = std::filesystem;
using nlohmann::json;

void Fields::fail(const std::string& path, const std::string& problem) const {
  throw UsageError(file_ + ": " + path + ": " + problem);
}

const json& Fields::member(const json& parent, const std::string& key, const std::string& path) const {
  if (!parent.is_object() || !parent.contains(key)) fail(path, "missing");
  return parent[key];
}

const json& Fields::object(const json& parent, const std::string& key, const std::string& path) const {
  const json& v = member(parent, key, path);
  if (!v.is_object()) fail(path, "not an object: " + v.dump().substr(0, 60));
  return v;
}

const json& Fields::array(const json& parent, const std::string& key, const std::string& path) const {
  const json& v = member(parent, key, path);
  if (!v.is_array()) fail(path, "not an array: " + v.dump().substr(0, 60));
  return v;
}

std::string Fields::text(const json& parent, const std::string& key, const std::string& path) const {
  const json& v = member(parent, key, path);
  if (!v.is_string() || v.get_ref<const std::string&>().empty()) fail(path, "not a non-empty string: " + v.dump().substr(0, 60));
  return v.get<std::string>();
}

double Fields::number(const json& parent, const std::string& key, const std::string& path) const {
  const json& v = member(parent, key, path);
  if (!v.is_number()) fail(path, "not a number: " + v.dump().substr(0, 60));
  return v.get<double>();
}

double Fields::seconds(const json& parent, const std::string& key, const std::string& path, double scale) const {
  const double v = number(parent, key, path) * scale;
  if (!std::isfinite(v) || v <= 0) fail(path, "a time must be finite and positive: " + parent[key].dump());
  return v;
}

std::string utc_iso(const std::string& text) {
  int year, month, day, hour, minute;
  double second;
  int used = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf%n", &year, &month, &day, &hour, &minute, &second, &used) < 6)
    return {};
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = static_cast<int>(second);
  double t = static_cast<double>(timegm(&tm)) + (second - std::floor(second));
  const std::string zone = text.substr(static_cast<std::size_t>(used));
  int zh = 0, zm = 0;
  if (!zone.empty() && zone != "Z") {
    if ((zone[0] != '+' && zone[0] != '-') || std::sscanf(zone.c_str() + 1, "%2d:%2d", &zh, &zm) != 2) return {};
    t -= (zone[0] == '-' ? -1 : 1) * (zh * 3600.0 + zm * 60.0);
  }
  const std::time_t whole = static_cast<std::time_t>(std::floor(t));
  std::tm utc{};
  gmtime_r(&whole, &utc);
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>((t - std::floor(t)) * 1000));
  return buffer;
}

std::string detect_tool(const json& root) {
  if (!root.is_object() || !root.contains("benchmarks") || !root["benchmarks"].is_array()) return {};
  if (root.contains("context")) return "google-benchmark";
  if (root.contains("machine_info") || root.contains("datetime")) return "pytest-benchmark";
  const json& b = root["benchmarks"];
  if (root.contains("devices") || (!b.empty() && b[0].is_object() && b[0].contains("states"))) return "nvbench";
  return {};
}

namespace {

double unix_time(const std::string& iso) {
  std::tm tm{};
  int ms = 0;
  std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
              &tm.tm_sec, &ms);
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm)) + ms / 1000.0;
}

}  // namespace

void write_imported_run(const ImportedRun& run, const std::string& out, const std::vector<std::string>& command_line) {
  std::unique_ptr<RunDirectory> dir;
  try {
    dir = std::make_unique<RunDirectory>(RunDirectory::create(out));
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  // plan.json: the fields compare's "measured alike" check reads (kernel, params, timer,
  // statistic) say what a value is; no inner count, as each tool chose its own per run and every
  // value is already per iteration.
  json instances = json::array();
  std::size_t total = 0;
  for (std::size_t i = 0; i < run.instances.size(); ++i) {
    const auto& inst = run.instances[i];
    instances.push_back({{"index", i}, {"id", inst.id}, {"kernel", inst.name}, {"family", run.tool},
                         {"backend", "imported"}, {"params", inst.params}, {"timer", run.tool},
                         {"statistic", inst.statistic}, {"imported_values", inst.summary_only ? "summary" : "samples"},
                         {"iterations", inst.iterations}});
    total += inst.values.size();
  }
  const json plan = {{"schema_version", kRunSchemaVersion},
                     {"instances", instances},
                     {"schedule", {{"isolation", "imported"}, {"sides", 1}}},
                     {"imported", {{"tool", run.tool}, {"file", fs::absolute(run.file).string()}}}};
  dir->write_json("plan.json", plan);
  json environment = run.environment;
  environment["schema_version"] = kRunSchemaVersion;
  environment["imported_from"] = {{"tool", run.tool}, {"file", fs::absolute(run.file).string()}};
  dir->write_json("environment.json", environment);
  SampleJournal journal(dir->file("samples.jsonl"));
  const double time = unix_time(run.started);
  for (std::size_t i = 0; i < run.instances.size(); ++i) {
    const auto& inst = run.instances[i];
    for (std::size_t k = 0; k < inst.values.size(); ++k) {
      SampleRecord r;
      r.instance = inst.id;
      r.instance_index = static_cast<std::uint32_t>(i);
      r.sample = r.round = static_cast<std::uint32_t>(k);
      r.values.value_s = inst.values[k];
      r.unix_time = time;
      if (inst.summary_only) r.values.flags = ipc::flag_summary;
      journal.append(r);
    }
  }
  dir->write_json("run.json", {{"schema_version", kRunSchemaVersion}, {"status", "complete"}, {"source", run.tool},
                               {"started", run.started}, {"finished", run.started}, {"command_line", command_line},
                               {"imported_from", fs::absolute(run.file).string()}, {"samples_expected", total},
                               {"samples_recorded", total}});
}

}  // namespace isobench::orchestrator::import
