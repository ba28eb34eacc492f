#include "plugin_loader.hpp"

#include <dlfcn.h>
#include <isobench/plugin.h>

#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <set>

#include "callback_benchmark.hpp"
#include "catalog.hpp"

namespace isobench::kernels {

namespace {

std::string text_or(const char* s, const char* fallback) { return s ? s : fallback; }

class Converter {
 public:
  explicit Converter(std::string library) : library_(std::move(library)) {}

  [[noreturn]] void fail(const std::string& problem) const { throw PluginError("plugin " + library_ + ": " + problem); }

  AxisSpec axis(const isobench_kernel& k, const isobench_axis& a) const {
    const std::string where = "kernel " + std::string(k.name) + ": axis " + text_or(a.name, "(null)");
    if (!a.name || !*a.name) fail("kernel " + std::string(k.name) + ": an axis has no name");
    AxisSpec out;
    out.name = a.name;
    out.help = text_or(a.help, "");
    switch (a.type) {
      case ISOBENCH_AXIS_INTEGER:
        out.type = AxisType::integer;
        break;
      case ISOBENCH_AXIS_NUMBER:
        out.type = AxisType::number;
        break;
      case ISOBENCH_AXIS_STRING:
        out.type = AxisType::string;
        break;
      case ISOBENCH_AXIS_BOOLEAN:
        out.type = AxisType::boolean;
        break;
      default:
        fail(where + ": unknown type " + std::to_string(static_cast<int>(a.type)));
    }
    if (a.n_choices > 0) {
      if (out.type != AxisType::string) fail(where + ": choices are for string axes only");
      if (!a.choices) fail(where + ": n_choices is " + std::to_string(a.n_choices) + " but choices is NULL");
      for (std::size_t i = 0; i < a.n_choices; ++i) {
        if (!a.choices[i]) fail(where + ": choice " + std::to_string(i) + " is NULL");
        out.choices.emplace_back(a.choices[i]);
      }
    }
    if (a.min < a.max) {
      out.min = a.min;
      out.max = a.max;
    } else {
      out.min = std::numeric_limits<double>::lowest();
      out.max = std::numeric_limits<double>::max();
    }
    if (a.default_json) {
      auto value = nlohmann::json::parse(a.default_json, nullptr, /*allow_exceptions=*/false);
      if (value.is_discarded()) fail(where + ": default is not JSON: " + a.default_json);
      if (auto problem = check_value(out, value); !problem.empty()) fail(where + ": default " + problem);
      out.default_value = std::move(value);
    }
    return out;
  }

  KernelSpec spec(const isobench_kernel& k) const {
    if (!k.name || !*k.name) fail("a kernel has no name");
    const std::string name = k.name;
    if (!k.create || !k.setup || !k.launch) fail("kernel " + name + ": create, setup and launch are required");
    if (k.backend != ISOBENCH_BACKEND_CPU && k.backend != ISOBENCH_BACKEND_CUDA)
      fail("kernel " + name + ": unknown backend " + std::to_string(static_cast<int>(k.backend)));
    if (k.n_axes > 0 && !k.axes)
      fail("kernel " + name + ": n_axes is " + std::to_string(k.n_axes) + " but axes is NULL");
    KernelSpec s;
    s.name = name;
    s.family = text_or(k.family, "plugin");
    s.backend = k.backend == ISOBENCH_BACKEND_CUDA ? Backend::cuda : Backend::cpu;
    s.description = text_or(k.description, "");
    std::set<std::string> axis_names;
    for (std::size_t i = 0; i < k.n_axes; ++i) {
      s.axes.push_back(axis(k, k.axes[i]));
      if (!axis_names.insert(s.axes.back().name).second)
        fail("kernel " + name + ": axis " + s.axes.back().name + " is declared twice");
    }
    if (auto* f = k.bytes_per_launch) s.bytes_per_launch = [f](const Params& p) { return f(p.dump().c_str()); };
    if (auto* f = k.flops_per_launch) s.flops_per_launch = [f](const Params& p) { return f(p.dump().c_str()); };
    return s;
  }

 private:
  std::string library_;
};

}  // namespace

const KernelSpec* Plugin::find(const std::string& kernel) const {
  for (const auto& s : specs_)
    if (s.name == kernel) return &s;
  return nullptr;
}

std::unique_ptr<Benchmark> Plugin::create_benchmark(const std::string& kernel) const {
  for (std::size_t i = 0; i < specs_.size(); ++i)
    if (specs_[i].name == kernel)
      return make_callback_benchmark({.kernel = kernels_[i],
                                      .backend = specs_[i].backend,
                                      .origin = "plugin " + std::filesystem::path(path_).filename().string(),
                                      .describe = {{"plugin", path_}}});
  throw PluginError("plugin " + std::filesystem::path(path_).filename().string() + " has no kernel " + kernel);
}

const Plugin& load_plugin(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, Plugin> loaded;
  std::lock_guard lock(mutex);
  if (auto it = loaded.find(path); it != loaded.end()) return it->second;

  const std::string library = std::filesystem::path(path).filename().string();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* error = dlerror();
    throw PluginError("cannot load " + library + ": " + (error ? error : "unknown error"));
  }
  // Any failure below leaves the library loaded; a process that saw a bad plugin stops anyway.
  using VersionFn = int (*)();
  using DescribeFn = const isobench_plugin* (*)();
  auto symbol = [&](const char* name) {
    void* p = dlsym(handle, name);
    if (!p) throw PluginError("plugin " + library + ": missing symbol " + name);
    return p;
  };
  const int version = reinterpret_cast<VersionFn>(symbol("isobench_plugin_abi_version"))();
  if (version != ISOBENCH_PLUGIN_ABI_VERSION)
    throw PluginError("plugin " + library + ": ABI version " + std::to_string(version) + ", this isobench speaks " +
                      std::to_string(ISOBENCH_PLUGIN_ABI_VERSION));
  const isobench_plugin* described = reinterpret_cast<DescribeFn>(symbol("isobench_plugin_describe"))();
  Converter convert(library);
  if (!described) convert.fail("isobench_plugin_describe returned NULL");
  if (described->n_kernels == 0 || !described->kernels) convert.fail("describes no kernels");

  Plugin plugin;
  plugin.path_ = path;
  std::set<std::string> names;
  for (std::size_t i = 0; i < described->n_kernels; ++i) {
    const isobench_kernel& k = described->kernels[i];
    KernelSpec spec = convert.spec(k);
    if (find_kernel(spec.name)) convert.fail("kernel " + spec.name + " has the name of a built-in kernel; rename it");
    if (!names.insert(spec.name).second) convert.fail("kernel " + spec.name + " is described twice");
    plugin.specs_.push_back(std::move(spec));
    plugin.kernels_.push_back(&k);
  }
  return loaded.emplace(path, std::move(plugin)).first->second;
}

}  // namespace isobench::kernels
