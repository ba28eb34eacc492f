#include "orchestrator/python/python_sides.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "ipc/artifact_folder.hpp"
#include "orchestrator/errors.hpp"
#include "orchestrator/plan.hpp"
#include "orchestrator/python/triton_cache.hpp"
#include "orchestrator/sweep/pytest_collection.hpp"

namespace isobench::orchestrator {

namespace fs = std::filesystem;

namespace {

constexpr int kPythonSchemaVersion = 1;

// The load request's benchmarks: each module and function once, with the instances it sets up.
nlohmann::json benchmarks_of(const Plan& plan) {
  nlohmann::json benchmarks = nlohmann::json::array();
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const auto& p : plan.instances) {
    const auto& w = p.worker;
    if (w.python_module.empty()) continue;
    const auto [it, added] = index.emplace(std::make_pair(w.python_module, w.python_function), benchmarks.size());
    if (added) {
      benchmarks.push_back({{"module", w.python_module}, {"function", w.python_function},
                            {"instances", nlohmann::json::array()}});
      if (!w.pytest.is_null()) benchmarks.back()["pytest"] = w.pytest;
    }
    benchmarks[it->second]["instances"].push_back({{"id", w.id}, {"params", w.params}, {"device", w.backend}});
  }
  return benchmarks;
}

// <build>/<relative> for the build whose bin/ holds `worker`.
std::string beside_worker(const std::string& worker, const std::string& relative) {
  return (fs::path(worker).parent_path().parent_path() / relative).lexically_normal().string();
}

// A new run's sides as python.json records them (the interpreter found, the Triton cache folder
// chosen, the side's worker library and isobench package) of `count` sides, 2 in an A/B run.
// `caches`: the TRITON_CACHE_DIR each side was given, "" where it got its environment's.
std::vector<nlohmann::json> new_sides(const std::vector<std::string>& workers, std::size_t count,
                                      const PythonOptions& options, const std::string& sweep_path,
                                      const std::string& run_dir, std::vector<std::string>& caches) {
  std::vector<nlohmann::json> sides;
  for (std::size_t side = 0; side < count; ++side) {
    PythonEnvironment env = side_environment(options, side, count == 2);
    if (!run_dir.empty()) caches.push_back(default_triton_cache(env, run_dir, side));
    nlohmann::json s = to_json(env);
    const std::string& worker = workers.at(side);
    s["library"] = beside_worker(worker, "lib/libisobench-worker.so");
    s["package"] = beside_worker(worker, "python");
    std::error_code ec;
    if (!fs::is_regular_file(s["library"].get<std::string>(), ec))
      throw UsageError(sweep_path + ": Python benchmarks need the worker library of the build of " + worker +
                       ", and there is no " + s["library"].get<std::string>());
    sides.push_back(std::move(s));
  }
  return sides;
}

// The zygote of a side as python.json records it, without its benchmarks.
ZygoteSpec zygote_spec(const nlohmann::json& s, std::size_t side) {
  ZygoteSpec spec;
  spec.side = static_cast<std::uint32_t>(side);
  try {
    PythonEnvironment env;
    env.interpreter = s.at("interpreter").get<std::string>();
    env.variables = s.at("variables").get<std::vector<std::string>>();
    env.pythonpath = s.at("pythonpath").get<std::vector<std::string>>();
    spec.library = s.at("library").get<std::string>();
    spec.environment = zygote_environment(env, s.at("package").get<std::string>());
    spec.interpreter = env.interpreter;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError("python.json: side " + std::to_string(side) + ": " + e.what());
  }
  return spec;
}

std::string side_label(std::size_t side) { return "side " + std::to_string(side); }

// A number of seconds the zygote reported, to two decimals ("?" where it gave none).
std::string seconds_text(const nlohmann::json& record, const char* key) {
  const auto it = record.find(key);
  if (it == record.end() || !it->is_number()) return "?";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", it->get<double>());
  return text;
}

// FlagGems' tuner keeps its choices in a database under FLAGGEMS_CACHE_DIR (~/.flaggems by
// default), which the two sides of a run would share: each side of a run that times do_bench
// calls gets <run>/flaggems-cache/side-<s>, unless the side's options or the orchestrator's
// environment give one (kept, and said). python.json's side records which, as "flaggems_cache":
// {"dir", "chosen_by": "per side" | "the side's options" | "the environment", "existed"} (whether
// the folder was there before the run: a database tuned earlier, whose choices the side takes).
void per_side_flaggems_cache(std::vector<nlohmann::json>& sides, const std::string& run_dir, const Log& log) {
  const std::string prefix = "FLAGGEMS_CACHE_DIR=";
  std::error_code ec;
  for (std::size_t side = 0; side < sides.size(); ++side) {
    auto variables = sides[side].value("variables", std::vector<std::string>{});
    std::string given, chosen_by = "the side's options";
    for (const auto& v : variables)
      if (v.rfind(prefix, 0) == 0) given = v.substr(prefix.size());
    const char* inherited = std::getenv("FLAGGEMS_CACHE_DIR");
    if (given.empty() && inherited && *inherited) given = inherited, chosen_by = "the environment";
    if (!given.empty()) {
      const bool existed = fs::exists(given, ec);
      sides[side]["flaggems_cache"] = {{"dir", given}, {"chosen_by", chosen_by}, {"existed", existed}};
      log.note(side_label(side) + ": FLAGGEMS_CACHE_DIR=" + given + " as given by " + chosen_by +
               (existed ? " (a folder from before the run: FlagGems' tuner takes the choices its database holds" +
                              std::string(sides.size() > 1 ? "; the sides share it when given the same folder)" : ")")
                        : " (FlagGems' tuner database, new" +
                              std::string(sides.size() > 1 ? "; the sides share it when given the same folder)" : ")")));
      continue;
    }
    const std::string folder = (fs::path(run_dir) / "flaggems-cache" / ("side-" + std::to_string(side))).string();
    variables.push_back(prefix + folder);
    sides[side]["variables"] = variables;
    sides[side]["flaggems_cache"] = {{"dir", folder}, {"chosen_by", "per side"}, {"existed", false}};
    log.note(side_label(side) + ": FLAGGEMS_CACHE_DIR=" + folder + " (FlagGems' tuner database, one per side, new)");
  }
}

// FlagGems' tuner choices are replayed from the run's record (python/isobench/autotune.py,
// CacheView: the baseline's first worker records each tuner's choice per key, every later
// worker of both sides is handed it): each side gets ISOBENCH_TUNER_REPLAY=1 unless its options or
// the orchestrator's environment give the variable (another value than 1 leaves each side's tuner to
// its own database; a run without do_bench instances does not set it). python.json's side
// records which, as "tuner_replay": {"on", "chosen_by": "default" | "the side's options" |
// "the environment"}; note_tuner_fallbacks adds the instances where replay fell back.
void tuner_replay_choice(std::vector<nlohmann::json>& sides, const Log& log) {
  const std::string prefix = "ISOBENCH_TUNER_REPLAY=";
  for (std::size_t side = 0; side < sides.size(); ++side) {
    std::string given, chosen_by = "the side's options";
    for (const auto& v : sides[side].value("variables", std::vector<std::string>{}))
      if (v.rfind(prefix, 0) == 0) given = v.substr(prefix.size());
    const char* inherited = std::getenv("ISOBENCH_TUNER_REPLAY");
    if (given.empty() && inherited && *inherited) given = inherited, chosen_by = "the environment";
    if (given.empty()) {
      given = "1", chosen_by = "default";
      auto variables = sides[side].value("variables", std::vector<std::string>{});
      variables.push_back(prefix + given);
      sides[side]["variables"] = variables;
    }
    const bool on = given == "1" || given == "on" || given == "yes" || given == "true";
    sides[side]["tuner_replay"] = {{"on", on}, {"chosen_by", chosen_by}};
    if (!on)
      log.note(side_label(side) + ": ISOBENCH_TUNER_REPLAY=" + given + " as given by " + chosen_by +
               ": FlagGems' tuners choose from the side's own database, not the run's record");
  }
}

// How the sides' workers are forked: --zygotes, else per round where every Python benchmark is
// timed on the CPU (the hash seed and address layout a zygote hands its workers move host time,
// and a zygote costs its imports only), per run where one is timed on the GPU (a zygote per round
// would import torch per round; device timings were not moved by the hash seed). python.json's
// "zygotes" with the hash seeds of the rounds.
nlohmann::json zygote_lifetime(const Plan& plan, const PythonOptions& options,
                               const std::vector<nlohmann::json>& sides) {
  bool gpu_timed = false;
  for (const auto& p : plan.instances)
    gpu_timed |= !p.worker.python_module.empty() && p.worker.backend == "cuda";
  gpu_timed |= any_pytest_flag(plan, "timing", "do_bench");  // do_bench times with CUDA events
  const ZygoteLifetime lifetime =
      options.zygotes.value_or(gpu_timed ? ZygoteLifetime::per_run : ZygoteLifetime::per_round);
  nlohmann::json record = {
      {"per", lifetime == ZygoteLifetime::per_round ? "round" : "run"},
      {"chosen_by", options.zygotes  ? "--zygotes"
                    : gpu_timed      ? "default: a Python benchmark is timed on the GPU"
                                     : "default: every Python benchmark is timed on the CPU"}};
  if (lifetime != ZygoteLifetime::per_round) return record;
  // Drawn from the schedule's seed: both sides, and a resumed run, draw the same.
  const std::uint64_t base = plan.schedule.seed ^ 0x5079746831415348ULL;
  record["hash_seed_base"] = base;
  nlohmann::json seeds = nlohmann::json::array();
  for (std::uint32_t round = 0; round < plan.schedule.samples; ++round) seeds.push_back(round_hash_seed(base, round));
  record["hash_seeds"] = seeds;  // by round
  // A PYTHONHASHSEED the user set is kept: each round still gets fresh zygotes (and address
  // layouts), with that seed.
  nlohmann::json kept = nlohmann::json::array();
  for (std::size_t side = 0; side < sides.size(); ++side)
    kept.push_back(nullptr);
  record["environment_hash_seed"] = kept;  // by side; filled by start_python_sides
  return record;
}

// The Python options a command line gave, as typed, refused: "--python P is not taken", else the others.
std::string python_options_not_taken(const PythonOptions& options) {
  if (!options.all.interpreter.empty()) return "--python " + options.all.interpreter + " is not taken";
  for (std::size_t side = 0; side < 2; ++side)
    if (!options.sides[side].interpreter.empty())
      return "--" + std::string(kPythonSideNames[side]) + "-python " + options.sides[side].interpreter +
             " is not taken";
  return "the Python options (--python-env, --python-path, --zygotes, ...) are not taken";
}

// A resumed run measures with the interpreters its python.json records: Python options naming
// others are refused, naming both, and an interpreter that is gone is refused before anything
// is measured (a zygote of another Python would measure another program).
void check_recorded_interpreters(const std::vector<nlohmann::json>& sides, const PythonOptions& options,
                                 const std::string& resume) {
  const auto who = [&](std::size_t side) { return sides.size() > 1 ? std::string(kPythonSideNames[side]) + " " : ""; };
  std::string recorded;
  for (std::size_t side = 0; side < sides.size(); ++side)
    recorded += (recorded.empty() ? "" : ", ") + who(side) + sides[side].value("interpreter", "");
  if (options.any_given())
    throw UsageError(resume + ": " + python_options_not_taken(options) +
                     ": the run measures with the Python environments its python.json records (" + recorded +
                     "); leave the Python options out");
  for (std::size_t side = 0; side < sides.size(); ++side) {
    const std::string interpreter = sides[side].value("interpreter", "");
    std::error_code ec;
    const auto status = fs::status(interpreter, ec);
    const std::string problem = !fs::exists(status)                                                 ? "no such file"
                                : !fs::is_regular_file(status)                                      ? "not a file"
                                : (status.permissions() & fs::perms::owner_exec) == fs::perms::none ? "not executable"
                                                                                                    : "";
    if (!problem.empty())
      throw UsageError(resume + ": python.json: the " + who(side) + "interpreter the run was started with, " +
                       interpreter + ", is gone (" + problem +
                       "); a resumed run measures with it: restore it, or start a new run");
  }
}

// What the zygote of a resumed run says about itself (its Python version and executable, the
// versions of what it imported) against what the run's first zygote said, in python.json: an
// interpreter replaced in place (a venv rebuilt, another pyenv version) is refused before anything
// is measured. `side` 2: the run's only side.
void check_same_python(const nlohmann::json& recorded_side, const nlohmann::json& ready, std::size_t side,
                       const std::string& resume) {
  const auto recorded = recorded_side.value("zygote", nlohmann::json::object());
  const std::string who = side < 2 ? std::string(kPythonSideNames[side]) + " " : "";
  for (const auto& [key, what] : {std::pair{"python", "Python"}, std::pair{"executable", "executable"},
                                  std::pair{"versions", "module versions"}}) {
    if (!recorded.contains(key) || !ready.contains(key) || recorded.at(key) == ready.at(key)) continue;
    const auto text = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
    throw UsageError(resume + ": python.json: the " + who + "interpreter " + recorded_side.value("interpreter", "") +
                     " now runs " + what + " " + text(ready.at(key)) + ", the run was started with " +
                     text(recorded.at(key)) + "; a resumed run measures what it began with: start a new run");
  }
}

}  // namespace

