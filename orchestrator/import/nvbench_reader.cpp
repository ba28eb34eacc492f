#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "orchestrator/import/tool_readers.hpp"

namespace isobench::orchestrator::import {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kReadsJsonMajor = 1;  // nvbench's json_printer file version 1.x

// A summary's named value: nvbench 0.x wrote numbers, 1.x writes numbers as strings.
double summary_number(const Fields& f, const json& summary, const std::string& name, const std::string& path) {
  const json& data = f.array(summary, "data", path + ".data");
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (!data[i].is_object() || data[i].value("name", "") != name) continue;
    const std::string at = path + ".data[" + std::to_string(i) + "].value";
    if (!data[i].contains("value")) f.fail(at, "missing");
    const json& v = data[i]["value"];
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
      std::size_t used = 0;
      try {
        const double d = std::stod(v.get<std::string>(), &used);
        if (used == v.get_ref<const std::string&>().size()) return d;
      } catch (const std::exception&) {
      }
    }
    f.fail(at, "not a number: " + v.dump());
  }
  f.fail(path + ".data", "no \"" + name + "\"");
}

std::string summary_text(const Fields& f, const json& summary, const std::string& name, const std::string& path) {
  const json& data = f.array(summary, "data", path + ".data");
  for (std::size_t i = 0; i < data.size(); ++i)
    if (data[i].is_object() && data[i].value("name", "") == name)
      return f.text(data[i], "value", path + ".data[" + std::to_string(i) + "].value");
  f.fail(path + ".data", "no \"" + name + "\"");
}

// The --jsonbin file of one state: `count` little-endian float32 sample times in seconds.
std::vector<double> sample_times(const Fields& f, const std::string& json_file, const std::string& name,
                                 double count, const std::string& path) {
  fs::path file = name;
  if (file.is_relative() && fs::exists(fs::path(json_file).parent_path() / file)) file = fs::path(json_file).parent_path() / file;
  std::ifstream in(file, std::ios::binary);
  if (!in) f.fail(path + ".data.filename", "cannot read the sample times file " + file.string());
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const std::string raw = bytes.str();
  if (raw.size() % 4 != 0 || static_cast<double>(raw.size() / 4) != count)
    f.fail(path + ".data.size", file.string() + " holds " + std::to_string(raw.size()) + " bytes, not " +
                                    std::to_string(static_cast<long long>(count)) + " float32 values");
  std::vector<double> values(raw.size() / 4);
  for (std::size_t k = 0; k < values.size(); ++k) {
    unsigned char b[4];
    std::memcpy(b, raw.data() + 4 * k, 4);
    const std::uint32_t word = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
    float v;
    std::memcpy(&v, &word, 4);
    if (!std::isfinite(v) || v <= 0) f.fail(path, file.string() + ": sample " + std::to_string(k + 1) + " is not a positive time");
    values[k] = v;
  }
  return values;
}

// nvbench writes no time: the file's modification time stands for the run's.
std::string modification_time(const std::string& file) {
  struct stat st {};
  const std::time_t seconds = ::stat(file.c_str(), &st) == 0 ? st.st_mtime : std::time(nullptr);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[40];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S.000Z", &utc);
  return buffer;
}

}  // namespace

