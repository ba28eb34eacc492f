#include "kernel_spec.hpp"

#include <cmath>
#include <sstream>

namespace isobench::kernels {

std::string to_string(Backend b) { return b == Backend::cuda ? "cuda" : "cpu"; }

std::string to_string(AxisType t) {
  switch (t) {
    case AxisType::integer: return "integer";
    case AxisType::number: return "number";
    case AxisType::string: return "string";
    case AxisType::boolean: return "boolean";
  }
  return "?";
}

const AxisSpec* KernelSpec::find_axis(const std::string& axis_name) const {
  for (const auto& a : axes)
    if (a.name == axis_name) return &a;
  return nullptr;
}

namespace {

std::string format_bound(double v) {
  std::ostringstream os;
  if (v == std::floor(v) && std::fabs(v) < 1e18)
    os << static_cast<long long>(v);
  else
    os << v;
  return os.str();
}

std::string join_choices(const std::vector<std::string>& choices) {
  std::string out;
  for (const auto& c : choices) out += (out.empty() ? "" : ", ") + c;
  return out;
}

}  // namespace

bool has_min(const AxisSpec& axis) { return axis.min > -AxisSpec{}.max; }
bool has_max(const AxisSpec& axis) { return axis.max < AxisSpec{}.max; }

std::string axis_domain(const AxisSpec& axis) {
  switch (axis.type) {
    case AxisType::boolean: return "true | false";
    case AxisType::string: {
      if (axis.choices.empty()) return "any string";
      std::string out;
      for (const auto& c : axis.choices) out += (out.empty() ? "" : " | ") + c;
      return out;
    }
    case AxisType::integer:
    case AxisType::number:
      if (has_min(axis) && has_max(axis)) return format_bound(axis.min) + " .. " + format_bound(axis.max);
      if (has_min(axis)) return ">= " + format_bound(axis.min);
      if (has_max(axis)) return "<= " + format_bound(axis.max);
      return axis.type == AxisType::integer ? "any integer" : "any number";
  }
  return "?";
}

std::string check_value(const AxisSpec& axis, const nlohmann::json& value) {
  switch (axis.type) {
    case AxisType::boolean:
      if (!value.is_boolean()) return "expected true or false, got " + value.dump();
      return {};
    case AxisType::string:
      if (!value.is_string()) return "expected a string, got " + value.dump();
      if (!axis.choices.empty()) {
        for (const auto& c : axis.choices)
          if (value.get<std::string>() == c) return {};
        return "must be one of " + join_choices(axis.choices) + ", got " + value.dump();
      }
      return {};
    case AxisType::integer:
    case AxisType::number: {
      if (axis.type == AxisType::integer && !value.is_number_integer())
        return "expected an integer, got " + value.dump();
      if (!value.is_number()) return "expected a number, got " + value.dump();
      const double v = value.get<double>();
      if (!std::isfinite(v)) return "must be finite, got " + value.dump();
      if (v < axis.min) return "must be at least " + format_bound(axis.min) + ", got " + value.dump();
      if (v > axis.max) return "must be at most " + format_bound(axis.max) + ", got " + value.dump();
      return {};
    }
  }
  return "unknown axis type";
}

std::string complete_params(const KernelSpec& spec, const nlohmann::json& given, Params& out) {
  if (!given.is_object()) return "parameters must be a mapping";
  for (const auto& [key, value] : given.items()) {
    if (!spec.find_axis(key)) return "unknown axis '" + key + "' for kernel " + spec.name;
  }
  out = nlohmann::json::object();
  for (const auto& axis : spec.axes) {
    auto it = given.find(axis.name);
    if (it == given.end()) {
      if (!axis.default_value) return "axis '" + axis.name + "' has no value and no default";
      out[axis.name] = *axis.default_value;
      continue;
    }
    if (auto problem = check_value(axis, *it); !problem.empty())
      return "axis '" + axis.name + "' " + problem;
    out[axis.name] = *it;
  }
  return {};
}

std::string instance_id(const KernelSpec& spec, const Params& params) {
  std::string id = spec.name + "[";
  bool first = true;
  for (const auto& axis : spec.axes) {
    auto it = params.find(axis.name);
    if (it == params.end()) continue;
    id += first ? "" : ",";
    first = false;
    id += axis.name + "=";
    id += it->is_string() ? it->get<std::string>() : it->dump();
  }
  return id + "]";
}

}  // namespace isobench::kernels