bool has_python(const Plan& plan) {
  for (const auto& p : plan.instances)
    if (!p.worker.python_module.empty()) return true;
  return false;
}

bool any_pytest_flag(const Plan& plan, const char* key, const nlohmann::json& value) {
  for (const auto& p : plan.instances)
    if (p.worker.pytest.is_object() && p.worker.pytest.value(key, nlohmann::json()) == value) return true;
  return false;
}

EarlyZygotes::EarlyZygotes(const PythonOptions& options, const std::vector<std::string>& workers,
                           const std::string& run_dir, const std::string& timing) {
  try {
    std::vector<std::string> caches;
    auto sides = new_sides(workers, workers.size(), options, "", run_dir, caches);
    const std::string own = own_python_package();
    auto with_do_bench = sides;
    bool unused = !run_dir.empty();
    try {
      if (unused) RunDirectory::check_unused(run_dir);
    } catch (const UsageError&) {
      unused = false;  // refused by the run's own check, once the sweep is loaded, as before
    }
    if (timing != "fixture" && unused) {
      per_side_flaggems_cache(with_do_bench, run_dir, Log());  // said by the plan's start, if it has them
      tuner_replay_choice(with_do_bench, Log());
      found_unused_ = run_dir;
    }
    for (std::size_t side = 0; side < sides.size(); ++side) {
      const bool defer = sides[side].value("package", "") == own;
      std::vector<std::string> added;
      if (defer) {
        const auto before = sides[side].value("variables", std::vector<std::string>{});
        for (const auto& v : with_do_bench[side].value("variables", std::vector<std::string>{}))
          if (std::find(before.begin(), before.end(), v) == before.end()) added.push_back(v);
        sides[side] = with_do_bench[side];
      }
      defer_cuda_.push_back(defer);
      do_bench_variables_.push_back(added);
      zygotes_.push_back(std::make_shared<Zygote>(zygote_spec(sides[side], side)));
    }
  } catch (const std::exception&) {
    // No interpreter, no worker library, a malformed option: the plan's start says so in its
    // own words, after what the sweep and the plan refuse first.
    zygotes_.clear();
    found_unused_.clear();
  }
}

