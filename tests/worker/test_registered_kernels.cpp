// Kernels registered with the worker itself (worker/registered_kernels.hpp and the C API of
// include/isobench/worker.h), with C callbacks standing in for the Python zygote's: an instance
// is made from the kernel registered for its module and function, a CPU instance never sees the
// worker's stream, and a launch that fails says why, naming the instance.
#include <doctest/doctest.h>
#include <isobench/worker.h>

#include <cstring>
#include <string>

#include "worker/registered_kernels.hpp"

using isobench::worker::make_registered_benchmark;
using isobench::worker::register_kernel;

namespace {

struct State {
  void* stream = reinterpret_cast<void*>(1);  // what setup() was given
  std::uint64_t seed = 0;
  std::string params;
  int launches = 0;
  int fail_launch = 0;  // the return code of launch(); 0: succeed
  int teardowns = 0;
};
State state;

void* create() { return &state; }
int setup(void*, const char* params_json, void* stream, std::uint64_t seed, char*, size_t) {
  state.stream = stream;
  state.seed = seed;
  state.params = params_json;
  return 0;
}
int launch(void*) {
  ++state.launches;
  return state.fail_launch;
}
void teardown(void*) { ++state.teardowns; }
void launch_error(void*, char* error, size_t error_len) {
  std::strncpy(error, "RuntimeError: boom (at k.py:3)", error_len - 1);
}

const isobench_kernel kKernel = {
    .name = "k.py:f", .create = create, .setup = setup, .launch = launch, .teardown = teardown};
const isobench_registered_kernel kWithReason = {.kernel = &kKernel, .launch_error = launch_error};
const isobench_registered_kernel kWithoutReason = {.kernel = &kKernel, .launch_error = nullptr};

isobench::ipc::WorkerInstance instance(const std::string& module, const std::string& backend) {
  return {.id = "f[n=3]", .kernel = "f", .backend = backend, .params = {{"n", 3}}, .python_module = module,
          .python_function = "f"};
}

}  // namespace

TEST_CASE("an instance is made from the kernel registered for MODULE:FUNCTION") {
  register_kernel("/k.py:f", kWithReason);
  state = {};
  auto bench = make_registered_benchmark(instance("/k.py", "cpu"));
  isobench::kernels::SetupContext ctx;
  ctx.seed = 42;
  ctx.cuda_stream = reinterpret_cast<void*>(0x1234);  // a worker that also runs CUDA instances has one
  bench->setup({{"n", 3}}, ctx);
  CHECK(state.stream == nullptr);  // a CPU instance gets none
  CHECK(state.seed == 42);
  CHECK(state.params == R"({"n":3})");
  bench->launch();
  CHECK(state.launches == 1);
  bench.reset();
  CHECK(state.teardowns == 1);

  // The same kernel for a CUDA instance gets the worker's stream.
  state = {};
  auto cuda = make_registered_benchmark(instance("/k.py", "cuda"));
  cuda->setup({{"n", 3}}, ctx);
  CHECK(state.stream == reinterpret_cast<void*>(0x1234));
}

TEST_CASE("a failed launch names the instance, the kernel and the reason the kernel gives") {
  register_kernel("/reason.py:f", kWithReason);
  register_kernel("/code.py:f", kWithoutReason);
  state = {};
  state.fail_launch = 2;
  auto with = make_registered_benchmark(instance("/reason.py", "cpu"));
  with->setup({{"n", 3}}, {});
  CHECK_THROWS_WITH(with->launch(), "f[n=3]: k.py:f launch failed: RuntimeError: boom (at k.py:3)");
  auto without = make_registered_benchmark(instance("/code.py", "cpu"));
  without->setup({{"n", 3}}, {});
  CHECK_THROWS_WITH(without->launch(), "f[n=3]: k.py:f launch failed: returned 2");
}

TEST_CASE("a key no kernel was registered for, and registrations that are refused") {
  CHECK_THROWS_WITH(make_registered_benchmark(instance("/nobody.py", "cpu")),
                    "f[n=3]: no kernel is registered for the Python benchmark /nobody.py:f in this process (Python "
                    "benchmarks run in workers forked by a zygote)");
  register_kernel("/twice.py:f", kWithReason);
  CHECK_THROWS_WITH(register_kernel("/twice.py:f", kWithReason), "/twice.py:f: registered twice");
  const isobench_kernel no_launch = {.name = "x", .create = create, .setup = setup};
  CHECK_THROWS_WITH(register_kernel("/x.py:f", {.kernel = &no_launch}),
                    "/x.py:f: a kernel needs a name, create, setup and launch");
}

TEST_CASE("the C API: version, registration errors as text, the worker's exit codes") {
  CHECK(isobench_worker_api_version() == ISOBENCH_WORKER_API_VERSION);
  char error[64];
  CHECK(isobench_worker_register("/c.py:f", &kWithReason, error, sizeof error) == 0);
  CHECK(isobench_worker_register("/c.py:f", &kWithReason, error, sizeof error) == 1);
  CHECK(std::string(error) == "/c.py:f: registered twice");
  CHECK(isobench_worker_register(nullptr, &kWithReason, error, sizeof error) == 1);
  // The worker's own command line: no segment is a usage error, a segment that does not exist a
  // failed worker.
  char program[] = "isobench-worker", segment[] = "--segment", name[] = "isobench-no-such-segment";
  char* no_segment[] = {program, nullptr};
  CHECK(isobench_worker_main(1, no_segment) == 2);
  char* missing[] = {program, segment, name, nullptr};
  CHECK(isobench_worker_main(3, missing) == 3);
}
