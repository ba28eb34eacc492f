#include "orchestrator/run/like_run.hpp"

#include <algorithm>
#include <vector>

#include "orchestrator/errors.hpp"
#include "orchestrator/gpu_environment.hpp"
#include "orchestrator/run_directory.hpp"

namespace isobench::orchestrator {

namespace {

using nlohmann::json;

std::string models_text(const std::set<std::string>& models) {
  std::string text;
  for (const auto& m : models) text += (text.empty() ? "" : ", ") + m;
  return text;
}

// The names of the GPUs (NVML indices) in `gpus` that `environment` (environment.json's "gpu")
// lists; empty where it lists none of them.
std::set<std::string> gpu_models(const json& environment, const std::vector<int>& gpus) {
  std::set<std::string> models;
  if (!environment.is_object() || !environment.contains("gpus") || !environment["gpus"].is_array()) return models;
  for (const auto& g : environment["gpus"])
    if (g.is_object() && g.contains("index") && g["index"].is_number_integer() && g.contains("name") &&
        g["name"].is_string() && std::find(gpus.begin(), gpus.end(), g["index"].get<int>()) != gpus.end())
      models.insert(g["name"].get<std::string>());
  return models;
}

std::string list_text(const std::vector<std::string>& ids) {
  std::string text;
  for (std::size_t i = 0; i < ids.size() && i < 5; ++i) text += (i ? ", " : "") + ids[i];
  if (ids.size() > 5) text += " and " + std::to_string(ids.size() - 5) + " more";
  return text;
}

}  // namespace

LikeRun read_like_run(const std::string& dir) {
  const std::string what = "--like " + dir + ": ";
  LikeRun like;
  like.dir = dir;
  try {
    const RunDirectory run = RunDirectory::open(dir);
    if (!run.exists("plan.json")) throw UsageError("no plan.json: not a run directory");
    const json plan_json = run.read_json("plan.json");
    check_schema_version(plan_json, run.file("plan.json"));
    // An imported run (orchestrate import) holds another tool's results: no inner counts or
    // choices of a worker to take.
    if (plan_json.contains("imported"))
      throw UsageError("imported from " + plan_json["imported"].value("tool", std::string("another tool")) +
                       ", not measured by orchestrate: it has no plan choices to take");
    const Plan plan = Plan::from_json(plan_json);
    like.device = plan.device;
    like.seed = plan.schedule.seed;
    for (const auto& p : plan.instances) like.instances.emplace(p.worker.id, p);
    if (run.exists("environment.json")) {
      const json environment = run.read_json("environment.json");
      if (environment.is_object() && environment.contains("gpu"))
        like.gpu_models = gpu_models(environment["gpu"], plan_gpus(plan, 0));
    }
  } catch (const UsageError& e) {
    const std::string text = e.what();
    // RunDirectory names the folder itself: said once.
    throw UsageError(what + (text.rfind(dir + ": ", 0) == 0 ? text.substr(dir.size() + 2) : text));
  } catch (const std::exception& e) {
    throw UsageError(what + e.what());
  }
  return like;
}

SettingsOverrides like_overrides(const LikeRun& like, const SettingsOverrides& given) {
  SettingsOverrides overrides = given;
  if (given.has("seed") && given.values()["seed"] != json(like.seed))
    throw UsageError("--like " + like.dir + ": --seed " + given.values()["seed"].dump() + " conflicts with its seed " +
                     std::to_string(like.seed) + " (the inputs and the schedule); leave --seed out, or drop --like");
  overrides.set("seed", like.seed);
  return overrides;
}

std::string like_machine_problem(const LikeRun& like, kernels::Backend device, const std::set<std::string>& models) {
  const std::string name = kernels::to_string(device);
  if (like.device != name)
    return "--like " + like.dir + ": it measured on " + like.device + " and this run measures on " + name +
           ": inner counts chosen on one device do not hold on the other (give --device " + like.device +
           ", or --like a run of this device)";
  if (device != kernels::Backend::cuda || like.gpu_models.empty() || models.empty() || models == like.gpu_models)
    return {};
  return "--like " + like.dir + ": it measured on " + models_text(like.gpu_models) + " and this run measures on " +
         models_text(models) + ": inner counts and algorithms chosen on one GPU model do not hold on another";
}

void check_like_machine(const LikeRun& like, const Machine& machine) {
  std::set<std::string> models;
  if (machine.device == kernels::Backend::cuda && !like.gpu_models.empty())
    models = gpu_models(collect_gpu_environment(), machine.gpus);
  if (const auto problem = like_machine_problem(like, machine.device, models); !problem.empty())
    throw UsageError(problem);
}

void take_like_choices(Plan& plan, const LikeRun& like, const SettingsOverrides& given, const Log& log) {
  const std::string what = "--like " + like.dir + ": ";
  const ipc::RunSettings run_settings;
  std::vector<std::string> afresh;
  std::set<std::string> gave_way;  // sweep settings the earlier run's values replaced
  std::size_t taken = 0;
  for (auto& p : plan.instances) {
    const auto it = like.instances.find(p.worker.id);
    if (it == like.instances.end() || it->second.worker.kernel != p.worker.kernel ||
        it->second.worker.params != p.worker.params) {
      afresh.push_back(p.worker.id);
      continue;
    }
    const PlannedInstance& earlier = it->second;
    for (const auto* spec : ipc::sample_changing_settings()) {
      const std::string name(spec->name);
      const json was = spec->get(run_settings, earlier.worker.measure);
      if (spec->get(run_settings, p.worker.measure) == was) continue;
      if (given.has(name))
        throw UsageError(what + spec->flag() + " " + ipc::setting_text(given.values()[name]) + " conflicts with its " +
                         name + " " + ipc::setting_text(was) + " (" + p.worker.id + "); leave " + spec->flag() +
                         " out to measure like it, or drop --like");
      ipc::RunSettings unused;
      if (const auto problem = ipc::apply_setting(*spec, was, unused, p.worker.measure); !problem.empty())
        throw UsageError(what + "plan.json: " + p.worker.id + ": " + name + " " + problem);
      gave_way.insert(name);
    }
    p.replay = earlier.replay;
    if (earlier.inner == 0) {  // the earlier run stopped before calibrating it
      afresh.push_back(p.worker.id);
      continue;
    }
    if (given.has("inner") && given.values()["inner"] != json(earlier.inner))
      throw UsageError(what + "--inner " + ipc::setting_text(given.values()["inner"]) + " conflicts with its inner " +
                       std::to_string(earlier.inner) + " (" + p.worker.id +
                       "); leave --inner out to measure like it, or drop --like");
    if (p.fixed_inner && *p.fixed_inner != earlier.inner) gave_way.insert("inner");
    p.inner = earlier.inner;
    ++taken;
  }
  std::string note = "--like " + like.dir + ": seed " + std::to_string(like.seed) + "; " + std::to_string(taken) +
                     " instances take its inner counts and choices";
  if (!gave_way.empty()) {
    std::string names;
    for (const auto& n : gave_way) names += (names.empty() ? "" : ", ") + n;
    note += " (its " + names + " over the sweep's)";
  }
  if (!afresh.empty())
    note += "; " + std::to_string(afresh.size()) + " calibrated afresh (not in it, or not calibrated there): " +
            list_text(afresh);
  log.note(note);
}

}  // namespace isobench::orchestrator
