#include "orchestrator/sweep.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <unordered_map>
#include <unordered_set>


#include "kernels/catalog.hpp"
#include "orchestrator/json_errors.hpp"
#include "orchestrator/sweep/sweep_parser.hpp"

namespace isobench::orchestrator {

using nlohmann::json;

void SettingsOverrides::set(const std::string& name, nlohmann::json value) {
  if (!ipc::find_setting(name)) throw std::invalid_argument("no setting named " + name);
  values_[name] = std::move(value);
}

void SettingsOverrides::set_text(const std::string& name, const std::string& text) {
  const ipc::SettingSpec* spec = ipc::find_setting(name);
  if (!spec) throw std::invalid_argument("no setting named " + name);
  values_[name] = ipc::setting_value_from_text(*spec, text);
}

SettingsOverrides SettingsOverrides::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("overrides: expected an object of settings");
  SettingsOverrides o;
  for (const auto& [name, value] : j.items()) {
    if (!ipc::find_setting(name)) throw std::runtime_error("overrides: unknown setting " + name);
    o.values_[name] = value;
  }
  return o;
}

namespace {

std::string format_bytes(std::uint64_t bytes) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  if (bytes >= (1ull << 30))
    os << static_cast<double>(bytes) / static_cast<double>(1ull << 30) << " GiB";
  else if (bytes >= (1ull << 20))
    os << static_cast<double>(bytes) / static_cast<double>(1ull << 20) << " MiB";
  else
    os << bytes << " bytes";
  return os.str();
}

}  // namespace

Sweep parse_sweep(const std::string& text, const std::string& path_for_messages,
                  const SettingsOverrides& overrides,
                  const std::vector<kernels::KernelSpec>& catalog, const SweepLoadOptions& options) {
  Sweep sweep;
  try {
    sweep = sweep_detail::SweepParser(path_for_messages, overrides, catalog, options).parse(text);
  } catch (const nlohmann::json::exception& e) {
    // Text yaml-cpp let through that a JSON value cannot hold; the check above should catch it.
    throw SweepError(path_for_messages + ": " + json_error_text(e));
  }
  sweep.path = path_for_messages;
  sweep.source_text = text;
  return sweep;
}

Sweep parse_sweep(const std::string& text, const std::string& path_for_messages,
                  const SettingsOverrides& overrides, const SweepLoadOptions& options) {
  return parse_sweep(text, path_for_messages, overrides, kernels::builtin_catalog(), options);
}

Sweep load_sweep(const std::string& path, const SettingsOverrides& overrides, const SweepLoadOptions& options) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw SweepError(path + ": a directory, not a sweep file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SweepError(path + ": cannot open the sweep file");
  // yaml-cpp reads a few MB a second on a busy core, so a huge file would hold the load for
  // minutes (docs/evidence.md#behind-the-code), and the largest sweep worth planning
  // (kMaxSweepInstances, written case by case) is a few MB of text.
  if (const auto size = std::filesystem::file_size(path, ec); !ec && size > kMaxSweepFileBytes)
    throw SweepError(path + ": " + std::to_string(size) + " bytes: a sweep file may hold at most " +
                     std::to_string(kMaxSweepFileBytes) + " (16 MiB)");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw SweepError(path + ": cannot read the sweep file");
  return parse_sweep(text.str(), path, overrides, options);
}

std::string check_memory(const Sweep& sweep, std::uint64_t budget_bytes, kernels::Backend backend) {
  const Instance* largest = nullptr;
  std::size_t over = 0;
  for (const auto& instance : sweep.instances) {
    if (instance.backend != backend || instance.device_bytes <= budget_bytes) continue;
    ++over;
    if (!largest || instance.device_bytes > largest->device_bytes) largest = &instance;
  }
  if (!largest) return {};
  std::string line = largest->id + " needs " + format_bytes(largest->device_bytes) + " of " +
                     kernels::to_string(backend) + " memory, more than the " +
                     format_bytes(budget_bytes) + " available";
  if (over > 1)
    line += " (" + std::to_string(over - 1) + " other instance" + (over > 2 ? "s" : "") +
            " also exceed it)";
  return line;
}

}  // namespace isobench::orchestrator