std::vector<LogLine> EarlyZygotes::import_pytest(const std::string& file, const std::vector<std::string>& args) {
  std::vector<LogLine> log;
  for (std::size_t side = 0; side < zygotes_.size(); ++side) {
    zygotes_[side]->import_pytest(file, args, defer_cuda_[side]);
    log.push_back({utc_timestamp(), "zygote-early",
                   side_label(side) + ": pid " + std::to_string(zygotes_[side]->pid()) +
                       ", started ahead of the plan, imports " + file +
                       (defer_cuda_[side] ? " with CUDA deferred" : "") + " while it is collected"});
  }
  return log;
}

std::shared_ptr<Zygote> EarlyZygotes::take(std::size_t side, const ZygoteSpec& spec, const nlohmann::json& benchmarks,
                                           bool import_in_worker) {
  if (side >= zygotes_.size() || !zygotes_[side]) return nullptr;
  auto& zygote = *zygotes_[side];
  const auto& early = zygote.spec();
  if (early.interpreter != spec.interpreter || early.library != spec.library) return nullptr;
  // A file whose import initialises CUDA, imported plainly (an older build's zygote): it cannot
  // fork a worker that uses CUDA.
  if (import_in_worker && !defer_cuda_[side]) return nullptr;
  if (early.environment != spec.environment) {
    // Started with the do_bench variables for a plan without do_bench instances: taken where
    // nothing read them, and they are taken out again (Zygote::load).
    auto without = early.environment;
    for (const auto& v : do_bench_variables_[side]) std::erase(without, v);
    if (do_bench_variables_[side].empty() || without != spec.environment) return nullptr;
    const auto imported = zygote.imported();
    if (!imported.is_object() || imported.value("flag_gems", true)) return nullptr;
  }
  // An older build's zygote refuses the import request and exits: the plan starts that side anew.
  if (zygote.ended()) return nullptr;
  zygote.load(benchmarks, spec.environment);
  return std::move(zygotes_[side]);
}

