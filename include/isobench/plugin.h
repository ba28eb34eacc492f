/* isobench plugin ABI: users' own kernels, loaded by isobench at run time.
 *
 * A plugin is a shared library that exports two functions with C linkage:
 *
 *   int isobench_plugin_abi_version(void);                  returns ISOBENCH_PLUGIN_ABI_VERSION
 *   const isobench_plugin* isobench_plugin_describe(void);  the plugin's kernels
 *
 * isobench calls isobench_plugin_abi_version() first and refuses a plugin built against another
 * version of this header, before it reads any structure. Describing must be cheap and must not
 * touch CUDA: the orchestrator (which never initialises CUDA) loads plugins to validate sweeps.
 * The descriptors must stay valid for as long as the library is loaded (static storage).
 *
 * For every instance it measures, the worker calls create(), then setup() once with the
 * instance's parameters, then launch() many times (warm-up, calibration, samples), then
 * teardown() and destroy(). launch() of a CPU kernel runs synchronously; launch() of a CUDA
 * kernel enqueues on the stream given to setup() and must not synchronise: the worker times
 * the stream with CUDA events.
 *
 * docs/plugins.md walks through writing one; examples/cpu_plugin and examples/cuda_plugin are
 * complete plugins.
 */
#ifndef ISOBENCH_PLUGIN_H
#define ISOBENCH_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ISOBENCH_PLUGIN_ABI_VERSION 1

/* Exported even when the plugin is built with -fvisibility=hidden. */
#if defined(__GNUC__)
#define ISOBENCH_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define ISOBENCH_PLUGIN_EXPORT
#endif

typedef enum isobench_backend {
  ISOBENCH_BACKEND_CPU = 0,  /* launch() runs on the calling thread; timed with the CPU clock */
  ISOBENCH_BACKEND_CUDA = 1  /* launch() enqueues on the setup stream; timed with CUDA events */
} isobench_backend;

typedef enum isobench_axis_type {
  ISOBENCH_AXIS_INTEGER = 0,
  ISOBENCH_AXIS_NUMBER = 1,
  ISOBENCH_AXIS_STRING = 2,
  ISOBENCH_AXIS_BOOLEAN = 3
} isobench_axis_type;

/* One parameter of a kernel; sweeps give it values under `axes:`. */
typedef struct isobench_axis {
  const char* name;          /* [a-z0-9_]+, unique within the kernel */
  isobench_axis_type type;
  const char* default_json;  /* the default as JSON text ("1024", "1.5", "\"bf16\"", "true"); NULL: required */
  const char* const* choices;  /* strings only: the allowed values; NULL or n_choices 0: any string */
  size_t n_choices;
  double min, max;           /* integers and numbers: bounds, inclusive; ignored unless min < max */
  const char* help;          /* one line, may be NULL */
} isobench_axis;

/* One kernel. `self` is the plugin's own state, made by create(). Every function that can fail
 * returns 0 on success and non-zero on failure; those given an error buffer write a one-line,
 * NUL-terminated reason into it (at most error_len bytes, terminator included). */
typedef struct isobench_kernel {
  const char* name;          /* the kernel's name in sweeps and instance ids; must not clash with a built-in */
  const char* family;        /* e.g. "stencil"; may be NULL ("plugin") */
  isobench_backend backend;
  const char* description;   /* one line, may be NULL */
  const isobench_axis* axes;
  size_t n_axes;

  void* (*create)(void);     /* required; NULL means out of memory */
  /* required. params_json: a JSON object with every axis (defaults filled in), e.g.
   * {"n":65536,"steps":20}. cuda_stream: the cudaStream_t to launch on (CUDA kernels), NULL for
   * CPU kernels. seed: fill inputs from it (same seed, same inputs, on both sides of an A/B). */
  int (*setup)(void* self, const char* params_json, void* cuda_stream, uint64_t seed, char* error,
               size_t error_len);
  int (*launch)(void* self); /* required: one launch of the kernel */
  void (*teardown)(void* self);  /* optional: frees what setup() made */
  void (*destroy)(void* self);   /* optional: frees what create() made */

  /* Optional, for throughput columns; 0 = unknown. Must not touch CUDA (the orchestrator calls them). */
  uint64_t (*bytes_per_launch)(const char* params_json);
  uint64_t (*flops_per_launch)(const char* params_json);
  /* Optional: compares the last launch's output with a reference; 0 when it agrees. */
  int (*check)(void* self, char* error, size_t error_len);
} isobench_kernel;

typedef struct isobench_plugin {
  const char* name;          /* the plugin's own name, for messages; may be NULL */
  const isobench_kernel* kernels;
  size_t n_kernels;
} isobench_plugin;

/* What a plugin exports (declared here so a plugin's definitions are checked against them). */
ISOBENCH_PLUGIN_EXPORT int isobench_plugin_abi_version(void);
ISOBENCH_PLUGIN_EXPORT const isobench_plugin* isobench_plugin_describe(void);

#ifdef __cplusplus
}
#endif

#endif /* ISOBENCH_PLUGIN_H */
