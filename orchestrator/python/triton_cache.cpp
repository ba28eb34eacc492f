#include "orchestrator/python/triton_cache.hpp"

#include <cstdlib>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "orchestrator/sha256.hpp"

namespace isobench::orchestrator {

namespace fs = std::filesystem;

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

}  // namespace isobench::orchestrator
