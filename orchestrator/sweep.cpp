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

#include <yaml-cpp/yaml.h>

#include "kernels/catalog.hpp"
#include "kernels/plugin_loader.hpp"

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

// ---- Encoding ---------------------------------------------------------------------------------

// Offset of the first byte of `text` that is not well-formed UTF-8 (RFC 3629: no overlong forms,
// no surrogates, nothing past U+10FFFF) or is a control character YAML does not allow (all of
// C0 but tab, line feed and carriage return, and DEL: YAML 1.2, 5.1), or npos. yaml-cpp passes
// such bytes through into scalars (and turns a NUL into bytes that are not UTF-8), and
// nlohmann::json throws type_error 316 when a message prints them: a sweep is checked before it
// is parsed, so every problem stays a SweepError with a location.
std::size_t first_invalid_utf8(const std::string& text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) return i;
    if (c < 0x80) len = 1;
    else if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c == 0xE0) len = 3, lo = 0xA0;
    else if (c == 0xED) len = 3, hi = 0x9F;
    else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) len = 3;
    else if (c == 0xF0) len = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) len = 4;
    else if (c == 0xF4) len = 4, hi = 0x8F;
    else return i;
    if (len > 1) {
      if (i + len > n || p[i + 1] < lo || p[i + 1] > hi) return i;
      for (std::size_t k = 2; k < len; ++k)
        if (p[i + k] < 0x80 || p[i + k] > 0xBF) return i;
    }
    i += len;
  }
  return std::string::npos;
}

// ---- Names and suggestions -------------------------------------------------------------------

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// " (did you mean X?)" when one known name is close to `given`, else " (known: a, b, c)".
std::string suggestion(const std::string& given, const std::vector<std::string>& known) {
  const std::string* best = nullptr;
  std::size_t best_distance = SIZE_MAX;
  for (const auto& name : known) {
    const std::size_t d = edit_distance(given, name);
    if (d < best_distance) best = &name, best_distance = d;
  }
  if (best && best_distance <= std::max<std::size_t>(2, best->size() / 3))
    return " (did you mean " + *best + "?)";
  std::string list;
  for (const auto& name : known) list += (list.empty() ? "" : ", ") + name;
  return " (known: " + list + ")";
}

// ---- Scalars ---------------------------------------------------------------------------------

// What a YAML scalar stands for: a quoted scalar is a string; a plain one is a boolean, an
// integer, a number or else a string.
json scalar_value(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (!text.empty() && text[0] == '+') ++first;
  std::int64_t signed_value = 0;
  if (auto [end, ec] = std::from_chars(first, last, signed_value); ec == std::errc() && end == last)
    return signed_value;
  std::uint64_t unsigned_value = 0;
  if (auto [end, ec] = std::from_chars(first, last, unsigned_value);
      ec == std::errc() && end == last)
    return unsigned_value;
  double number = 0;
  if (auto [end, ec] = std::from_chars(first, last, number); ec == std::errc() && end == last)
    return number;
  return text;
}

// A number written as 1.6e7 or 50.0 on an integer-valued axis means the integer: ids stay the
// same however the value was spelled.
json normalize_number(const json& value) {
  if (value.is_number_float()) {
    const double v = value.get<double>();
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e18)
      return static_cast<std::int64_t>(v);
  }
  return value;
}

json axis_value(const kernels::AxisSpec& axis, const YAML::Node& node) {
  if (axis.type == kernels::AxisType::string) return node.Scalar();
  json value = scalar_value(node);
  if (axis.type == kernels::AxisType::integer || axis.type == kernels::AxisType::number)
    value = normalize_number(value);
  return value;
}

// ---- The parser ------------------------------------------------------------------------------

