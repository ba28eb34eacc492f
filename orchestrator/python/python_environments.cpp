#include "orchestrator/python/python_environments.hpp"

#include "orchestrator/program_output.hpp"
#include "orchestrator/python/pytest_collection.hpp"
#include "orchestrator/sha256.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

extern char** environ;

namespace isobench::orchestrator {

namespace fs = std::filesystem;

namespace {

constexpr int kPythonSchemaVersion = 1;
const char* const kSideNames[2] = {"baseline", "candidate"};

bool has_python(const Plan& plan) {
  for (const auto& p : plan.instances)
    if (!p.worker.python_module.empty()) return true;
  return false;
}

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

void check_variable(const std::string& assignment, const std::string& flag) {
  const auto eq = assignment.find('=');
  bool name_ok = eq != std::string::npos && eq > 0 && !std::isdigit(static_cast<unsigned char>(assignment[0]));
  for (std::size_t i = 0; name_ok && i < eq; ++i)
    name_ok = std::isalnum(static_cast<unsigned char>(assignment[i])) || assignment[i] == '_';
  if (!name_ok) throw UsageError(flag + " " + assignment + ": expected NAME=VALUE");
}

// One side's environment: the side's options (orchestrate ab) over everyone's, folders made
// absolute; `interpreter_flag` the option its interpreter came from. A problem names the option
// it came from.
PythonEnvironment merged_environment(const PythonOptions& options, std::size_t side, bool ab, std::string& interpreter_flag) {
  PythonEnvironment env = options.all;
  interpreter_flag = "--python";
  for (const auto& v : env.variables) check_variable(v, "--python-env");
  if (env.interpreter.empty()) env.interpreter = "python3";
  if (ab) {
    const auto& own = options.sides[side];
    const std::string prefix = "--" + std::string(kSideNames[side]);
    if (!own.interpreter.empty()) {
      env.interpreter = own.interpreter;
      interpreter_flag = prefix + "-python";
    }
    for (const auto& v : own.variables) check_variable(v, prefix + "-env");
    env.variables.insert(env.variables.end(), own.variables.begin(), own.variables.end());
    env.pythonpath.insert(env.pythonpath.begin(), own.pythonpath.begin(), own.pythonpath.end());
  }
  for (auto& dir : env.pythonpath) dir = fs::absolute(dir).lexically_normal().string();
  return env;
}

// The same with the interpreter found.
PythonEnvironment side_environment(const PythonOptions& options, std::size_t side, bool ab) {
  std::string interpreter_flag;
  PythonEnvironment env = merged_environment(options, side, ab, interpreter_flag);
  env.interpreter = find_interpreter(env.interpreter, interpreter_flag);
  return env;
}

nlohmann::json to_json(const PythonEnvironment& env) {
  return {{"interpreter", env.interpreter}, {"variables", env.variables}, {"pythonpath", env.pythonpath}};
}

// The orchestrator's own environment, NAME -> VALUE.
std::map<std::string, std::string> inherited_environment() {
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e; ++e) {
    const std::string entry(*e);
    const auto eq = entry.find('=');
    if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return vars;
}

// The zygote's whole environment: the orchestrator's, the side's variables over it, and
// PYTHONPATH with the build's isobench package first (the zygote must speak this build's
// protocol, whatever isobench a venv has installed), the side's folders, then what it had.
std::vector<std::string> zygote_environment(const PythonEnvironment& env, const std::string& package) {
  std::map<std::string, std::string> vars = inherited_environment();
  for (const auto& v : env.variables) vars[v.substr(0, v.find('='))] = v.substr(v.find('=') + 1);
  std::string path = package;
  for (const auto& dir : env.pythonpath) path += ":" + dir;
  if (const auto it = vars.find("PYTHONPATH"); it != vars.end() && !it->second.empty()) path += ":" + it->second;
  vars["PYTHONPATH"] = path;
  std::vector<std::string> out;
  for (const auto& [name, value] : vars) out.push_back(name + "=" + value);
  return out;
}

// <build>/<relative> for the build whose bin/ holds `worker`.
std::string beside_worker(const std::string& worker, const std::string& relative) {
  return (fs::path(worker).parent_path().parent_path() / relative).lexically_normal().string();
}

// Each side compiles its Triton kernels into the cache folder of its compile environment
// (triton_cache_folder), so that two compilers or two settings never share a compiled kernel and a
// later run of the same environment finds its kernels compiled. A TRITON_CACHE_DIR the user gave
// (the side's options, or the orchestrator's environment) is kept. Returns the folder the user
// gave, or "" when the side got its environment's.
std::string default_triton_cache(PythonEnvironment& env, const std::string& run_dir, std::size_t side) {
  const std::string prefix = std::string(kTritonCacheVariable) + "=";
  std::string given;
  for (const auto& v : env.variables)
    if (v.rfind(prefix, 0) == 0) given = v.substr(prefix.size());
  if (given.empty()) {
    const char* inherited = std::getenv(kTritonCacheVariable);
    if (inherited && *inherited) given = inherited;
  }
  if (!given.empty()) return fs::absolute(given).lexically_normal().string();
  env.variables.push_back(prefix + triton_cache_folder(env, run_dir, side));
  return "";
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

}  // namespace

std::string compile_environment_key(const PythonEnvironment& env) {
  std::string interpreter = env.interpreter.empty() ? "python3" : env.interpreter;
  try {
    interpreter = fs::weakly_canonical(find_interpreter(interpreter, "--python")).string();
  } catch (const std::exception&) {
    // Not found: the zygote's start says so, in one line, before anything runs.
  }
  nlohmann::json described = {{"interpreter", interpreter}, {"pythonpath", nlohmann::json::array()}};
  for (const auto& dir : env.pythonpath) {
    std::error_code ec;
    const auto canonical = fs::weakly_canonical(fs::absolute(dir), ec);
    described["pythonpath"].push_back(ec ? dir : canonical.string());
  }
  const char* inherited_path = std::getenv("PYTHONPATH");
  described["inherited_pythonpath"] = inherited_path ? inherited_path : "";
  const std::string cache_prefix = std::string(kTritonCacheVariable) + "=";
  std::map<std::string, std::string> variables;  // the side's own over the inherited TRITON_*
  for (const auto& [name, value] : inherited_environment())
    if (name.rfind("TRITON_", 0) == 0 && name != kTritonCacheVariable) variables[name] = value;
  for (const auto& v : env.variables)
    if (v.rfind(cache_prefix, 0) != 0) variables[v.substr(0, v.find('='))] = v.substr(v.find('=') + 1);
  described["variables"] = variables;
  return sha256_hex(described.dump()).substr(0, 16);
}

std::string triton_cache_folder(const PythonEnvironment& env, const std::string& run_dir, std::size_t side) {
  const auto run_folder = [&] {
    return (fs::path(run_dir) / kTritonCacheFolder / ("side-" + std::to_string(side))).string();
  };
  fs::path root;
  if (const char* chosen = std::getenv(kTritonCacheRootVariable); chosen && *chosen) {
    if (std::string(chosen) == "run") return run_folder();
    root = fs::absolute(chosen);
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    root = fs::path(xdg) / "isobench" / "triton";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    root = fs::path(home) / ".cache" / "isobench" / "triton";
  } else {
    return run_folder();
  }
  return (root / compile_environment_key(env)).lexically_normal().string();
}

std::string find_interpreter(const std::string& given, const std::string& flag) {
  if (given.find('/') != std::string::npos) {
    const fs::path path = fs::absolute(given).lexically_normal();
    if (::access(path.c_str(), X_OK) != 0) throw UsageError(flag + " " + given + ": not an executable");
    return path.string();
  }
  std::stringstream dirs(std::getenv("PATH") ? std::getenv("PATH") : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const fs::path path = fs::path(dir) / given;
    std::error_code ec;
    if (fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0) return fs::absolute(path).string();
  }
  throw UsageError(flag + " " + given + ": not found in PATH");
}

std::string pytest_collector_python(const PythonOptions& options) {
  return options.sides[0].interpreter.empty() ? options.all.interpreter : options.sides[0].interpreter;
}

std::vector<std::string> pytest_collector_variables(const PythonOptions& options) {
  std::string interpreter_flag;
  const PythonEnvironment env = merged_environment(options, 0, true, interpreter_flag);
  std::vector<std::string> changed;  // what the baseline's zygote would see otherwise than this process
  for (const auto& entry : zygote_environment(env, own_python_package())) {
    const auto eq = entry.find('=');
    const char* now = std::getenv(entry.substr(0, eq).c_str());
    if (!now || entry.compare(eq + 1, std::string::npos, now) != 0) changed.push_back(entry);
  }
  return changed;
}

bool PythonOptions::any_side_given() const {
  for (const auto& s : sides)
    if (!s.interpreter.empty() || !s.variables.empty() || !s.pythonpath.empty()) return true;
  return false;
}

bool PythonOptions::any_given() const {
  return any_side_given() || !all.interpreter.empty() || !all.variables.empty() || !all.pythonpath.empty();
}

void add_python_options(CLI::App& app, PythonOptions& o) {
  app.add_option("--python", o.all.interpreter,
                 "Python benchmarks: the interpreter of the zygote that imports them and forks their workers (default "
                 "python3 from PATH; docs/python.md)");
  app.add_option("--python-env", o.all.variables, "NAME=VALUE in the zygote's environment (Python benchmarks); repeatable");
  app.add_option("--python-path", o.all.pythonpath,
                 "folder put on the zygote's PYTHONPATH (Python benchmarks); repeatable");
}

void add_python_side_options(CLI::App& app, PythonOptions& o) {
  for (std::size_t side = 0; side < 2; ++side) {
    const std::string name = kSideNames[side];
    app.add_option("--" + name + "-python", o.sides[side].interpreter,
                   "the " + name + "'s Python interpreter (Python benchmarks; default --python)");
    app.add_option("--" + name + "-env", o.sides[side].variables,
                   "NAME=VALUE in the " + name + " zygote's environment, over --python-env; repeatable");
    app.add_option("--" + name + "-pythonpath", o.sides[side].pythonpath,
                   "folder on the " + name + " zygote's PYTHONPATH, before --python-path; repeatable");
  }
}

EarlyZygotes::EarlyZygotes(const PythonOptions& options, const std::vector<std::string>& workers,
                           const std::string& run_dir) {
  try {
    std::vector<std::string> caches;
    const auto sides = new_sides(workers, workers.size(), options, "", run_dir, caches);
    for (std::size_t side = 0; side < sides.size(); ++side)
      zygotes_.push_back(std::make_shared<Zygote>(zygote_spec(sides[side], side)));
  } catch (const std::exception&) {
    // No interpreter, no worker library, a malformed option: the plan's start says so in its
    // own words, after what the sweep and the plan refuse first.
    zygotes_.clear();
  }
}

std::vector<LogLine> EarlyZygotes::import_pytest(const std::string& file, const std::vector<std::string>& args) {
  std::vector<LogLine> log;
  for (std::size_t side = 0; side < zygotes_.size(); ++side) {
    zygotes_[side]->import_pytest(file, args);
    log.push_back({utc_timestamp(), "zygote-early",
                   side_label(side) + ": pid " + std::to_string(zygotes_[side]->pid()) +
                       ", started ahead of the plan, imports " + file + " while it is collected"});
  }
  return log;
}

std::shared_ptr<Zygote> EarlyZygotes::take(std::size_t side, const ZygoteSpec& spec) {
  if (side >= zygotes_.size() || !zygotes_[side]) return nullptr;
  const auto& early = zygotes_[side]->spec();
  if (early.interpreter != spec.interpreter || early.environment != spec.environment || early.library != spec.library)
    return nullptr;
  // An older build's zygote refuses the import request and exits: the plan starts that side anew.
  if (zygotes_[side]->ended()) return nullptr;
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
                               const RunDirectory* resumed, const std::string& sweep_path, const std::string& run_dir,
                               EarlyZygotes* early) {
  PythonSides out;
  if (!has_python(plan)) {
    if (options.any_given())
      throw UsageError(sweep_path + ": the Python options (--python, --python-env, ...) are for Python benchmarks, "
                             "and this sweep has none");
    return out;
  }
  std::vector<nlohmann::json> sides;
  if (resumed) {
    if (options.any_given())
      throw UsageError("--resume: the run uses the Python environments its python.json records; the Python "
                             "options are not taken");
    try {
      const auto recorded = resumed->read_json("python.json");
      check_schema_version(recorded, resumed->file("python.json"));
      for (const auto& s : recorded.at("sides")) sides.push_back(s);
    } catch (const std::exception& e) {
      throw UsageError(std::string("--resume: ") + e.what());
    }
  } else {
    std::vector<std::string> caches;
    sides = new_sides(workers, plan.schedule.sides, options, sweep_path, run_dir, caches);
    // Folders of the sides' own environments are shared only by equal environments; folders the
    // user gave are shared whatever the sides' settings.
    if (caches.size() == 2 && !caches[0].empty() && caches[0] == caches[1])
      std::cerr << "warning: both sides compile Triton kernels into " << caches[0] << " (TRITON_CACHE_DIR): a compiler "
                << "switch that is not part of Triton's cache key would reach both; leave TRITON_CACHE_DIR unset, "
                << "and each side gets the folder of its own environment\n";
  }
  const auto benchmarks = benchmarks_of(plan);
  for (std::size_t side = 0; side < sides.size(); ++side) {
    ZygoteSpec spec = zygote_spec(sides[side], side);
    if (auto zygote = early ? early->take(side, spec) : nullptr) {
      zygote->load(benchmarks);
      out.zygotes.push_back(std::move(zygote));
      continue;
    }
    spec.benchmarks = benchmarks;
    out.zygotes.push_back(std::make_shared<Zygote>(std::move(spec)));
  }
  for (std::size_t side = 0; side < out.zygotes.size(); ++side) {
    try {
      out.zygotes[side]->wait_ready();
    } catch (const std::exception& e) {
      const std::string who = sides.size() > 1 ? std::string(kSideNames[side]) + ": " : "";
      throw UsageError(sweep_path + ": " + who + e.what());
    }
  }
  out.record = {{"schema_version", kPythonSchemaVersion}, {"sides", sides}};
  return out;
}

void attach_python_sides(PythonSides& sides, RunnerOptions& runner, const RunDirectory& dir, RunLog& log) {
  if (sides.zygotes.empty()) return;
  for (std::size_t side = 0; side < sides.zygotes.size(); ++side) {
    auto& zygote = *sides.zygotes[side];
    zygote.attach(dir.file("workers.log"), log);
    for (const auto& note : zygote.ready().value("notes", std::vector<std::string>{})) {
      log.write("zygote-note", "side " + std::to_string(side) + ": " + note);
      std::cerr << "warning: " << note << "\n";
    }
    auto& recorded = sides.record["sides"][side];
    recorded["zygote"] = zygote.ready();
    recorded["zygote"].erase("op");
    runner.workers.at(side).launcher = sides.zygotes[side];
  }
  dir.write_json("python.json", sides.record);
}

namespace {

bool has_cubin(const std::string& root) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->path().extension() == ".cubin") return true;
  return false;
}

}  // namespace