std::vector<LogLine> EarlyZygotes::finish() {
  std::vector<LogLine> log;
  for (std::size_t side = 0; side < zygotes_.size(); ++side)
    if (zygotes_[side]) {
      log.push_back({utc_timestamp(), "zygote-early",
                     side_label(side) + ": pid " + std::to_string(zygotes_[side]->pid()) +
                         " stopped: the plan did not take it"});
      zygotes_[side].reset();
    }
  return log;
}

PythonSides start_python_sides(const Plan& plan, const std::vector<std::string>& workers, const PythonOptions& options,
                               const RunDirectory* resumed, const std::string& sweep_path, const Log& log,
                               const std::string& run_dir, EarlyZygotes* early) {
  PythonSides out;
  if (!has_python(plan)) {
    if (options.any_given())
      throw UsageError(sweep_path + ": the Python options (--python, --python-env, ...) are for Python benchmarks, "
                             "and this sweep has none");
    return out;
  }
  std::vector<nlohmann::json> sides;
  if (resumed) {
    try {
      const auto recorded = resumed->read_json("python.json");
      check_schema_version(recorded, resumed->file("python.json"));
      for (const auto& s : recorded.at("sides")) sides.push_back(s);
    } catch (const std::exception& e) {
      throw UsageError(std::string("--resume: ") + e.what());
    }
    check_recorded_interpreters(sides, options, "--resume " + resumed->path());
  } else {
    std::vector<std::string> caches;
    sides = new_sides(workers, plan.schedule.sides, options, sweep_path, run_dir, caches);
    if (!run_dir.empty() && any_pytest_flag(plan, "timing", "do_bench")) {
      per_side_flaggems_cache(sides, run_dir, log);
      tuner_replay_choice(sides, log);
    }
    // Folders of the sides' own environments are shared only by equal environments; folders the
    // user gave are shared whatever the sides' settings.
    if (caches.size() == 2 && !caches[0].empty() && caches[0] == caches[1])
      log.warning("both sides compile Triton kernels into " + caches[0] + " (TRITON_CACHE_DIR): a compiler switch "
                  "that is not part of Triton's cache key would reach both; leave TRITON_CACHE_DIR unset, and each "
                  "side gets the folder of its own environment");
  }
  nlohmann::json lifetime;
  if (resumed) {
    // A run from before --zygotes forked from one zygote per side.
    lifetime = resumed->read_json("python.json").value("zygotes", nlohmann::json{{"per", "run"}});
  } else {
    lifetime = zygote_lifetime(plan, options, sides);
  }
  const auto benchmarks = benchmarks_of(plan);
  // An early zygote imported every pytest file of the sweep: one that initialises CUDA on import
  // left it unable to serve any worker unless it imported with CUDA deferred (EarlyZygotes::take).
  const bool import_in_worker = any_pytest_flag(plan, "import_in_worker", true);
  for (std::size_t side = 0; side < sides.size(); ++side) {
    ZygoteSpec spec = zygote_spec(sides[side], side);
    std::shared_ptr<Zygote> zygote = early ? early->take(side, spec, benchmarks, import_in_worker) : nullptr;
    if (!zygote) {
      spec.benchmarks = benchmarks;
      zygote = std::make_shared<Zygote>(spec);
    }
    if (lifetime.value("per", "run") == "round") {
      zygote->fork_per_round(lifetime.at("hash_seed_base").get<std::uint64_t>());
      if (!resumed) {
        const auto kept = environment_hash_seed(spec.environment);
        lifetime["environment_hash_seed"][side] = kept ? nlohmann::json(*kept) : nlohmann::json(nullptr);
      }
    }
    out.zygotes.push_back(std::move(zygote));
  }
  for (std::size_t side = 0; side < out.zygotes.size(); ++side) {
    try {
      out.zygotes[side]->wait_ready();
    } catch (const std::exception& e) {
      const std::string who = sides.size() > 1 ? std::string(kPythonSideNames[side]) + ": " : "";
      throw UsageError(sweep_path + ": " + who + e.what());
    }
    if (resumed)
      check_same_python(sides[side], out.zygotes[side]->ready(), sides.size() > 1 ? side : 2,
                        "--resume " + resumed->path());
  }
  out.record = {{"schema_version", kPythonSchemaVersion}, {"sides", sides}, {"zygotes", lifetime}};
  return out;
}