class SweepParser {
 public:
  SweepParser(std::string file, const SettingsOverrides& overrides,
              const std::vector<kernels::KernelSpec>& catalog)
      : file_(std::move(file)), catalog_(catalog) {
    // In the table's order, so that of several bad options the first documented is reported.
    for (const auto& spec : ipc::setting_specs())
      if (overrides.has(std::string(spec.name)))
        overrides_.emplace_back(&spec, overrides.values().at(std::string(spec.name)));
    for (const auto& spec : catalog_) kernels_by_name_.emplace(spec.name, &spec);
  }

  Sweep parse(const std::string& text) {
    // yaml-cpp would also guess UTF-16 or UTF-32 from zero bytes; a sweep file is UTF-8.
    if (const std::size_t bad = first_invalid_utf8(text); bad != std::string::npos) {
      YAML::Mark mark;
      mark.pos = static_cast<int>(bad);
      const std::size_t line_start = text.rfind('\n', bad == 0 ? 0 : bad - 1);
      mark.line = static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n'));
      mark.column = static_cast<int>(line_start == std::string::npos || bad == 0 ? bad : bad - line_start - 1);
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
      fail(mark, "", std::string("byte ") + byte + " is not UTF-8 text YAML allows: a sweep file is UTF-8 without "
                     "control characters");
    }
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {  // ParserException and the rarer load errors
      fail(e.mark, "", e.msg);
    }
    if (!root.IsMap())
      fail(root.Mark(), "", "expected a mapping with \"benchmarks:\" (and optional name, settings)");

    Sweep sweep;
    sweep.name = std::filesystem::path(file_).stem().string();
    std::optional<YAML::Node> benchmarks;
    for (const auto& [key, value] : entries(root, "")) {
      const std::string& k = key.Scalar();
      if (k == "name") {
        sweep.name = parse_name(value);
      } else if (k == "settings") {
        parse_settings(value, "settings", sweep.settings, sweep.settings.measure, false);
      } else if (k == "benchmarks") {
        benchmarks = value;
      } else {
        fail(key.Mark(), k, "unknown key" + suggestion(k, {"name", "settings", "benchmarks"}));
      }
    }
    if (!benchmarks) fail(root.Mark(), "benchmarks", "missing: a sweep needs a list of benchmarks");

    file_measure_ = sweep.settings.measure;
    for (const auto& [spec, value] : overrides_)
      if (auto problem = ipc::apply_setting(*spec, value, sweep.settings, sweep.settings.measure); !problem.empty())
        throw SweepError("command line: " + spec->flag() + ": " + problem);
    ipc::finalize(sweep.settings.measure);

    if (!benchmarks->IsSequence())
      fail(benchmarks->Mark(), "benchmarks", "expected a list of benchmarks");
    if (benchmarks->size() == 0)
      fail(benchmarks->Mark(), "benchmarks", "empty list: the sweep would measure nothing");
    for (std::size_t i = 0; i < benchmarks->size(); ++i)
      expand_benchmark((*benchmarks)[i], i, sweep.instances);
    sweep.plugins = plugins_;
    return sweep;
  }

