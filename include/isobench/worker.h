/* isobench worker as a library (libisobench-worker.so): the worker's main loop, callable from a
 * process that registered kernels of its own. The Python zygote (python/isobench/) drives it
 * through ctypes: its forked children register the benchmarks' set-up functions as kernels and
 * run the worker, so a Python benchmark is timed by the same timers, over the same lane
 * protocol, as a built-in kernel (docs/python.md).
 *
 * A kernel is registered under a key, "MODULE:FUNCTION" for the Python benchmark of that module
 * and function (an instance's python_module and python_function in plan.json). The worker makes
 * every such instance with the kernel registered for its key; an instance whose key nobody
 * registered fails its worker with a reason naming the key.
 *
 * A registered kernel's backend field is not read: the instance says whether it is a CPU or a
 * CUDA benchmark (the sweep's device:), and setup() gets the worker's stream for CUDA instances,
 * NULL for CPU ones.
 */
#ifndef ISOBENCH_WORKER_H
#define ISOBENCH_WORKER_H

#include <isobench/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ISOBENCH_WORKER_API_VERSION 2

typedef struct isobench_registered_kernel {
  const isobench_kernel* kernel; /* create, setup, launch, teardown, destroy, check: as in plugin.h */
  /* Optional: why the last launch() of `self` failed, one NUL-terminated line into `error` (at
   * most error_len bytes); the worker's failure then carries it. */
  void (*launch_error)(void* self, char* error, size_t error_len);
  /* Optional: what setup() of `self` chose (a Triton autotune configuration per key), a JSON
   * object as NUL-terminated text into `out` (at most out_len bytes); returns 0, non-zero when it
   * does not fit. The run pins the first worker's answer and hands it to every later set-up of
   * the instance, on both sides of an A/B run, through replay(). */
  int (*describe)(void* self, char* out, size_t out_len);
  /* Optional: the pinned choice (a describe() of an earlier worker, JSON text), called before
   * setup() when the run has one for the instance. */
  void (*replay)(void* self, const char* choice_json);
} isobench_registered_kernel;

ISOBENCH_PLUGIN_EXPORT int isobench_worker_api_version(void);

/* Registers `kernel` under `key` for this process; the structures must stay valid while the
 * process runs workers. Returns 0, or non-zero with a one-line reason in `error` (a key given
 * twice, a kernel without create, setup or launch). */
ISOBENCH_PLUGIN_EXPORT int isobench_worker_register(const char* key, const isobench_registered_kernel* kernel,
                                                    char* error, size_t error_len);

/* The worker: the arguments isobench-worker takes (argv[0] is the program's name). Returns the
 * exit code isobench-worker would exit with. */
ISOBENCH_PLUGIN_EXPORT int isobench_worker_main(int argc, char** argv);

#ifdef __cplusplus
}
#endif

#endif /* ISOBENCH_WORKER_H */
