// `orchestrate kernels`: the kernel catalog as text (Printer's own rendering) and as JSON (the JSON
// printer's).
#include <algorithm>
#include <array>

#include "orchestrator/printers/printers.hpp"

namespace isobench::orchestrator {

namespace {

nlohmann::json axis_json(const kernels::AxisSpec& axis) {
  nlohmann::json j = {{"name", axis.name},
                      {"type", kernels::to_string(axis.type)},
                      {"help", axis.help},
                      {"default", axis.default_value ? *axis.default_value : nlohmann::json(nullptr)},
                      {"required", !axis.default_value}};
  if (axis.type == kernels::AxisType::integer || axis.type == kernels::AxisType::number) {
    // An integer axis's bounds are integers (they are whole numbers below 2^63).
    auto bound = [&](double v) {
      return axis.type == kernels::AxisType::integer ? nlohmann::json(static_cast<long long>(v)) : nlohmann::json(v);
    };
    j["min"] = kernels::has_min(axis) ? bound(axis.min) : nlohmann::json(nullptr);  // null: unbounded
    j["max"] = kernels::has_max(axis) ? bound(axis.max) : nlohmann::json(nullptr);
  }
  if (axis.type == kernels::AxisType::string) j["choices"] = axis.choices;  // empty: any string
  return j;
}

}  // namespace

nlohmann::json kernel_catalog_json(const std::vector<CatalogEntry>& catalog) {
  auto list = nlohmann::json::array();
  for (const auto& e : catalog) {
    auto axes = nlohmann::json::array();
    for (const auto& a : e.spec->axes) axes.push_back(axis_json(a));
    list.push_back({{"name", e.spec->name},
                    {"family", e.spec->family},
                    {"backend", kernels::to_string(e.spec->backend)},
                    {"description", e.spec->description},
                    {"plugin", e.plugin.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.plugin)},
                    {"axes", axes}});
  }
  return {{"schema_version", kKernelsSchemaVersion}, {"kernels", list}};
}

// A kernel per block: its name, backend and family (and plugin), its description, then one
// aligned row per axis: name, type, default, the values it takes, help.
void Printer::kernel_catalog(std::ostream& out, const std::vector<CatalogEntry>& catalog) const {
  for (const auto& e : catalog) {
    const auto& spec = *e.spec;
    out << spec.name << "  (" << kernels::to_string(spec.backend) << ", family " << spec.family
        << (e.plugin.empty() ? "" : ", plugin " + e.plugin) << ")\n";
    if (!spec.description.empty()) out << "  " << spec.description << "\n";
    std::vector<std::array<std::string, 5>> rows;
    for (const auto& a : spec.axes) {
      std::string def = "required";
      if (a.default_value) def = a.default_value->is_string() ? a.default_value->get<std::string>() : a.default_value->dump();
      rows.push_back({a.name, kernels::to_string(a.type), def, kernels::axis_domain(a), a.help});
    }
    std::array<std::size_t, 4> width{};
    for (const auto& r : rows)
      for (std::size_t c = 0; c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
    for (const auto& r : rows) {
      out << "    ";
      for (std::size_t c = 0; c < width.size(); ++c) out << r[c] << std::string(width[c] - r[c].size() + 2, ' ');
      out << r[4] << "\n";
    }
    if (rows.empty()) out << "    (no axes)\n";
    out << "\n";
  }
  out << catalog.size() << " kernels; a sweep names one under `kernel:` and gives its axes under `axes:` "
      << "(docs/sweep-format.md)\n";
}

}  // namespace isobench::orchestrator
