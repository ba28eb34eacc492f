#include "orchestrator/python/python_environment.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "orchestrator/errors.hpp"
#include "orchestrator/sweep/pytest_collection.hpp"

extern char** environ;

namespace isobench::orchestrator {

namespace fs = std::filesystem;

namespace {

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
    const std::string prefix = "--" + std::string(kPythonSideNames[side]);
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

}  // namespace

PythonEnvironment side_environment(const PythonOptions& options, std::size_t side, bool ab) {
  std::string interpreter_flag;
  PythonEnvironment env = merged_environment(options, side, ab, interpreter_flag);
  env.interpreter = find_interpreter(env.interpreter, interpreter_flag);
  return env;
}

nlohmann::json to_json(const PythonEnvironment& env) {
  return {{"interpreter", env.interpreter}, {"variables", env.variables}, {"pythonpath", env.pythonpath}};
}

std::map<std::string, std::string> inherited_environment() {
  std::map<std::string, std::string> vars;
  for (char** e = environ; *e; ++e) {
    const std::string entry(*e);
    const auto eq = entry.find('=');
    if (eq != std::string::npos) vars[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return vars;
}

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
  return any_side_given() || zygotes || !all.interpreter.empty() || !all.variables.empty() || !all.pythonpath.empty();
}

}  // namespace isobench::orchestrator
