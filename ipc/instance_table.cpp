#include "instance_table.hpp"
#include "json_integer.hpp"

#include <stdexcept>
#include <utility>

namespace isobench::ipc {

nlohmann::json to_json(const WorkerInstance& in) {
  nlohmann::json j = {{"id", in.id},          {"kernel", in.kernel},   {"backend", in.backend},
                      {"params", in.params},  {"seed", in.seed},       {"plugin", in.plugin},
                      {"command", in.command}, {"command_dir", in.command_dir},
                      {"python_module", in.python_module}, {"python_function", in.python_function}};
  if (!in.pytest.is_null()) j["pytest"] = in.pytest;
  j.update(instance_table_json(in.measure));
  return j;
}

namespace {

// Fields added after the first plan.json format: absent in plan files written before them, which
// --resume and compare still read, so absent means the default. When present they are checked
// like every other field.
template <class T>
T later_field(const nlohmann::json& o, const char* key, T fallback) {
  return o.contains(key) ? o.at(key).get<T>() : std::move(fallback);
}

}  // namespace

WorkerInstance worker_instance_from_json(const nlohmann::json& o, std::string_view context) {
  try {
    WorkerInstance in;
    in.id = o.at("id").get<std::string>();
    in.kernel = o.at("kernel").get<std::string>();
    in.backend = o.at("backend").get<std::string>();
    in.params = o.at("params");
    in.seed = json_integer<std::uint64_t>(o.at("seed"));
    in.measure = instance_table_settings(o);
    in.plugin = later_field<std::string>(o, "plugin", "");
    in.command = later_field<std::vector<std::string>>(o, "command", {});
    in.command_dir = later_field<std::string>(o, "command_dir", "");
    in.python_module = later_field<std::string>(o, "python_module", "");
    in.python_function = later_field<std::string>(o, "python_function", "");
    in.pytest = later_field<nlohmann::json>(o, "pytest", nullptr);
    if (!in.pytest.is_null() && (!in.pytest.is_object() || !in.pytest.contains("args") ||
                                 !in.pytest["args"].is_array() || in.python_module.empty()))
      throw std::runtime_error("pytest: expected {\"args\": [...]} on a Python benchmark");
    if (in.backend != "cpu" && in.backend != "cuda" && in.backend != "command")
      throw std::runtime_error("backend " + in.backend);
    if ((in.backend == "command") == in.command.empty())
      throw std::runtime_error("a command needs backend \"command\" and a program");
    if (in.measure.realloc && in.backend == "command") throw std::runtime_error("realloc of a command");
    if (in.python_module.empty() != in.python_function.empty())
      throw std::runtime_error("a Python benchmark needs both python_module and python_function");
    if (!in.python_module.empty() && in.backend == "command") throw std::runtime_error("a Python benchmark as a command");
    return in;
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string(context) + ": " + e.what());
  }
}

std::string encode_instances(const std::vector<WorkerInstance>& instances) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& in : instances) arr.push_back(to_json(in));
  return arr.dump();
}

std::vector<WorkerInstance> decode_instances(std::string_view json_text) {
  const auto arr = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!arr.is_array()) throw std::runtime_error("instance table is not a JSON array");
  std::vector<WorkerInstance> out;
  out.reserve(arr.size());
  for (std::size_t i = 0; i < arr.size(); ++i)
    out.push_back(worker_instance_from_json(arr[i], "instance table entry " + std::to_string(i)));
  return out;
}

}  // namespace isobench::ipc