 private:
  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& path,
                         const std::string& problem) const {
    std::string where = file_;
    if (!mark.is_null())
      where += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
    throw SweepError(where + ": " + (path.empty() ? "" : path + ": ") + problem);
  }

  // The (key, value) pairs of a mapping; keys must be scalars and unique.
  std::vector<std::pair<YAML::Node, YAML::Node>> entries(const YAML::Node& map,
                                                         const std::string& path) const {
    std::vector<std::pair<YAML::Node, YAML::Node>> out;
    std::unordered_set<std::string> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node key = it->first;
      const std::string key_path = path.empty() ? "" : path + ".";
      if (!key.IsScalar()) fail(key.Mark(), path, "keys must be names");
      if (!seen.insert(key.Scalar()).second)
        fail(key.Mark(), key_path + key.Scalar(), "given twice");
      out.emplace_back(key, it->second);
    }
    return out;
  }

  std::string parse_name(const YAML::Node& node) const {
    if (!node.IsScalar() || node.Scalar().empty())
      fail(node.Mark(), "name", "expected a name");
    const std::string& name = node.Scalar();
    if (name.front() == '.')
      fail(node.Mark(), "name", "may not start with '.', got \"" + name + "\"");
    for (char c : name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
        fail(node.Mark(), "name",
             "may hold only letters, digits, '_', '-' and '.', got \"" + name + "\"");
    return name;
  }

  void parse_settings(const YAML::Node& node, const std::string& path, RunSettings& run,
                      MeasureSettings& measure, bool measure_only) const {
    if (node.IsNull()) return;
    if (!node.IsMap()) fail(node.Mark(), path, "expected a mapping of settings");
    for (const auto& [key, value] : entries(node, path)) {
      const std::string& name = key.Scalar();
      const std::string field = path + "." + name;
      const ipc::SettingSpec* spec = ipc::find_setting(name);
      if (!spec)
        fail(key.Mark(), field,
             "unknown setting" +
                 suggestion(name, ipc::setting_names(measure_only ? std::optional(ipc::SettingScope::measure)
                                                                  : std::nullopt)));
      if (measure_only && spec->scope == ipc::SettingScope::run)
        fail(key.Mark(), field,
             "a run setting: it can be set in the top-level settings or on the command line, "
             "not per benchmark");
      if (!value.IsScalar()) fail(value.Mark(), field, "expected a single value");
      if (auto problem = ipc::apply_setting(*spec, scalar_value(value), run, measure); !problem.empty())
        fail(value.Mark(), field, problem);
    }
  }

  const kernels::KernelSpec& parse_kernel(const YAML::Node& node, const std::string& path) const {
    if (!node.IsScalar()) fail(node.Mark(), path, "expected a kernel name");
    auto it = kernels_by_name_.find(node.Scalar());
    if (it != kernels_by_name_.end()) return *it->second;
    std::vector<std::string> names;
    for (const auto& spec : catalog_) names.push_back(spec.name);
    fail(node.Mark(), path, "unknown kernel \"" + node.Scalar() + "\"" + suggestion(node.Scalar(), names));
  }

  // The sweep file's folder, absolute: plugin paths and commands are relative to it.
  std::string folder() const {
    const auto parent = std::filesystem::path(file_).parent_path();
    return (parent.empty() ? std::filesystem::current_path() : std::filesystem::absolute(parent))
        .lexically_normal()
        .string();
  }

  std::string parse_plugin_path(const YAML::Node& node, const std::string& path) {
    if (!node.IsScalar() || node.Scalar().empty()) fail(node.Mark(), path, "expected the path of a shared library");
    std::string absolute = (std::filesystem::path(folder()) / node.Scalar()).lexically_normal().string();
    try {
      kernels::load_plugin(absolute);
    } catch (const kernels::PluginError& e) {
      fail(node.Mark(), path, e.what());
    }
    if (std::find(plugins_.begin(), plugins_.end(), absolute) == plugins_.end()) plugins_.push_back(absolute);
    return absolute;
  }

  const kernels::KernelSpec& parse_plugin_kernel(const YAML::Node& node, const std::string& path,
                                                 const std::string& plugin) const {
    if (!node.IsScalar()) fail(node.Mark(), path, "expected a kernel name");
    const auto& loaded = kernels::load_plugin(plugin);
    if (const auto* spec = loaded.find(node.Scalar())) return *spec;
    std::vector<std::string> names;
    for (const auto& spec : loaded.specs()) names.push_back(spec.name);
    fail(node.Mark(), path,
         "plugin " + std::filesystem::path(plugin).filename().string() + " has no kernel \"" + node.Scalar() +
             "\"" + suggestion(node.Scalar(), names));
  }

  // The program and its arguments. A program named with a '/' is relative to the sweep's folder;
  // one without is looked up in PATH, now, so a typo stops the run before it starts.
  std::vector<std::string> parse_command(const YAML::Node& node, const std::string& path) const {
    if (!node.IsSequence() || node.size() == 0)
      fail(node.Mark(), path, "expected a list: the program and its arguments, e.g. [python3, bench.py]");
    std::vector<std::string> argv;
    for (std::size_t i = 0; i < node.size(); ++i) {
      if (!node[i].IsScalar()) fail(node[i].Mark(), path + "[" + std::to_string(i) + "]", "expected a string");
      argv.push_back(node[i].Scalar());
    }
    namespace fs = std::filesystem;
    const std::string program_path = path + "[0]";
    if (argv[0].find('/') != std::string::npos) {
      argv[0] = (fs::path(folder()) / argv[0]).lexically_normal().string();
      std::error_code ec;
      if (!fs::is_regular_file(argv[0], ec)) fail(node[0].Mark(), program_path, argv[0] + ": no such file");
    } else {
      bool found = false;
      const char* env_path = std::getenv("PATH");
      std::stringstream dirs(env_path ? env_path : "");
      for (std::string dir; !found && std::getline(dirs, dir, ':');) {
        std::error_code ec;
        found = !dir.empty() && fs::is_regular_file(fs::path(dir) / argv[0], ec);
      }
      if (!found) fail(node[0].Mark(), program_path, "program \"" + argv[0] + "\" is not in PATH");
    }
    return argv;
  }

  static bool plain_name(const std::string& name, bool allow_dot_dash) {
    if (name.empty()) return false;
    for (unsigned char c : name)
      if (!std::isalnum(c) && c != '_' && !(allow_dot_dash && (c == '.' || c == '-'))) return false;
    return true;
  }

  // A command's axes are free-form: each axis takes the type its values have in the file
  // (integers and numbers together make a number axis), without bounds or defaults.
  const kernels::KernelSpec& command_spec(const YAML::Node& node, const std::optional<YAML::Node>& name_node,
                                          const std::optional<YAML::Node>& axes_node,
                                          const std::optional<YAML::Node>& cases_node, const std::string& path) {
    if (!name_node) fail(node.Mark(), path + ".name", "missing: a command benchmark needs a name for its ids");
    if (!name_node->IsScalar() || !plain_name(name_node->Scalar(), true))
      fail(name_node->Mark(), path + ".name", "expected a name of letters, digits, '_', '.' and '-'");
    kernels::KernelSpec spec;
    spec.name = name_node->Scalar();
    if (kernels::find_kernel(spec.name))
      fail(name_node->Mark(), path + ".name", "\"" + spec.name + "\" is a built-in kernel's name");
    spec.family = "command";
    std::unordered_set<std::string> typed;  // axes whose type a value has set
    auto infer = [&](const YAML::Node& key, const YAML::Node& value, const std::string& field) {
      if (!plain_name(key.Scalar(), false))
        fail(key.Mark(), field, "a command's axis name is letters, digits and '_' (it names an environment variable)");
      auto found = std::find_if(spec.axes.begin(), spec.axes.end(),
                                [&](const kernels::AxisSpec& a) { return a.name == key.Scalar(); });
      kernels::AxisSpec* axis = found != spec.axes.end() ? &*found : nullptr;
      if (!axis) {
        axis = &spec.axes.emplace_back();
        axis->name = key.Scalar();
        axis->min = std::numeric_limits<double>::lowest();
        axis->max = std::numeric_limits<double>::max();
      }
      std::vector<YAML::Node> items;
      if (value.IsSequence())
        for (std::size_t j = 0; j < value.size(); ++j) items.push_back(value[j]);
      else
        items.push_back(value);
      for (const auto& item : items) {
        if (!item.IsScalar()) continue;  // reported by the axis parser
        const json v = scalar_value(item);
        const kernels::AxisType type = v.is_boolean()          ? kernels::AxisType::boolean
                                       : v.is_number_integer() ? kernels::AxisType::integer
                                       : v.is_number()         ? kernels::AxisType::number
                                                               : kernels::AxisType::string;
        const bool untyped = typed.insert(axis->name).second;
        const bool numeric = type == kernels::AxisType::integer || type == kernels::AxisType::number;
        const bool axis_numeric = axis->type == kernels::AxisType::integer || axis->type == kernels::AxisType::number;
        if (untyped) {
          axis->type = type;
        } else if (numeric && axis_numeric) {
          if (type != axis->type) axis->type = kernels::AxisType::number;
        } else if (type != axis->type) {
          fail(item.Mark(), field,
               "expected " + kernels::to_string(axis->type) + " values like the axis's others, got " + v.dump());
        }
      }
    };
    if (axes_node && axes_node->IsMap())
      for (const auto& [key, value] : entries(*axes_node, path + ".axes"))
        infer(key, value, path + ".axes." + key.Scalar());
    if (cases_node && cases_node->IsSequence())
      for (std::size_t c = 0; c < cases_node->size(); ++c)
        if ((*cases_node)[c].IsMap())
          for (const auto& [key, value] : entries((*cases_node)[c], path + ".cases"))
            infer(key, value, path + ".cases[" + std::to_string(c) + "]." + key.Scalar());
    command_specs_.push_back(std::move(spec));
    return command_specs_.back();
  }

  const kernels::AxisSpec& parse_axis_name(const kernels::KernelSpec& spec, const YAML::Node& key,
                                           const std::string& path) const {
    if (const auto* axis = spec.find_axis(key.Scalar())) return *axis;
    std::vector<std::string> names;
    for (const auto& a : spec.axes) names.push_back(a.name);
    fail(key.Mark(), path,
         "unknown axis for kernel " + spec.name + suggestion(key.Scalar(), names));
  }

  json parse_axis_scalar(const kernels::AxisSpec& axis, const YAML::Node& node,
                         const std::string& path) const {
    if (!node.IsScalar()) fail(node.Mark(), path, "expected a value");
    json value = axis_value(axis, node);
    if (auto problem = kernels::check_value(axis, value); !problem.empty())
      fail(node.Mark(), path, problem);
    return value;
  }

  // A scalar or a list of distinct scalars.
  std::vector<json> parse_axis_values(const kernels::AxisSpec& axis, const YAML::Node& node,
                                      const std::string& path) const {
    if (node.IsScalar()) return {parse_axis_scalar(axis, node, path)};
    if (!node.IsSequence()) fail(node.Mark(), path, "expected a value or a list of values");
    if (node.size() == 0) fail(node.Mark(), path, "empty list: the product would be empty");
    std::vector<json> values;
    values.reserve(node.size());
    std::unordered_set<std::string> seen;  // dumped values: linear in long lists
    for (std::size_t j = 0; j < node.size(); ++j) {
      const YAML::Node item = node[j];
      const std::string item_path = path + "[" + std::to_string(j) + "]";
      json value = parse_axis_scalar(axis, item, item_path);
      if (!seen.insert(value.dump()).second)
        fail(item.Mark(), item_path, "value " + value.dump() + " is listed twice");
      values.push_back(std::move(value));
    }
    return values;
  }

  struct Combination {  // axis index in the spec -> value
    std::vector<std::pair<std::size_t, json>> values;
  };

  std::size_t axis_index(const kernels::KernelSpec& spec, const kernels::AxisSpec& axis) const {
    return static_cast<std::size_t>(&axis - spec.axes.data());
  }

  void expand_benchmark(const YAML::Node& node, std::size_t index,
                        std::vector<Instance>& instances) {
    const std::string path = "benchmarks[" + std::to_string(index) + "]";
    if (!node.IsMap()) fail(node.Mark(), path, "expected a mapping with a kernel and its axes");

    // Absent keys stay empty optionals (a default YAML::Node would count as a null value).
    std::optional<YAML::Node> kernel_node, axes_node, cases_node, exclude_node, settings_node;
    std::optional<YAML::Node> plugin_node, command_node, name_node;
    for (const auto& [key, value] : entries(node, path)) {
      const std::string& k = key.Scalar();
      if (k == "kernel") kernel_node = value;
      else if (k == "axes") axes_node = value;
      else if (k == "cases") cases_node = value;
      else if (k == "exclude") exclude_node = value;
      else if (k == "settings") settings_node = value;
      else if (k == "plugin") plugin_node = value;
      else if (k == "command") command_node = value;
      else if (k == "name") name_node = value;
      else
        fail(key.Mark(), path + "." + k,
             "unknown key" + suggestion(k, {"kernel", "plugin", "command", "name", "axes", "cases", "exclude",
                                            "settings"}));
    }
    std::string plugin_path;
    std::vector<std::string> command;
    const kernels::KernelSpec* spec_ptr = nullptr;
    if (command_node) {
      if (kernel_node || plugin_node)
        fail((kernel_node ? kernel_node : plugin_node)->Mark(), path,
             "a benchmark is a kernel or a command, not both");
      command = parse_command(*command_node, path + ".command");
      spec_ptr = &command_spec(node, name_node, axes_node, cases_node, path);
    } else {
      if (name_node) fail(name_node->Mark(), path + ".name", "only command benchmarks take a name");
      if (!kernel_node) fail(node.Mark(), path + ".kernel", "missing: which kernel to measure");
      if (plugin_node) {
        plugin_path = parse_plugin_path(*plugin_node, path + ".plugin");
        spec_ptr = &parse_plugin_kernel(*kernel_node, path + ".kernel", plugin_path);
      } else {
        spec_ptr = &parse_kernel(*kernel_node, path + ".kernel");
      }
    }
    const kernels::KernelSpec& spec = *spec_ptr;

    // Measurement settings: the file's, this benchmark's, then the command line's.
    RunSettings unused_run;
    MeasureSettings measure = file_measure_;
    if (settings_node)
      parse_settings(*settings_node, path + ".settings", unused_run, measure, true);
    for (const auto& [setting, value] : overrides_)
      if (setting->scope == ipc::SettingScope::measure) ipc::apply_setting(*setting, value, unused_run, measure);
    ipc::finalize(measure);
    if (command_node && measure.realloc) {
      // A command sample is a fresh program run already; there is no instance to set up again.
      // Point at this benchmark's own realloc when it has one, else at the command.
      std::optional<YAML::Node> own;
      if (settings_node && settings_node->IsMap())
        for (const auto& [key, value] : entries(*settings_node, path + ".settings"))
          if (key.Scalar() == "realloc") own = key;
      const bool from_command_line = std::any_of(overrides_.begin(), overrides_.end(),
                                                 [](const auto& o) { return o.first->name == "realloc"; });
      // No hint when the command line set it: --realloc was typed there, and a calibrate variant
      // names itself in front of this message.
      fail(own ? own->Mark() : command_node->Mark(), own ? path + ".settings.realloc" : path + ".command",
           std::string("realloc does not apply to a command benchmark (each sample is a fresh run of the "
                       "program)") +
               (from_command_line ? ""
                : own             ? "; remove it here"
                                  : "; set realloc: false in this benchmark's settings"));
    }

    // Axes: each a list of values, in file order; the first varies slowest.
    std::vector<std::size_t> axis_order;             // spec axis index per axes entry
    std::vector<std::vector<json>> axis_values;       // values per axes entry
    std::vector<bool> given(spec.axes.size(), false);
    if (axes_node && !axes_node->IsNull()) {
      if (!axes_node->IsMap())
        fail(axes_node->Mark(), path + ".axes", "expected a mapping of axis values");
      for (const auto& [key, value] : entries(*axes_node, path + ".axes")) {
        const std::string field = path + ".axes." + key.Scalar();
        const auto& axis = parse_axis_name(spec, key, field);
        axis_order.push_back(axis_index(spec, axis));
        axis_values.push_back(parse_axis_values(axis, value, field));
        given[axis_order.back()] = true;
      }
    }

    // Cases: whole combinations of further axes.
    std::vector<Combination> cases;
    if (cases_node) {
      const std::string cases_path = path + ".cases";
      if (!cases_node->IsSequence())
        fail(cases_node->Mark(), cases_path, "expected a list of mappings");
      if (cases_node->size() == 0)
        fail(cases_node->Mark(), cases_path, "empty list: the product would be empty");
      for (std::size_t c = 0; c < cases_node->size(); ++c) {
        const YAML::Node item = (*cases_node)[c];
        const std::string case_path = cases_path + "[" + std::to_string(c) + "]";
        if (!item.IsMap()) fail(item.Mark(), case_path, "expected a mapping of axis values");
        Combination combination;
        std::vector<bool> in_case(spec.axes.size(), false);
        for (const auto& [key, value] : entries(item, case_path)) {
          const std::string field = case_path + "." + key.Scalar();
          const auto& axis = parse_axis_name(spec, key, field);
          const std::size_t a = axis_index(spec, axis);
          if (given[a]) fail(key.Mark(), field, "also given in axes; give each axis in one place");
          combination.values.emplace_back(a, parse_axis_scalar(axis, value, field));
          in_case[a] = true;
        }
        for (std::size_t a = 0; a < spec.axes.size(); ++a)
          if (!given[a] && !in_case[a] && !spec.axes[a].default_value)
            fail(item.Mark(), case_path,
                 "axis \"" + spec.axes[a].name + "\" has no default; give it in this case or in axes");
        cases.push_back(std::move(combination));
      }
    } else {
      for (std::size_t a = 0; a < spec.axes.size(); ++a)
        if (!given[a] && !spec.axes[a].default_value)
          fail(node.Mark(), path + ".axes",
               "axis \"" + spec.axes[a].name + "\" has no default; give it in axes or in cases");
      cases.emplace_back();
    }

    // Exclusions: each a mapping of axis -> value or list of values, validated like the axes.
    struct Exclusion {
      std::vector<std::pair<std::string, std::vector<json>>> match;
    };
    std::vector<Exclusion> exclusions;
    if (exclude_node) {
      const std::string exclude_path = path + ".exclude";
      if (!exclude_node->IsSequence())
        fail(exclude_node->Mark(), exclude_path, "expected a list of mappings");
      for (std::size_t e = 0; e < exclude_node->size(); ++e) {
        const YAML::Node item = (*exclude_node)[e];
        const std::string item_path = exclude_path + "[" + std::to_string(e) + "]";
        if (!item.IsMap() || item.size() == 0)
          fail(item.Mark(), item_path, "expected a non-empty mapping of axis values");
        Exclusion exclusion;
        for (const auto& [key, value] : entries(item, item_path)) {
          const std::string field = item_path + "." + key.Scalar();
          const auto& axis = parse_axis_name(spec, key, field);
          exclusion.match.emplace_back(axis.name, parse_axis_values(axis, value, field));
        }
        exclusions.push_back(std::move(exclusion));
      }
    }

    // Defaults are spelled like written values (1.0 on a number axis is 1), so an id does not
    // depend on whether a value was written out or defaulted.
    std::vector<json> defaults(spec.axes.size());
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
      if (spec.axes[a].default_value) defaults[a] = normalize_number(*spec.axes[a].default_value);

    // The product axes x cases, with an odometer over the axes (last entry fastest).
    std::vector<std::size_t> odometer(axis_values.size(), 0);
    const std::size_t first_new = instances.size();
    std::size_t produced = 0;
    for (bool more = true; more;) {
      for (const auto& combination : cases) {
        std::vector<const json*> chosen(spec.axes.size(), nullptr);
        for (std::size_t e = 0; e < axis_order.size(); ++e)
          chosen[axis_order[e]] = &axis_values[e][odometer[e]];
        for (const auto& [a, value] : combination.values) chosen[a] = &value;
        kernels::Params params = json::object();
        for (std::size_t a = 0; a < spec.axes.size(); ++a)
          params[spec.axes[a].name] = chosen[a] ? *chosen[a] : defaults[a];
        ++produced;
        if (excluded(params, exclusions)) continue;

        Instance instance;
        instance.id = kernels::instance_id(spec, params);
        instance.kernel = spec.name;
        instance.family = spec.family;
        instance.backend = spec.backend;
        instance.measure = measure;
        instance.device_bytes =
            spec.device_bytes
                ? spec.device_bytes(params) * static_cast<std::uint64_t>(measure.rotate_buffers)
                : 0;
        instance.params = std::move(params);
        instance.benchmark_index = index;
        instance.plugin = plugin_path;
        instance.command = command;
        if (!command.empty()) {
          instance.family = "command";
          instance.command_dir = folder();
        }
        if (auto [it, inserted] = first_producer_.emplace(instance.id, index); !inserted) {
          if (it->second == index)
            fail(node.Mark(), path,
                 "instance " + instance.id + " is produced twice (two cases give the same values)");
          fail(node.Mark(), path,
               "instance " + instance.id + " is also produced by benchmarks[" +
                   std::to_string(it->second) + "]");
        }
        instances.push_back(std::move(instance));
      }
      more = false;
      for (std::size_t e = odometer.size(); e-- > 0;) {
        if (++odometer[e] < axis_values[e].size()) {
          more = true;
          break;
        }
        odometer[e] = 0;
      }
    }
    if (instances.size() == first_new)
      fail(exclude_node ? exclude_node->Mark() : node.Mark(), path + ".exclude",
           "excludes all " + std::to_string(produced) + " instances of this benchmark");
  }

  template <typename Exclusions>
  static bool excluded(const kernels::Params& params, const Exclusions& exclusions) {
    for (const auto& exclusion : exclusions) {
      bool all = true;
      for (const auto& [axis, values] : exclusion.match) {
        const json& actual = params.at(axis);
        if (std::find(values.begin(), values.end(), actual) == values.end()) {
          all = false;
          break;
        }
      }
      if (all) return true;
    }
    return false;
  }

  std::string file_;
  std::vector<std::pair<const ipc::SettingSpec*, json>> overrides_;  // checked once, in parse()
  const std::vector<kernels::KernelSpec>& catalog_;
  std::unordered_map<std::string, const kernels::KernelSpec*> kernels_by_name_;
  std::unordered_map<std::string, std::size_t> first_producer_;  // instance id -> benchmark
  MeasureSettings file_measure_;
  std::vector<std::string> plugins_;                     // absolute paths, first use first
  std::deque<kernels::KernelSpec> command_specs_;        // stable addresses for command benchmarks
};

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
                  const std::vector<kernels::KernelSpec>& catalog) {
  Sweep sweep;
  try {
    sweep = SweepParser(path_for_messages, overrides, catalog).parse(text);
  } catch (const nlohmann::json::exception& e) {
    // Text yaml-cpp let through that a JSON value cannot hold; the check above should catch it.
    throw SweepError(path_for_messages + ": " + e.what());
  }
  sweep.path = path_for_messages;
  sweep.source_text = text;
  return sweep;
}

Sweep parse_sweep(const std::string& text, const std::string& path_for_messages,
                  const SettingsOverrides& overrides) {
  return parse_sweep(text, path_for_messages, overrides, kernels::builtin_catalog());
}

Sweep load_sweep(const std::string& path, const SettingsOverrides& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SweepError(path + ": cannot open the sweep file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw SweepError(path + ": cannot read the sweep file");
  return parse_sweep(text.str(), path, overrides);
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
