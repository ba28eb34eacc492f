#include "orchestrator/recorded_environment.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "orchestrator/json_errors.hpp"

extern char** environ;

namespace isobench::orchestrator {

namespace {

// What a worker measures depends on these, all inherited from orchestrate:
// - which GPU a device index names and how CUDA loads, compiles and launches: CUDA_*
//   (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER, CUDA_LAUNCH_BLOCKING, CUDA_MODULE_LOADING, ...) and
//   NVIDIA_TF32_OVERRIDE (float GEMMs in TF32 or not);
// - the choices of the GPU libraries: CUBLAS_*, CUBLASLT_*, CUDNN_*, NCCL_* (multi-rank groups);
// - which code is loaded and how memory is allocated: LD_LIBRARY_PATH, LD_PRELOAD, LD_BIND_NOW,
//   GLIBC_TUNABLES, MALLOC_*;
// - thread pools: OMP_*, GOMP_*, KMP_*, MKL_*, OPENBLAS_*;
// - Python and what Python benchmarks run on: PYTHON* (the inherited PYTHONPATH, the hash seed,
//   optimisation, the allocator, the GIL), and the compilers' and frameworks' switches: TRITON_*,
//   TORCH_*, TORCHINDUCTOR_*, PYTORCH_*, FLAGGEMS_*, JAX_*, XLA_*, CUPY_*.
// A name after '!' is left out of the prefixes: where the CUDA toolkit is installed (the workers
// are built; a shell that loads another module says nothing of them), and Python's switches for
// its console, byte-code files and debugger, which no timed call reaches. Left out too: what only
// names where files go (HOME, TMPDIR, XDG_*: a Triton cache folder chosen from them is recorded
// with the Python side), and the session's own (SHELL, TERM, SSH_*, ...). The worker builds,
// plugins and interpreters are recorded by their paths and checked apart.
// clang-format off
const std::vector<std::string> kDecidingVariables = {
    "CUDA_*", "!CUDA_HOME", "!CUDA_PATH", "!CUDA_ROOT", "NVIDIA_TF32_OVERRIDE",
    "CUBLAS_*", "CUBLASLT_*", "CUDNN_*", "NCCL_*",
    "LD_LIBRARY_PATH", "LD_PRELOAD", "LD_BIND_NOW", "GLIBC_TUNABLES", "MALLOC_*",
    "OMP_*", "GOMP_*", "KMP_*", "MKL_*", "OPENBLAS_*",
    "PYTHON*", "!PYTHONUNBUFFERED", "!PYTHONDONTWRITEBYTECODE", "!PYTHONIOENCODING", "!PYTHONSTARTUP",
    "!PYTHONBREAKPOINT", "!PYTHONINSPECT", "!PYTHONPYCACHEPREFIX",
    "TRITON_*", "TORCH_*", "TORCHINDUCTOR_*", "PYTORCH_*", "FLAGGEMS_*", "JAX_*", "XLA_*", "CUPY_*"};
// clang-format on

bool matches(const std::string& name, const std::string& pattern) {
  if (!pattern.empty() && pattern.back() == '*')
    return name.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
  return name == pattern;
}

// Whether a name is one of `patterns` and not one they leave out ("!NAME").
bool considered(const std::vector<std::string>& patterns, const std::string& name) {
  bool in = false;
  for (const auto& p : patterns) {
    if (!p.empty() && p.front() == '!' && p.compare(1, std::string::npos, name) == 0) return false;
    in = in || matches(name, p);
  }
  return in;
}

// The environment orchestrate was started with, taken before main() runs.
const std::map<std::string, std::string>& started_environment() {
  static const std::map<std::string, std::string> at_start = [] {
    std::map<std::string, std::string> vars;
    for (char** e = environ; *e; ++e)
      if (const char* eq = std::strchr(*e, '=')) vars.emplace(std::string(*e, static_cast<std::size_t>(eq - *e)), std::string(eq + 1));
    return vars;
  }();
  return at_start;
}
[[maybe_unused]] const auto& kTakenAtStart = started_environment();

// A value as it can stand in one line: as it is, or quoted as JSON where it holds a control
// character.
std::string shown(const std::string& value) {
  const bool plain = std::none_of(value.begin(), value.end(),
                                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
  return plain ? value : nlohmann::json(value).dump();
}

}  // namespace

nlohmann::json RecordedEnvironment::to_json() const { return {{"considered", considered}, {"values", values}}; }

RecordedEnvironment RecordedEnvironment::from_json(const nlohmann::json& j) {
  try {
    RecordedEnvironment e;
    e.considered = j.at("considered").get<std::vector<std::string>>();
    e.values = j.at("values").get<std::map<std::string, std::string>>();
    return e;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("environment_variables: " + json_error_text(e));
  }
}

std::vector<std::string> deciding_variables(bool path_decides) {
  auto names = kDecidingVariables;
  if (path_decides) names.push_back("PATH");
  return names;
}

bool looked_up_in_path(const std::vector<std::string>& command) {
  return !command.empty() && command.front().find('/') == std::string::npos;
}

RecordedEnvironment record_environment(const std::vector<std::string>& names) {
  RecordedEnvironment e;
  e.considered = names;
  for (const auto& [name, value] : started_environment())
    if (considered(names, name)) e.values[name] = value;
  return e;
}

std::string environment_difference(const RecordedEnvironment& recorded, const std::string& started,
                                   const std::vector<std::string>& not_compared) {
  const RecordedEnvironment now = record_environment(recorded.considered);
  std::map<std::string, std::pair<const std::string*, const std::string*>> both;  // then, now
  for (const auto& [name, value] : recorded.values)
    if (considered(recorded.considered, name)) both[name].first = &value;
  for (const auto& [name, value] : now.values) both[name].second = &value;
  for (const auto& [name, values] : both) {
    const auto [then, here] = values;
    if (std::find(not_compared.begin(), not_compared.end(), name) != not_compared.end()) continue;
    if (then && here && *then == *here) continue;
    const std::string now_text = here ? name + "=" + shown(*here) + " here" : name + " is unset here";
    return now_text + ", " + started + (then ? " with " + name + "=" + shown(*then) : " without it");
  }
  return "";
}

}  // namespace isobench::orchestrator