void attach_python_sides(PythonSides& sides, RunnerOptions& runner, const RunDirectory& dir, RunLog& log,
                         const Log& warnings) {
  if (sides.zygotes.empty()) return;
  for (std::size_t side = 0; side < sides.zygotes.size(); ++side) {
    auto& zygote = *sides.zygotes[side];
    zygote.attach(dir.file("workers.log"), log);
    for (const auto& note : zygote.ready().value("notes", std::vector<std::string>{})) {
      log.write("zygote-note", "side " + std::to_string(side) + ": " + note);
      warnings.warning(note);
    }
    // A file whose import touched CUDA at collection, imported by the zygote with CUDA deferred
    // (python/isobench/deferred_cuda.py); one left to the workers is among the notes above.
    if (const auto deferred = zygote.ready().find("deferred_cuda"); deferred != zygote.ready().end())
      for (const auto& file : deferred->value("files", nlohmann::json::array()))
        if (file.value("imported", false))
          log.write("zygote-deferred-cuda", side_label(side) + ": " + file.value("file", "?") +
                                                " imported with CUDA deferred in " + seconds_text(file, "seconds") +
                                                " s, device facts in " + seconds_text(file, "facts_seconds") + " s");
    auto& recorded = sides.record["sides"][side];
    recorded["zygote"] = zygote.ready();
    recorded["zygote"].erase("op");
    runner.workers.at(side).launcher = sides.zygotes[side];
  }
  dir.write_json("python.json", sides.record);
}

