// isobench's built-in CUDA kernels behind a small C API, for timing harnesses in other languages:
// bench/gpu/same_kernel_timings.py times exactly the kernels isobench times (same code, same
// inputs from the same seed, same cuBLASLt algorithm) with triton.testing, so the two tools'
// numbers differ only by how they time. Not part of the product: a shared library for that
// comparison, built beside the worker.

#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

#include "kernels/benchmark.hpp"
#include "kernels/catalog.hpp"
#include "kernels/error_buffer.hpp"

namespace {

struct Handle {
  std::unique_ptr<isobench::kernels::Benchmark> bench;
  std::string description;
};

}  // namespace

extern "C" {

// Sets up `kernel` with `params_json` (axes not given take their defaults) on `cuda_stream`,
// inputs from `seed`, replaying `replay_json` (an instance_reports.json "describe" object, or
// NULL). Returns NULL with a one-line reason in `error` on failure.
__attribute__((visibility("default"))) void* isobench_capi_create(const char* kernel, const char* params_json,
                                                                  void* cuda_stream, std::uint64_t seed,
                                                                  const char* replay_json, char* error,
                                                                  std::size_t error_len) {
  try {
    const auto* spec = isobench::kernels::find_kernel(kernel);
    if (!spec) throw std::runtime_error(std::string("unknown kernel ") + kernel);
    isobench::kernels::Params params;
    const auto problem = isobench::kernels::complete_params(*spec, nlohmann::json::parse(params_json), params);
    if (!problem.empty()) throw std::runtime_error(problem);
    auto handle = std::make_unique<Handle>();
    handle->bench = isobench::kernels::create_benchmark(kernel);
    if (!handle->bench) throw std::runtime_error(std::string(kernel) + " is not in this build");
    isobench::kernels::SetupContext ctx;
    ctx.seed = seed;
    ctx.cuda_stream = cuda_stream;
    if (replay_json && *replay_json) ctx.replay = nlohmann::json::parse(replay_json);
    handle->bench->setup(params, ctx);
    handle->description = handle->bench->describe().dump();
    return handle.release();
  } catch (const std::exception& e) {
    isobench::kernels::write_error_buffer(error, error_len, e.what());
    return nullptr;
  }
}

// One launch, enqueued on the setup stream. 0 on success.
__attribute__((visibility("default"))) int isobench_capi_launch(void* handle) {
  try {
    static_cast<Handle*>(handle)->bench->launch();
    return 0;
  } catch (const std::exception&) {
    return 1;
  }
}

// The kernel's describe() as JSON text (valid until destroy).
__attribute__((visibility("default"))) const char* isobench_capi_describe(void* handle) {
  return static_cast<Handle*>(handle)->description.c_str();
}

__attribute__((visibility("default"))) void isobench_capi_destroy(void* handle) { delete static_cast<Handle*>(handle); }

}  // extern "C"
