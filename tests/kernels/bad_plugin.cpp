// Broken plugins for the loader's error paths, one shared library per defined BAD_PLUGIN_*:
//   BAD_PLUGIN_ABI2          exports ABI version 2
//   BAD_PLUGIN_NO_DESCRIBE   exports the version but not isobench_plugin_describe
//   BAD_PLUGIN_CLASH         describes a kernel named like a built-in (cpu_copy)
//   BAD_PLUGIN_BAD_DEFAULT   an axis default that is not JSON
#include <isobench/plugin.h>

namespace {

void* create() { return nullptr; }
int setup(void*, const char*, void*, uint64_t, char*, size_t) { return 1; }
int launch(void*) { return 1; }

#if defined(BAD_PLUGIN_CLASH)
const char* const kName = "cpu_copy";
const char* const kDefault = "1";
#else
const char* const kName = "bad_kernel";
const char* const kDefault = "{not json";
#endif

const isobench_axis kAxes[] = {{"n", ISOBENCH_AXIS_INTEGER, kDefault, nullptr, 0, 1, 100, nullptr}};
const isobench_kernel kKernels[] = {{kName, nullptr, ISOBENCH_BACKEND_CPU, nullptr, kAxes, 1, create, setup, launch,
                                     nullptr, nullptr, nullptr, nullptr, nullptr}};
const isobench_plugin kPlugin = {"bad", kKernels, 1};

}  // namespace

#if defined(BAD_PLUGIN_ABI2)
extern "C" int isobench_plugin_abi_version(void) { return 2; }
#else
extern "C" int isobench_plugin_abi_version(void) { return ISOBENCH_PLUGIN_ABI_VERSION; }
#endif

#if !defined(BAD_PLUGIN_NO_DESCRIBE)
extern "C" const isobench_plugin* isobench_plugin_describe(void) { return &kPlugin; }
#endif
