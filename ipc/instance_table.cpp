#include "instance_table.hpp"
#include "json_integer.hpp"

#include <stdexcept>
#include <utility>

namespace isobench::ipc {

std::string encode_instances(const std::vector<WorkerInstance>& instances) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& in : instances) {
    arr.push_back({{"id", in.id},
                   {"kernel", in.kernel},
                   {"backend", in.backend},
                   {"params", in.params},
                   {"seed", in.seed},
                   {"statistic", in.statistic},
                   {"timer", in.timer},
                   {"cold_cache", in.cold_cache},
                   {"rotate_buffers", in.rotate_buffers},
                   {"blocking_kernel", in.blocking_kernel},
                   {"slowdown_pct", in.slowdown_pct},
                   {"plugin", in.plugin},
                   {"command", in.command},
                   {"command_dir", in.command_dir}});
  }
  return arr.dump();
}

std::vector<WorkerInstance> decode_instances(std::string_view json_text) {
  const auto arr = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!arr.is_array()) throw std::runtime_error("instance table is not a JSON array");
  std::vector<WorkerInstance> out;
  out.reserve(arr.size());
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const auto& o = arr[i];
    try {
      WorkerInstance in;
      in.id = o.at("id").get<std::string>();
      in.kernel = o.at("kernel").get<std::string>();
      in.backend = o.at("backend").get<std::string>();
      in.params = o.at("params");
      in.seed = json_integer<std::uint64_t>(o.at("seed"));
      in.statistic = o.at("statistic").get<std::string>();
      in.timer = o.at("timer").get<std::string>();
      in.cold_cache = o.at("cold_cache").get<bool>();
      in.rotate_buffers = json_integer<int>(o.at("rotate_buffers"));
      in.blocking_kernel = o.at("blocking_kernel").get<bool>();
      in.slowdown_pct = o.at("slowdown_pct").get<double>();
      in.plugin = o.at("plugin").get<std::string>();
      in.command = o.at("command").get<std::vector<std::string>>();
      in.command_dir = o.at("command_dir").get<std::string>();
      if (in.backend != "cpu" && in.backend != "cuda" && in.backend != "command")
        throw std::runtime_error("backend " + in.backend);
      if ((in.backend == "command") == in.command.empty())
        throw std::runtime_error("a command needs backend \"command\" and a program");
      if (in.statistic != "mean" && in.statistic != "min") throw std::runtime_error("statistic " + in.statistic);
      if (in.rotate_buffers < 1) throw std::runtime_error("rotate_buffers < 1");
      out.push_back(std::move(in));
    } catch (const std::exception& e) {
      throw std::runtime_error("instance table entry " + std::to_string(i) + ": " + e.what());
    }
  }
  return out;
}

}  // namespace isobench::ipc
