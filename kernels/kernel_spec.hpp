#pragma once
// What a kernel is, as the orchestrator sees it: a name, a family, a backend and the axes its
// parameters may take. Pure C++: the orchestrator validates and plans sweeps from these specs
// without loading CUDA. The worker pairs each spec with an implementation (benchmark.hpp).

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isobench::kernels {

enum class Backend { cpu, cuda };
std::string to_string(Backend b);

enum class AxisType { integer, number, string, boolean };
std::string to_string(AxisType t);

// One parameter of a kernel. Integers and numbers are bounded; strings come from `choices`
// when that list is non-empty.
struct AxisSpec {
  std::string name;
  AxisType type = AxisType::integer;
  std::string help;
  std::optional<nlohmann::json> default_value;  // absent: the sweep must give a value
  std::vector<std::string> choices;             // strings only
  double min = 0;                                // integers and numbers only
  double max = 9.0e18;
};

// A parameter set: a JSON object from axis name to value, every axis present (defaults filled).
using Params = nlohmann::json;

struct KernelSpec {
  std::string name;         // "gemm", "cpu_copy"
  std::string family;       // "gemm", "cast", "normalization", "cpu"
  Backend backend = Backend::cpu;
  std::string description;
  std::vector<AxisSpec> axes;
  // Bytes the instance holds on its device (inputs, outputs, workspaces), for memory checks.
  std::function<std::uint64_t(const Params&)> device_bytes;
  // Bytes moved and floating-point operations per launch, for throughput columns (0: unknown).
  std::function<std::uint64_t(const Params&)> bytes_per_launch;
  std::function<std::uint64_t(const Params&)> flops_per_launch;
  // The libraries its set-up opens at run time (gpu_libraries.hpp: "libcublasLt"), checked by
  // the worker before a run that plans it.
  std::vector<std::string> runtime_libraries;

  const AxisSpec* find_axis(const std::string& axis_name) const;
};

// Integers and numbers: whether the axis has a lower or an upper bound. A bound at or beyond
// AxisSpec{}.max (the default max), or its negative, is none.
bool has_min(const AxisSpec& axis);
bool has_max(const AxisSpec& axis);

// The values an axis takes, for people: "1 .. 1048576", ">= 4096", "any integer", "bf16 | fp16",
// "true | false", "any string".
std::string axis_domain(const AxisSpec& axis);

// Checks one value against its axis. Returns an empty string when valid, else the problem
// ("expected an integer, got \"abc\"", "must be at least 1, got 0", "must be one of bf16, fp16").
std::string check_value(const AxisSpec& axis, const nlohmann::json& value);

// Completes `given` with the spec's defaults and checks it. Returns the problem, or empty.
// On success `out` holds every axis in the spec's axis order.
std::string complete_params(const KernelSpec& spec, const nlohmann::json& given, Params& out);

// The stable id of an instance: kernel name and every parameter in the spec's axis order,
// e.g. "gemm[m=4096,n=4096,k=4096,dtype=bf16,trans=tn]". Runs, builds and machines join on it.
std::string instance_id(const KernelSpec& spec, const Params& params);

}  // namespace isobench::kernels
