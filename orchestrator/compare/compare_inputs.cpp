#include "orchestrator/compare/compare_inputs.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>
#include <string_view>
#include <system_error>

#include "orchestrator/json_errors.hpp"
#include "orchestrator/printable.hpp"

namespace isobench::orchestrator {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int plan_schema_version = 1;

std::string where(const std::string& file, std::size_t line) { return file + ":" + std::to_string(line); }

// A time in seconds: finite and positive.
double checked_time(double value, const std::string& text, const std::string& location) {
  if (!std::isfinite(value)) throw UsageError(location + ": not a finite number: \"" + text + "\"");
  if (value <= 0) throw UsageError(location + ": a time must be positive: \"" + text + "\"");
  return value;
}

std::string read_file(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw UsageError(path + ": is a directory, not a sample file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot open: " + std::error_code(errno, std::generic_category()).message());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(first, last - first + 1));
}

// plan.json: the instances by id, in plan order, and whether the run has two sides.
Run parse_run_plan(const std::string& dir, const std::string& plan_path, const std::string& plan_text) {
  Run run;
  run.dir = dir;
  json plan;
  try {
    plan = json::parse(plan_text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number that overflows
    throw UsageError(plan_path + ": invalid JSON: " + json_error_text(e));
  }
  if (!plan.is_object() || !plan.contains("schema_version") || !plan["schema_version"].is_number_integer())
    throw UsageError(plan_path + ": no integer schema_version");
  const int version = plan["schema_version"].get<int>();
  if (version > plan_schema_version)
    throw UsageError(plan_path + ": schema_version " + std::to_string(version) +
                     " is newer than this orchestrate reads (" + std::to_string(plan_schema_version) + ")");
  if (!plan.contains("instances") || !plan["instances"].is_array())
    throw UsageError(plan_path + ": no \"instances\" array");
  for (const json& instance : plan["instances"]) {
    if (!instance.is_object() || !instance.contains("id") || !instance["id"].is_string())
      throw UsageError(plan_path + ": an instance without a string \"id\"");
    const std::string id = instance["id"].get<std::string>();
    if (run.plan.count(id)) throw UsageError(plan_path + ": instance \"" + id + "\" appears twice");
    run.plan[id] = instance;
    run.order.push_back(id);
  }

  if (plan.contains("schedule") && plan["schedule"].is_object()) {
    const json& schedule = plan["schedule"];
    if (schedule.contains("sides") && !schedule["sides"].is_number_integer())
      throw UsageError(plan_path + ": schedule.sides is not an integer: " + schedule["sides"].dump());
    run.ab = schedule.value("sides", 1) == 2;
  }
  if (plan.contains("sequential")) {
    if (!plan["sequential"].is_object()) throw UsageError(plan_path + ": \"sequential\" is not an object");
    run.sequential = plan["sequential"];
  }
  return run;
}

// The GPU fields of a sample line, all optional: "gpu" (the device ordinal the worker was given:
// checked, not kept, as it means nothing on another machine) and "gpu_uuid" with "gpu_name",
// present together.
std::optional<GpuIdentity> sample_gpu(const json& record, const std::string& location) {
  if (record.contains("gpu") && !record["gpu"].is_number_integer())
    throw UsageError(location + ": \"gpu\" is not an integer: " + record["gpu"].dump());
  const auto text = [&](const std::string& field) -> std::optional<std::string> {
    if (!record.contains(field)) return std::nullopt;
    const json& value = record[field];
    if (!value.is_string() || value.get_ref<const std::string&>().empty())
      throw UsageError(location + ": \"" + field + "\" is not a non-empty string: " + value.dump());
    return value.get<std::string>();
  };
  const auto uuid = text("gpu_uuid"), name = text("gpu_name");
  if (uuid.has_value() != name.has_value())
    throw UsageError(location + (uuid ? ": \"gpu_uuid\" without \"gpu_name\"" : ": \"gpu_name\" without \"gpu_uuid\""));
  if (!uuid) return std::nullopt;
  return GpuIdentity{*uuid, *name};
}

// samples.jsonl: the values of every instance of the plan, and the GPUs they name, by side.
void parse_run_samples(Run& run, const std::string& samples_path, const std::string& text, std::ostream& err) {
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  std::size_t last_content_line = 0;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (!trim(lines[i]).empty()) last_content_line = i;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string location = where(samples_path, i + 1);
    const std::string line = trim(lines[i]);
    if (line.empty()) continue;
    json record = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (record.is_discarded()) {
      // A run killed while appending leaves a torn last line (an object cut short is never
      // valid JSON): drop it and say so. Anywhere else invalid JSON is bad input.
      if (i == last_content_line) {
        err << "compare: warning: " << location << ": torn last line dropped\n";
        continue;
      }
      throw UsageError(location + ": invalid JSON");
    }
    // Other events share the journal (worker failures); only samples are compared.
    if (record.is_object() && record.contains("type") && !record["type"].is_string())
      throw UsageError(location + ": \"type\" is not a string");
    if (record.is_object() && record.value("type", std::string("sample")) != "sample") continue;
    if (!record.is_object() || !record.contains("instance") || !record["instance"].is_string())
      throw UsageError(location + ": no string \"instance\"");
    if (!record.contains("value") || !record["value"].is_number())
      throw UsageError(location + ": \"value\" is not a number");
    const std::string id = record["instance"].get<std::string>();
    if (!run.plan.count(id)) throw UsageError(location + ": instance \"" + id + "\" is not in plan.json");
    const json side = record.contains("side") ? record["side"] : json(0);
    if (!side.is_number_integer() || side.get<int>() < 0 || side.get<int>() > (run.ab ? 1 : 0))
      throw UsageError(location + ": \"side\" must be 0" + std::string(run.ab ? " or 1" : "") + ", got " + side.dump());
    const bool candidate = side.get<int>() == 1;
    auto& into = candidate ? run.candidate_samples : run.samples;
    auto& index = (candidate ? run.candidate_sample_index : run.sample_index)[id];
    if (record.contains("sample") && !(record["sample"].is_number_unsigned() || (record["sample"].is_number_integer() &&
                                                                                 record["sample"].get<long long>() >= 0)))
      throw UsageError(location + ": \"sample\" is not a sample index: " + record["sample"].dump());
    index.push_back(record.contains("sample") ? record["sample"].get<std::uint32_t>()
                                              : static_cast<std::uint32_t>(into[id].size()));
    into[id].push_back(checked_time(record["value"].get<double>(), record["value"].dump(), location));
    if (const auto gpu = sample_gpu(record, location)) (candidate ? run.candidate_gpus : run.gpus)[id].insert(*gpu);
  }
  // A journal without one sample (emptied, or a run stopped before its first) compares nothing.
  if (run.samples.empty() && run.candidate_samples.empty()) throw UsageError(samples_path + ": no samples");
}

}  // namespace

