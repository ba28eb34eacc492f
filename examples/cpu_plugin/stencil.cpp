// An isobench plugin with one CPU kernel: a 3-point Jacobi stencil over a vector of floats,
// `steps` sweeps per launch. docs/plugins.md walks through it.
//
// EXAMPLE_SLOWDOWN_PCT (a build-time knob) compiles in a real regression: that many percent
// more sweeps per launch. The A/B tests compare libisobench_example_cpu.so with the
// libisobench_example_cpu_slow10.so build of this same file.
//
// When isobench gives it an artifact folder (ISOBENCH_ARTIFACT_DIR), setup() writes the
// configuration it chose there (stencil.config.txt), the way a real plugin would keep its IR or
// autotuning decisions: the run archives it, and `orchestrate compare` lists it when the two
// builds of an A/B chose differently (the slow10 build runs more sweeps per launch).

#include <isobench/plugin.h>

#include <cstdint>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#ifndef EXAMPLE_SLOWDOWN_PCT
#define EXAMPLE_SLOWDOWN_PCT 0
#endif

namespace {

// The value of an integer field of the flat JSON object isobench passes to setup(), e.g.
// {"n":65536,"steps":20}. A real plugin may use any JSON library instead.
bool json_integer(const char* json, const char* key, long long& out) {
  char quoted[64];
  std::snprintf(quoted, sizeof quoted, "\"%s\":", key);
  const char* at = std::strstr(json, quoted);
  if (!at) return false;
  char* end = nullptr;
  out = std::strtoll(at + std::strlen(quoted), &end, 10);
  return end != at + std::strlen(quoted);
}

struct Stencil {
  // Both arrays in one allocation at a fixed distance: with two allocations their distance, and
  // with it 4K aliasing between the loads of one and the stores of the other, changes from one
  // process to the next, and so would the kernel's speed.
  std::vector<float> storage;
  float* a = nullptr;
  float* b = nullptr;
  std::size_t n = 0;
  long long steps = 0;  // sweeps per launch, the compiled-in slowdown included
};

// The configuration this build chose, kept with the run. Returns 0, or 1 with `error` filled.
int write_config_artifact(const Stencil& s, long long steps, char* error, size_t error_len) {
  const char* folder = std::getenv("ISOBENCH_ARTIFACT_DIR");
  if (!folder) return 0;  // not run by isobench, or by a build without artifact folders
  char path[4096];
  std::snprintf(path, sizeof path, "%s/stencil.config.txt", folder);
  std::FILE* f = std::fopen(path, "w");
  if (!f) {
    std::snprintf(error, error_len, "cannot write %s", path);
    return 1;
  }
  std::fprintf(f, "n %zu\nsteps %lld\nsweeps_per_launch %lld\nslowdown_pct %d\n", s.n, steps, s.steps,
               EXAMPLE_SLOWDOWN_PCT);
  if (std::fclose(f) != 0) {
    std::snprintf(error, error_len, "cannot write %s", path);
    return 1;
  }
  return 0;
}

void* create() { return new (std::nothrow) Stencil(); }
void destroy(void* self) { delete static_cast<Stencil*>(self); }

int setup(void* self, const char* params_json, void* /*cuda_stream*/, std::uint64_t seed, char* error,
          size_t error_len) {
  auto& s = *static_cast<Stencil*>(self);
  long long n = 0, steps = 0;
  if (!json_integer(params_json, "n", n) || !json_integer(params_json, "steps", steps)) {
    std::snprintf(error, error_len, "expected n and steps in %s", params_json);
    return 1;
  }
  s.n = static_cast<std::size_t>(n);
  constexpr std::size_t kGap = 256;  // floats between the arrays: 1 KiB, away from a 4 KiB multiple
  s.storage.assign(2 * s.n + kGap, 0.0f);
  s.a = s.storage.data();
  s.b = s.storage.data() + s.n + kGap;
  std::uint64_t x = seed | 1;  // xorshift64: inputs in [0, 1) from the seed
  for (std::size_t i = 0; i < s.n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    s.a[i] = static_cast<float>(x >> 40) / static_cast<float>(1ull << 24);
  }
  std::copy(s.a, s.a + s.n, s.b);
  s.steps = steps + steps * EXAMPLE_SLOWDOWN_PCT / 100;
  return write_config_artifact(s, steps, error, error_len);
}

int launch(void* self) {
  auto& s = *static_cast<Stencil*>(self);
  const std::size_t n = s.n;
  for (long long step = 0; step < s.steps; ++step) {
    const float* in = s.a;
    float* out = s.b;
    for (std::size_t i = 1; i + 1 < n; ++i) out[i] = (in[i - 1] + in[i] + in[i + 1]) * (1.0f / 3.0f);
    std::swap(s.a, s.b);
  }
  return 0;
}

void teardown(void* self) {
  auto& s = *static_cast<Stencil*>(self);
  s.storage = {};
  s.a = s.b = nullptr;
  s.n = 0;
}

std::uint64_t bytes_per_launch(const char* params_json) {
  long long n = 0, steps = 0;
  if (!json_integer(params_json, "n", n) || !json_integer(params_json, "steps", steps)) return 0;
  return static_cast<std::uint64_t>(n * steps * 2 * sizeof(float));  // one read, one write per element
}

std::uint64_t flops_per_launch(const char* params_json) {
  long long n = 0, steps = 0;
  if (!json_integer(params_json, "n", n) || !json_integer(params_json, "steps", steps)) return 0;
  return static_cast<std::uint64_t>(n * steps * 3);
}

// Designated initializers (C++20, or C99) name every field; the ones left out are zero (NULL).
const isobench_axis kAxes[] = {
    {.name = "n",
     .type = ISOBENCH_AXIS_INTEGER,
     .default_json = "65536",
     .min = 3,
     .max = 1e9,
     .help = "vector length (floats)"},
    {.name = "steps",
     .type = ISOBENCH_AXIS_INTEGER,
     .default_json = "20",
     .min = 1,
     .max = 1e6,
     .help = "stencil sweeps per launch"},
};

const isobench_kernel kKernels[] = {{
    .name = "example_stencil",
    .family = "stencil",
    .backend = ISOBENCH_BACKEND_CPU,
    .description = "3-point Jacobi stencil on floats, `steps` sweeps per launch",
    .axes = kAxes,
    .n_axes = sizeof kAxes / sizeof kAxes[0],
    .create = create,
    .setup = setup,
    .launch = launch,
    .teardown = teardown,
    .destroy = destroy,
    .bytes_per_launch = bytes_per_launch,
    .flops_per_launch = flops_per_launch,
    .check = nullptr,
}};

const isobench_plugin kPlugin = {
    .name = "isobench example CPU plugin", .kernels = kKernels, .n_kernels = sizeof kKernels / sizeof kKernels[0]};

}  // namespace

extern "C" int isobench_plugin_abi_version(void) { return ISOBENCH_PLUGIN_ABI_VERSION; }
extern "C" const isobench_plugin* isobench_plugin_describe(void) { return &kPlugin; }