ImportedRun read_nvbench(const std::string& file, const json& root) {
  const Fields f(file);
  ImportedRun run;
  run.tool = "nvbench";
  run.file = file;
  if (root.contains("meta")) {
    const json& meta = f.object(root, "meta", "meta");
    if (meta.contains("version") && meta["version"].contains("json")) {
      const double major = f.number(meta["version"]["json"], "major", "meta.version.json.major");
      if (major > kReadsJsonMajor)
        f.fail("meta.version.json.major", std::to_string(static_cast<int>(major)) + " is newer than this orchestrate reads (" +
                                              std::to_string(kReadsJsonMajor) + ")");
    }
  }
  run.started = modification_time(file);
  std::map<long long, std::string> device_names;
  json gpus = json::array();
  if (root.contains("devices")) {
    const json& devices = f.array(root, "devices", "devices");
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const std::string path = "devices[" + std::to_string(i) + "]";
      device_names[static_cast<long long>(f.number(devices[i], "id", path + ".id"))] = f.text(devices[i], "name", path + ".name");
      gpus.push_back({{"index", devices[i]["id"]}, {"name", devices[i]["name"]}});
    }
  }
  run.environment = {{"gpu", {{"gpus", gpus}}}};
  const json& benchmarks = f.array(root, "benchmarks", "benchmarks");
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const std::string bpath = "benchmarks[" + std::to_string(i) + "]";
    const json& b = benchmarks[i];
    const std::string name = f.text(b, "name", bpath + ".name");
    const bool several_devices = b.contains("devices") && b["devices"].is_array() && b["devices"].size() > 1;
    const json& states = f.array(b, "states", bpath + ".states");
    for (std::size_t j = 0; j < states.size(); ++j) {
      const std::string path = bpath + ".states[" + std::to_string(j) + "]";
      const json& st = states[j];
      if (st.value("is_skipped", false)) {
        run.notes.push_back(name + " " + st.value("name", "") + ": left out: nvbench skipped it: " +
                            st.value("skip_reason", std::string()));
        continue;
      }
      ImportedInstance inst;
      inst.name = name;
      std::string axes;
      const json& axis_values = f.array(st, "axis_values", path + ".axis_values");
      for (std::size_t a = 0; a < axis_values.size(); ++a) {
        const std::string apath = path + ".axis_values[" + std::to_string(a) + "]";
        const std::string axis = f.text(axis_values[a], "name", apath + ".name");
        if (!axis_values[a].contains("value")) f.fail(apath + ".value", "missing");
        const json& v = axis_values[a]["value"];
        const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
        inst.params[axis] = text;
        axes += (axes.empty() ? "" : ",") + axis + "=" + text;
      }
      if (several_devices) {
        const auto device = static_cast<long long>(f.number(st, "device", path + ".device"));
        inst.params["device"] = device;
        axes += (axes.empty() ? "" : ",") + std::string("device=") + std::to_string(device);
      }
      inst.id = name + "[" + axes + "]";
      const json& summaries = f.array(st, "summaries", path + ".summaries");
      const json *bin = nullptr, *cold = nullptr, *batch = nullptr;
      std::string bin_path, cold_path, batch_path;
      for (std::size_t s = 0; s < summaries.size(); ++s) {
        const std::string spath = path + ".summaries[" + std::to_string(s) + "]";
        const std::string tag = f.text(summaries[s], "tag", spath + ".tag");
        if (tag == "nv/json/bin:nv/cold/sample_times") bin = &summaries[s], bin_path = spath;
        if (tag == "nv/cold/time/gpu/mean") cold = &summaries[s], cold_path = spath;
        if (tag == "nv/batch/time/gpu/mean") batch = &summaries[s], batch_path = spath;
      }
      inst.iterations = 1;  // a cold sample is one isolated kernel execution
      if (bin) {
        inst.values = sample_times(f, file, summary_text(f, *bin, "filename", bin_path),
                                   summary_number(f, *bin, "size", bin_path), bin_path);
        inst.statistic = "cold GPU time of one execution (CUDA events), one value per sample";
      } else if (cold || batch) {
        const double mean = summary_number(f, cold ? *cold : *batch, "value", cold ? cold_path : batch_path);
        if (!std::isfinite(mean) || mean <= 0) f.fail(cold ? cold_path : batch_path, "the mean GPU time is not a positive time");
        inst.values = {mean};
        inst.summary_only = true;
        inst.iterations = 0;
        inst.statistic = cold ? "mean cold GPU time (summary only: no --jsonbin sample times)"
                              : "mean batch GPU time (summary only)";
      } else {
        f.fail(path + ".summaries", "no nv/cold/time/gpu/mean, nv/batch/time/gpu/mean or sample times file");
      }
      run.instances.push_back(std::move(inst));
    }
  }
  if (run.instances.empty()) f.fail("benchmarks", "no state with a time");
  return run;
}

}  // namespace isobench::orchestrator::import
