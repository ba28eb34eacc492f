#include "orchestrator/calibration/variant.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace isobench::orchestrator::calibration {

namespace {

// The isolation measures a variant can set, in canonical order, with how variant_syntax() shows
// them. Their types and bounds are the settings table's (ipc/settings.hpp); every variant's
// settings also go through the sweep's validation before anything runs.
struct Measure {
  const char* name;
  const char* syntax;
  const ipc::SettingSpec& spec() const { return *ipc::find_setting(name); }
};

const std::vector<Measure>& measures() {
  static const std::vector<Measure> all = {
      {"cold_cache", "cold_cache"}, {"rotate_buffers", "rotate_buffers=N"}, {"idle_gap_ms", "idle_gap_ms=MS"},
      {"realloc", "realloc"}};
  return all;
}

// The position of `name` in measures(); measures().size() when unknown.
std::size_t measure_index(const std::string& name) {
  const auto& all = measures();
  return static_cast<std::size_t>(
      std::find_if(all.begin(), all.end(), [&](const Measure& m) { return name == m.name; }) - all.begin());
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The value of `name=value` for `m`, checked against the setting's bounds; `has_value` false for
// a bare name.
double parse_value(const Measure& m, bool has_value, const std::string& value) {
  const std::string name = m.name;
  const ipc::SettingSpec& spec = m.spec();
  switch (spec.type) {
    case ipc::SettingType::boolean:
      if (!has_value || value == "true") return 1;
      if (value == "false") return 0;
      throw std::invalid_argument(name + " takes true or false, or no value (true), got '" + value + "'");
    case ipc::SettingType::integer: {
      if (!has_value) throw std::invalid_argument(name + " needs a value: " + m.syntax);
      long long x = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), x);
      if (ec != std::errc() || end != value.data() + value.size() || x < spec.min || x > spec.max)
        throw std::invalid_argument(name + " must be an integer >= " + number_text(spec.min) + ", got '" + value +
                                    "'");
      return static_cast<double>(x);
    }
    case ipc::SettingType::number: {
      if (!has_value) throw std::invalid_argument(name + " needs a value: " + m.syntax);
      double x = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), x);
      if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(x) || x < spec.min ||
          x > spec.max)
        throw std::invalid_argument(name + " must be a number from " + number_text(spec.min) + " to " +
                                    number_text(spec.max) + ", got '" + value + "'");
      return x;
    }
    default: break;
  }
  throw std::logic_error(name + ": a variant measure of a type variants do not take");
}

}  // namespace

std::string variant_syntax() {
  std::string text = "baseline";
  for (const auto& m : measures()) text += std::string(", ") + m.syntax;
  return text;
}

Variant parse_variant(const std::string& text) {
  if (text.empty()) throw std::invalid_argument("an empty variant (known: " + variant_syntax() + ")");
  if (text == "baseline") return {};
  std::vector<std::pair<std::size_t, double>> parts;  // index in measures(), value
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, '+');) {
    const auto eq = part.find('=');
    const std::string name = part.substr(0, eq);
    if (name == "baseline")
      throw std::invalid_argument(text + ": baseline stands alone (it is the sweep without any measure)");
    const std::size_t index = measure_index(name);
    if (index == measures().size())
      throw std::invalid_argument(text + ": unknown measure '" + name + "' (known: " + variant_syntax() + ")");
    if (std::any_of(parts.begin(), parts.end(), [&](const auto& p) { return p.first == index; }))
      throw std::invalid_argument(text + ": " + name + " given twice");
    try {
      const bool has_value = eq != std::string::npos;
      parts.emplace_back(index, parse_value(measures()[index], has_value, has_value ? part.substr(eq + 1) : ""));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(text + ": " + e.what());
    }
  }
  if (parts.empty() || text.back() == '+') throw std::invalid_argument(text + ": a '+' without a measure after it");
  std::sort(parts.begin(), parts.end());
  Variant v;
  v.name.clear();
  for (const auto& [index, value] : parts) {
    const Measure& m = measures()[index];
    v.settings.emplace_back(m.name, value);
    if (!v.name.empty()) v.name += '+';
    v.name += m.name;
    if (m.spec().type != ipc::SettingType::boolean)
      v.name.append("=").append(number_text(value));
    else if (value == 0)
      v.name += "=false";
  }
  return v;
}

std::vector<Variant> parse_variants(const std::string& text) {
  std::vector<Variant> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    Variant v = parse_variant(item);
    if (std::any_of(out.begin(), out.end(), [&](const Variant& x) { return x.name == v.name; }))
      throw std::invalid_argument("'" + item + "' given twice (as " + v.name + ")");
    out.push_back(std::move(v));
  }
  if (out.empty() || text.back() == ',')
    throw std::invalid_argument("give a comma-separated list: " + variant_syntax());
  return out;
}

SettingsOverrides with_variant(SettingsOverrides base, const Variant& variant) {
  for (const auto& [name, value] : variant.settings) {
    const auto type = measures()[measure_index(name)].spec().type;
    if (type == ipc::SettingType::boolean)
      base.set(name, value != 0);
    else if (type == ipc::SettingType::integer)
      base.set(name, static_cast<long long>(value));
    else
      base.set(name, value);
  }
  return base;
}

}  // namespace isobench::orchestrator::calibration
