#include "plan.hpp"

#include "ipc/json_integer.hpp"
#include "orchestrator/json_errors.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

namespace isobench::orchestrator {

std::uint64_t instance_seed(std::uint64_t run_seed, const std::string& id) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : id) {
    h ^= c;
    h *= 1099511628211ull;
  }
  // splitmix64 finaliser over the combination
  std::uint64_t z = h ^ (run_seed + 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::size_t groups_per_gpu(const Plan& plan) {
  std::map<int, std::size_t> groups;  // by GPU
  std::size_t most = 0;
  for (const auto& g : plan.schedule.groups)
    if (!g.empty()) most = std::max(most, ++groups[instance_gpu(plan, g.front(), -1)]);
  return most;
}

int instance_gpu(const Plan& plan, std::uint32_t i, int fallback) {
  const int gpu = plan.instances.at(i).gpu;
  return gpu >= 0 ? gpu : fallback;
}

std::vector<int> plan_gpus(const Plan& plan, int fallback) {
  std::vector<int> used;
  for (std::uint32_t i = 0; i < plan.instances.size(); ++i) {
    const int gpu = instance_gpu(plan, i, fallback);
    if (std::find(used.begin(), used.end(), gpu) == used.end()) used.push_back(gpu);
  }
  if (used.empty()) return {fallback};
  std::vector<int> ordered;  // in the order --gpus gave them
  for (const int gpu : plan.gpus)
    if (std::find(used.begin(), used.end(), gpu) != used.end()) ordered.push_back(gpu);
  for (const int gpu : used)
    if (std::find(ordered.begin(), ordered.end(), gpu) == ordered.end()) ordered.push_back(gpu);
  return ordered;
}

bool Plan::calibrated() const {
  for (const auto& p : instances)
    if (p.inner == 0) return false;
  return true;
}

nlohmann::json Plan::to_json() const {
  nlohmann::json inst = nlohmann::json::array();
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const auto& p = instances[i];
    // The worker's fields as the instance table holds them, and the plan's own beside them.
    nlohmann::json o = ipc::to_json(p.worker);
    o["index"] = i;
    o["family"] = p.family;
    o["warmup"] = p.warmup;
    o["inner_setting"] = p.fixed_inner ? nlohmann::json(*p.fixed_inner) : nlohmann::json("auto");
    o["min_sample_time_s"] = p.min_sample_time_s;
    o["inner"] = p.inner;
    o["device_bytes"] = p.device_bytes;
    if (p.gpu >= 0) o["gpu"] = p.gpu;  // none in plans from before --gpus, read back the same
    if (!p.replay.is_null()) o["replay"] = p.replay;
    inst.push_back(std::move(o));
  }
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : schedule.runs) {
    nlohmann::json tasks = nlohmann::json::array();
    for (const auto& t : r.tasks) tasks.push_back({t.instance, t.sample, t.round, t.slot});
    runs.push_back({{"side", r.side}, {"tasks", tasks}});
  }
  nlohmann::json schedule_json = {{"isolation", to_string(schedule.isolation)},
                                   {"per", to_string(schedule.per)},
                                   {"samples", schedule.samples},
                                   {"sides", schedule.sides},
                                   {"seed", schedule.seed},
                                   {"groups", schedule.groups},
                                   {"task_fields", {"instance", "sample", "round", "slot"}},
                                   {"runs", runs}};
  if (schedule.keep_call_order) schedule_json["keep_call_order"] = true;
  nlohmann::json j = {{"schema_version", 1},
                      {"sweep", sweep_name},
                      {"device", device},
                      {"settings", settings},
                      {"instances", inst},
                      {"skipped", skipped},
                      {"workers", workers},
                      {"worker_args", worker_args},
                      {"schedule", std::move(schedule_json)}};
  if (!call_chains.empty()) j["call_chains"] = call_chains;
  if (!skipped_reasons.empty()) j["skipped_reasons"] = skipped_reasons;
  if (!gpus.empty()) j["gpus"] = gpus;
  if (!plugin_sha256.empty()) j["plugin_sha256"] = plugin_sha256;
  if (environment_variables) j["environment_variables"] = environment_variables->to_json();
  if (sequential) j["sequential"] = sequential->to_json();
  return j;
}