std::vector<double> read_sample_file(const std::string& path) { return parse_sample_text(path, read_file(path)); }

std::vector<double> parse_sample_text(const std::string& path, const std::string& text) {
  std::vector<double> values;
  const std::string body = trim(text);
  if (!body.empty() && body.front() == '[') {
    json array;
    try {
      array = json::parse(body);
    } catch (const json::exception& e) {  // parse_error, and out_of_range for a number that overflows
      throw UsageError(path + ": invalid JSON array: " + json_error_text(e));
    }
    for (std::size_t i = 0; i < array.size(); ++i) {
      const std::string location = path + ": element " + std::to_string(i + 1);
      if (!array[i].is_number()) throw UsageError(location + ": not a number: " + array[i].dump());
      values.push_back(checked_time(array[i].get<double>(), array[i].dump(), location));
    }
  } else {
    std::istringstream lines(text);
    std::string line;
    for (std::size_t number = 1; std::getline(lines, line); ++number) {
      const std::string token = trim(std::string_view(line).substr(0, line.find('#')));
      if (token.empty()) continue;
      double value = 0;
      const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
      // The token is quoted as printable text: it may hold any bytes, a NUL would end the message.
      if (ec == std::errc::result_out_of_range)
        throw UsageError(where(path, number) + ": out of range: \"" + printable(token) + "\"");
      if (ec != std::errc() || end != token.data() + token.size())
        throw UsageError(where(path, number) + ": not a number: \"" + printable(token) + "\"");
      values.push_back(checked_time(value, token, where(path, number)));
    }
  }
  if (values.size() < 2)
    throw UsageError(path + ": needs at least 2 values, found " + std::to_string(values.size()));
  return values;
}

Run read_run(const std::string& dir, std::ostream& err) {
  std::error_code ec;
  if (dir.empty()) throw UsageError("an empty path is not a run directory");
  if (!fs::is_directory(dir, ec)) throw UsageError(dir + ": not a readable run directory");
  const std::string plan_path = (fs::path(dir) / "plan.json").string();
  Run run = parse_run_plan(dir, plan_path, read_file(plan_path));
  const std::string samples_path = (fs::path(dir) / "samples.jsonl").string();
  parse_run_samples(run, samples_path, read_file(samples_path), err);
  return run;
}

KernelRecords read_kernel_records(const std::string& dir, std::ostream& err) {
  const std::string path = (fs::path(dir) / "kernels.json").string();
  std::error_code ec;
  if (!fs::exists(path, ec)) return {};
  try {
    return parse_kernel_records(path, read_file(path), err);
  } catch (const UsageError& e) {
    err << "compare: warning: " << e.what() << "; kernel records ignored\n";
    return {};
  }
}

KernelRecords parse_kernel_records(const std::string& path, const std::string& text, std::ostream& err) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto ignored = [&](const std::string& problem) {
    err << "compare: warning: " << path << ": " << problem << "; kernel records ignored\n";
    return KernelRecords{};
  };
  if (!j.is_object() || !j.contains("instances") || !j["instances"].is_object())
    return ignored("not a JSON object with \"instances\"");
  if (!j.contains("schema_version") || !j["schema_version"].is_number_integer())
    return ignored("no integer schema_version");
  if (j["schema_version"].get<long long>() > plan_schema_version)  // one schema version per run directory
    return ignored("schema_version " + j["schema_version"].dump() + " is newer than this orchestrate reads (" +
                   std::to_string(plan_schema_version) + ")");
  KernelRecords records;
  records.present = true;
  for (const auto& [id, sides] : j["instances"].items()) {
    if (!sides.is_array()) return ignored("instance \"" + id + "\": not an array of sides");
    auto& into = records.sides[id];
    for (const auto& side : sides) into.push_back(side.is_object() ? side : json::object());
  }
  return records;
}

Run parse_run(const std::string& dir, const std::string& plan_text, const std::string& samples_text,
              std::ostream& err) {
  Run run = parse_run_plan(dir, (fs::path(dir) / "plan.json").string(), plan_text);
  parse_run_samples(run, (fs::path(dir) / "samples.jsonl").string(), samples_text, err);
  return run;
}

std::string gpus_text(const GpuSet& gpus) {
  std::string text;
  for (const auto& gpu : gpus) text += (text.empty() ? "" : ", ") + gpu.uuid + " (" + gpu.name + ")";
  return text;
}

}  // namespace isobench::orchestrator
