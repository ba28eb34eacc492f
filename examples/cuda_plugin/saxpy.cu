// An isobench plugin with one CUDA kernel: y = a * x + y on n floats. launch() only enqueues
// on the stream isobench gives to setup(); the worker times that stream with CUDA events.
// Describing touches no CUDA: the orchestrator loads this library to validate sweeps.

#include <cuda_runtime.h>
#include <isobench/plugin.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace {

bool json_integer(const char* json, const char* key, long long& out) {
  char quoted[64];
  std::snprintf(quoted, sizeof quoted, "\"%s\":", key);
  const char* at = std::strstr(json, quoted);
  if (!at) return false;
  char* end = nullptr;
  out = std::strtoll(at + std::strlen(quoted), &end, 10);
  return end != at + std::strlen(quoted);
}

__global__ void saxpy(long long n, float a, const float* x, float* y) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    y[i] = a * x[i] + y[i];
}

struct Saxpy {
  long long n = 0;
  float* x = nullptr;
  float* y = nullptr;
  cudaStream_t stream = nullptr;
};

void* create() { return new (std::nothrow) Saxpy(); }
void destroy(void* self) { delete static_cast<Saxpy*>(self); }

int fail(char* error, size_t error_len, const char* what, cudaError_t e) {
  std::snprintf(error, error_len, "%s: %s", what, cudaGetErrorString(e));
  return 1;
}

int setup(void* self, const char* params_json, void* cuda_stream, std::uint64_t seed, char* error, size_t error_len) {
  auto& s = *static_cast<Saxpy*>(self);
  if (!json_integer(params_json, "n", s.n)) {
    std::snprintf(error, error_len, "expected n in %s", params_json);
    return 1;
  }
  s.stream = static_cast<cudaStream_t>(cuda_stream);
  const size_t bytes = static_cast<size_t>(s.n) * sizeof(float);
  if (auto e = cudaMalloc(&s.x, bytes); e != cudaSuccess) return fail(error, error_len, "cudaMalloc x", e);
  if (auto e = cudaMalloc(&s.y, bytes); e != cudaSuccess) return fail(error, error_len, "cudaMalloc y", e);
  std::vector<float> host(static_cast<size_t>(s.n));
  std::uint64_t r = seed | 1;
  for (auto& v : host) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    v = static_cast<float>(r >> 40) / static_cast<float>(1ull << 24);
  }
  if (auto e = cudaMemcpy(s.x, host.data(), bytes, cudaMemcpyHostToDevice); e != cudaSuccess)
    return fail(error, error_len, "cudaMemcpy x", e);
  if (auto e = cudaMemcpy(s.y, host.data(), bytes, cudaMemcpyHostToDevice); e != cudaSuccess)
    return fail(error, error_len, "cudaMemcpy y", e);
  return 0;
}

int launch(void* self) {
  auto& s = *static_cast<Saxpy*>(self);
  const int threads = 256;
  const long long blocks = (s.n + threads - 1) / threads;
  saxpy<<<static_cast<unsigned>(blocks < 65535 ? blocks : 65535), threads, 0, s.stream>>>(s.n, 1.0001f, s.x, s.y);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

void teardown(void* self) {
  auto& s = *static_cast<Saxpy*>(self);
  cudaFree(s.x);
  cudaFree(s.y);
  s.x = s.y = nullptr;
}

std::uint64_t bytes_per_launch(const char* params_json) {
  long long n = 0;
  return json_integer(params_json, "n", n) ? static_cast<std::uint64_t>(n) * 3 * sizeof(float) : 0;
}

std::uint64_t flops_per_launch(const char* params_json) {
  long long n = 0;
  return json_integer(params_json, "n", n) ? static_cast<std::uint64_t>(n) * 2 : 0;
}

// In the order of the fields of include/isobench/plugin.h (this file is C++17: CUDA).
const isobench_axis kAxes[] = {
    // name, type, default, choices, n_choices, min, max, help
    {"n", ISOBENCH_AXIS_INTEGER, "16777216", nullptr, 0, 1, 4e9, "vector length (floats)"},
};

const isobench_kernel kKernels[] = {{
    "example_saxpy_cuda",       // name
    "saxpy",                    // family
    ISOBENCH_BACKEND_CUDA,      // backend
    "y = a*x + y on n floats",  // description
    kAxes, 1,                   // axes
    create, setup, launch, teardown, destroy,
    bytes_per_launch, flops_per_launch,
    nullptr,  // check
}};

const isobench_plugin kPlugin = {"isobench example CUDA plugin", kKernels, 1};

}  // namespace

extern "C" int isobench_plugin_abi_version(void) { return ISOBENCH_PLUGIN_ABI_VERSION; }
extern "C" const isobench_plugin* isobench_plugin_describe(void) { return &kPlugin; }