Plan Plan::from_json(const nlohmann::json& j) {
  Plan plan;
  try {
    plan.sweep_name = j.at("sweep").get<std::string>();
    plan.device = j.at("device").get<std::string>();
    plan.settings = j.at("settings");
    plan.skipped = j.value("skipped", std::vector<std::string>{});
    plan.skipped_reasons = j.value("skipped_reasons", std::map<std::string, std::string>{});
    plan.workers = j.value("workers", std::vector<std::string>{});
    plan.worker_args = j.value("worker_args", std::vector<std::vector<std::string>>{});
    plan.plugin_sha256 = j.value("plugin_sha256", std::map<std::string, std::string>{});
    if (j.contains("environment_variables"))
      plan.environment_variables = RecordedEnvironment::from_json(j.at("environment_variables"));
    if (j.contains("sequential")) plan.sequential = SequentialPlan::from_json(j.at("sequential"));
    if (j.contains("gpus"))
      for (const auto& g : j.at("gpus")) {
        const int gpu = ipc::json_integer<int>(g);
        if (gpu < 0) throw std::runtime_error("gpus: " + g.dump() + " is not a device index");
        plan.gpus.push_back(gpu);
      }
    for (const auto& o : j.at("instances")) {
      PlannedInstance p;
      p.worker = ipc::worker_instance_from_json(o, "instance " + std::to_string(plan.instances.size()));
      p.family = o.at("family").get<std::string>();
      p.warmup = ipc::json_integer<std::uint32_t>(o.at("warmup"));
      const auto& setting = o.at("inner_setting");
      if (setting.is_number_integer()) p.fixed_inner = ipc::json_integer<std::uint32_t>(setting);
      p.min_sample_time_s = o.at("min_sample_time_s").get<double>();
      p.inner = ipc::json_integer<std::uint32_t>(o.at("inner"));
      p.device_bytes = ipc::json_integer<std::uint64_t>(o.at("device_bytes"));
      if (o.contains("replay")) {
        if (!o.at("replay").is_object()) throw std::runtime_error(p.worker.id + ": replay is not an object");
        p.replay = o.at("replay");
      }
      if (o.contains("gpu")) {
        p.gpu = ipc::json_integer<int>(o.at("gpu"));
        if (p.gpu < 0 || (!plan.gpus.empty() && std::find(plan.gpus.begin(), plan.gpus.end(), p.gpu) == plan.gpus.end()))
          throw std::runtime_error(p.worker.id + ": gpu " + std::to_string(p.gpu) + " is not one of the plan's gpus");
      }
      plan.instances.push_back(std::move(p));
    }
    if (j.contains("call_chains")) {
      std::set<std::uint32_t> chained;
      for (const auto& c : j.at("call_chains")) {
        plan.call_chains.emplace_back();
        for (const auto& i : c) {
          const auto index = ipc::json_integer<std::uint32_t>(i);
          if (index >= plan.instances.size() || !chained.insert(index).second)
            throw std::runtime_error("call_chains: instance " + i.dump() + " is out of range or in two chains");
          plan.call_chains.back().push_back(index);
        }
      }
    }
    const auto& s = j.at("schedule");
    plan.schedule.isolation = parse_isolation(s.at("isolation").get<std::string>());
    plan.schedule.per = parse_granularity(s.at("per").get<std::string>());
    plan.schedule.samples = ipc::json_integer<std::uint32_t>(s.at("samples"));
    plan.schedule.sides = ipc::json_integer<std::uint32_t>(s.at("sides"));
    plan.schedule.seed = ipc::json_integer<std::uint64_t>(s.at("seed"));
    plan.schedule.keep_call_order = s.value("keep_call_order", false);
    plan.schedule.n_instances = static_cast<std::uint32_t>(plan.instances.size());
    plan.schedule.groups = single_group(plan.schedule.n_instances);
    if (s.contains("groups")) {
      Groups groups;
      std::set<std::uint32_t> grouped;
      for (const auto& g : s.at("groups")) {
        groups.emplace_back();
        for (const auto& i : g) {
          const auto index = ipc::json_integer<std::uint32_t>(i);
          if (index >= plan.schedule.n_instances || !grouped.insert(index).second)
            throw std::runtime_error("groups do not partition the instances");
          groups.back().push_back(index);
        }
      }
      if (grouped.size() != plan.schedule.n_instances) throw std::runtime_error("groups do not partition the instances");
      for (const auto& g : groups)  // a group is set up by one worker, on one GPU
        for (auto i : g)
          if (plan.instances[i].gpu != plan.instances[g.front()].gpu)
            throw std::runtime_error("a group holds instances of two GPUs");
      plan.schedule.groups = std::move(groups);
    }
    const std::uint32_t n_slots = plan.schedule.n_instances * plan.schedule.samples * plan.schedule.sides;
    std::set<std::uint32_t> planned_slots;
    for (const auto& r : s.at("runs")) {
      WorkerRun run;
      run.side = ipc::json_integer<std::uint32_t>(r.at("side"));
      for (const auto& t : r.at("tasks")) {
        PlannedSample ps{ipc::json_integer<std::uint32_t>(t.at(0)), ipc::json_integer<std::uint32_t>(t.at(1)),
                         ipc::json_integer<std::uint32_t>(t.at(2)), ipc::json_integer<std::uint32_t>(t.at(3)), run.side};
        if (ps.instance >= plan.schedule.n_instances || ps.slot >= n_slots)
          throw std::runtime_error("schedule task out of range");
        if (!planned_slots.insert(ps.slot).second)  // found by fuzz/: a slot measured twice
          throw std::runtime_error("schedule lists slot " + std::to_string(ps.slot) + " twice");
        run.tasks.push_back(ps);
      }
      plan.schedule.runs.push_back(std::move(run));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("plan.json: " + json_error_text(e));
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("plan.json: ") + e.what());
  }
  return plan;
}

}  // namespace isobench::orchestrator