SassStep::SassStep(const PythonSides& sides, std::string artifact_root) : artifact_root_(std::move(artifact_root)) {
  if (!sides.record.contains("sides") || sides.record["sides"].empty()) return;
  const auto& side = sides.record["sides"][0];
  interpreter_ = side.value("interpreter", "");
  package_ = side.value("package", "");
}

SassStep::~SassStep() {
  if (thread_.joinable()) thread_.join();
}

void SassStep::start() {
  if (interpreter_.empty() || thread_.joinable()) return;
  thread_ = std::thread([this] {
    // The nice value is a thread's own on Linux, and a process started from this thread inherits
    // it: cuobjdump yields the CPU to the measuring worker's launches.
    ::setpriority(PRIO_PROCESS, 0, 10);
    background_ = pass(true);
  });
}

SassStep::Pass SassStep::pass(bool background) const {
  Pass p;
  std::error_code ec;
  if (interpreter_.empty() || !fs::is_directory(artifact_root_, ec) || !has_cubin(artifact_root_)) return p;
  p.ran = true;
  const auto began = std::chrono::steady_clock::now();
  try {
    const auto answer = run_program(interpreter_, {"-m", "isobench.triton_ir", "sass", artifact_root_}, "",
                                    {"PYTHONPATH=" + package_});
    if (answer.exit_code != 0) throw std::runtime_error("exit " + std::to_string(answer.exit_code) + ": " + first_line(answer.err));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    std::ostringstream line;
    line << first_line(answer.out) << " in " << std::fixed << std::setprecision(2) << seconds << " s"
         << (background ? ", beside the measurement" : "");
    p.line = line.str();
  } catch (const std::exception& e) {
    p.failed = true;
    p.line = e.what();
  }
  return p;
}

void SassStep::finish(RunLog& log) {
  if (thread_.joinable()) thread_.join();
  // A background pass that failed would fail again: said once.
  for (const Pass& p : {background_, background_.failed ? Pass{} : pass(false)}) {
    if (!p.ran) continue;
    if (!p.failed) {
      log.write("sass", p.line);
      continue;
    }
    log.write("sass", "not made: " + p.line);
    std::cerr << "warning: the SASS of the Triton kernels was not made: " << p.line << "\n";
  }
}

}  // namespace isobench::orchestrator
