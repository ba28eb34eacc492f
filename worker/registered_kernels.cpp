#include "registered_kernels.hpp"

#include <map>
#include <mutex>
#include <stdexcept>

#include "kernels/callback_benchmark.hpp"

namespace isobench::worker {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, isobench_registered_kernel> kernels;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

std::string registered_kernel_key(const ipc::WorkerInstance& instance) {
  return instance.python_module + ":" + instance.python_function;
}

void register_kernel(const std::string& key, const isobench_registered_kernel& kernel) {
  if (key.empty()) throw std::invalid_argument("an empty key");
  const isobench_kernel* k = kernel.kernel;
  if (!k || !k->name || !k->create || !k->setup || !k->launch)
    throw std::invalid_argument(key + ": a kernel needs a name, create, setup and launch");
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  if (!r.kernels.emplace(key, kernel).second) throw std::invalid_argument(key + ": registered twice");
}

std::unique_ptr<kernels::Benchmark> make_registered_benchmark(const ipc::WorkerInstance& instance) {
  const std::string key = registered_kernel_key(instance);
  isobench_registered_kernel kernel{};
  {
    auto& r = registry();
    std::lock_guard lock(r.mutex);
    const auto it = r.kernels.find(key);
    if (it == r.kernels.end())
      throw std::runtime_error(instance.id + ": no kernel is registered for the Python benchmark " + key +
                               " in this process (Python benchmarks run in workers forked by a zygote)");
    kernel = it->second;
  }
  return kernels::make_callback_benchmark({.kernel = kernel.kernel,
                                           .backend = instance.backend == "cuda" ? kernels::Backend::cuda
                                                                                 : kernels::Backend::cpu,
                                           .origin = instance.id,
                                           .launch_error = kernel.launch_error,
                                           .describe_fn = kernel.describe,
                                           .replay_fn = kernel.replay});
}

}  // namespace isobench::worker