void note_tuner_fallbacks(const RunDirectory& dir, const std::string& artifact_root, const Log& warnings) {
  if (artifact_root.empty() || !dir.exists("python.json") || !dir.exists("plan.json")) return;
  auto python = dir.read_json("python.json");
  if (!python.contains("sides") || !python["sides"].is_array()) return;
  std::vector<std::string> instance_ids;
  for (const auto& p : Plan::from_json(dir.read_json("plan.json")).instances) instance_ids.push_back(p.worker.id);
  bool changed = false;
  std::error_code ec;
  for (std::size_t side = 0; side < python["sides"].size(); ++side) {
    auto& record = python["sides"][side];
    if (!record.contains("tuner_replay")) continue;
    const fs::path side_folder = fs::path(artifact_root) / ("side-" + std::to_string(side));
    std::size_t replayed = 0;
    nlohmann::json fallbacks = nlohmann::json::array();
    std::string listed;
    // By the plan's instances, in plan order: a fallback names the instance by its id, as every
    // other record does, and its artifact folder beside it.
    for (const auto& instance : instance_ids) {
      const std::string folder = ipc::artifact_folder_name(instance);
      const fs::path file = side_folder / folder / "tuner_replay.json";
      if (!fs::is_regular_file(file, ec)) continue;
      std::ifstream in(file);
      const auto replay = nlohmann::json::parse(in, nullptr, false);
      if (replay.is_discarded() || !replay.is_object()) continue;
      if (!replay.value("replayed", nlohmann::json::array()).empty()) ++replayed;
      const auto fell = replay.value("fallbacks", nlohmann::json::array());
      for (const auto& f : fell)
        fallbacks.push_back({{"instance", instance},
                             {"folder", folder},
                             {"kernel", f.value("kernel", "")},
                             {"key", f.value("key", nlohmann::json::array())},
                             {"reason", f.value("reason", "")}});
      if (!fell.empty() && fell[0].is_object())
        listed += (listed.empty() ? "" : "; ") + instance + " (" + fell[0].value("kernel", "") + ": " +
                  fell[0].value("reason", "") + ")";
    }
    record["tuner_replay"]["instances_replayed"] = replayed;
    record["tuner_replay"]["fallbacks"] = fallbacks;
    changed = true;
    if (!fallbacks.empty())
      warnings.warning(side_label(side) + ": FlagGems' tuner replay fell back for " + std::to_string(fallbacks.size()) +
                       (fallbacks.size() == 1 ? " key" : " keys") + ", which ran with the side's own tuning: " + listed +
                       " (python.json, sides[" + std::to_string(side) + "].tuner_replay.fallbacks)");
  }
  if (changed) dir.write_json("python.json", python);
}

}  // namespace isobench::orchestrator
