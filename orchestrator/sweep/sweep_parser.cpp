// A sweep file's top level: its name, its settings (and the command line's overrides of them, in
// the settings table's order) and its list of benchmarks, each expanded by expansion.cpp.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <unordered_set>

#include <yaml-cpp/depthguard.h>

#include "orchestrator/sweep/sweep_parser.hpp"

namespace isobench::orchestrator::sweep_detail {

SweepParser::SweepParser(std::string file, const SettingsOverrides& overrides,
            const std::vector<kernels::KernelSpec>& catalog, const SweepLoadOptions& options)
    : file_(std::move(file)), catalog_(catalog), options_(options) {
  // In the table's order, so that of several bad options the first documented is reported.
  for (const auto& spec : ipc::setting_specs())
    if (overrides.has(std::string(spec.name)))
      overrides_.emplace_back(&spec, overrides.values().at(std::string(spec.name)));
  for (const auto& spec : catalog_) kernels_by_name_.emplace(spec.name, &spec);
}

Sweep SweepParser::parse(const std::string& text) {
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
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& e) {  // its own message is "bad file"
    fail(e.mark, "", "nested at least " + std::to_string(e.depth()) + " levels deep, deeper than the YAML reader goes");
  } catch (const YAML::Exception& e) {  // ParserException and the rarer load errors
    fail(e.mark, "", e.msg);
  }
  // YAML::Load would read the first document and drop the others unread.
  if (documents.size() > 1)
    fail(documents[1].Mark(), "",
         "a sweep file holds one YAML document; this one holds " + std::to_string(documents.size()));
  const YAML::Node root = documents.empty() ? YAML::Node() : documents.front();
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
  name_ = sweep.name;

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
  sweep.notes = notes_;
  return sweep;
}

void SweepParser::fail(const YAML::Mark& mark, const std::string& path,
                       const std::string& problem) const {
  std::string where = file_;
  if (options_.generated) throw SweepError(where + ": " + problem);  // no place in a text the user never wrote
  if (!mark.is_null())
    where += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  throw SweepError(where + ": " + (path.empty() ? "" : path + ": ") + problem);
}

// The (key, value) pairs of a mapping; keys must be scalars and unique.
std::vector<std::pair<YAML::Node, YAML::Node>> SweepParser::entries(const YAML::Node& map,
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

std::string SweepParser::parse_name(const YAML::Node& node) const {
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

void SweepParser::parse_settings(const YAML::Node& node, const std::string& path, RunSettings& run,
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

}  // namespace isobench::orchestrator::sweep_detail
