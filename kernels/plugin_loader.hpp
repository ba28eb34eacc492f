#pragma once
// Users' own kernels from shared libraries that speak include/isobench/plugin.h. The orchestrator
// loads a plugin to read its kernels' specs and validate sweeps (describing never touches CUDA);
// the worker loads the same library to create the benchmarks it measures.

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "benchmark.hpp"
#include "kernel_spec.hpp"

struct isobench_kernel;

namespace isobench::kernels {

// One line that names the library: "plugin libx.so: ABI version 2, this isobench speaks 1",
// "cannot load libx.so: <dlerror>".
class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Plugin {
 public:
  const std::string& path() const { return path_; }
  const std::vector<KernelSpec>& specs() const { return specs_; }
  const KernelSpec* find(const std::string& kernel) const;
  // A fresh benchmark of one of this plugin's kernels; throws PluginError when it has no such
  // kernel or its create() fails.
  std::unique_ptr<Benchmark> create_benchmark(const std::string& kernel) const;

 private:
  friend const Plugin& load_plugin(const std::string& path);
  std::string path_;
  std::vector<KernelSpec> specs_;
  std::vector<const isobench_kernel*> kernels_;  // parallel to specs_
};

// Loads the library at `path` (RTLD_NOW | RTLD_LOCAL), checks its ABI version and descriptors
// and converts them to specs. Each path is loaded once per process and never unloaded: the
// specs call into its code. A kernel may not take the name of a built-in kernel. Throws
// PluginError.
const Plugin& load_plugin(const std::string& path);

}  // namespace isobench::kernels
