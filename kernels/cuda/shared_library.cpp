#include "shared_library.hpp"

#include <dlfcn.h>

namespace isobench::kernels::cuda {

void* open_shared_library(const std::string& stem, int major, const std::string& needed_by,
                          std::initializer_list<const char*> fallback_dirs) {
  const std::string versioned = stem + ".so." + std::to_string(major);
  if (void* handle = dlopen(versioned.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  for (const char* dir : fallback_dirs)
    if (void* handle = dlopen((std::string(dir) + "/" + versioned).c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  const char* why = dlerror();
  throw std::runtime_error("cannot load " + versioned + " (needed by " + needed_by + "): " +
                           (why ? why : "not found") + "; set LD_LIBRARY_PATH to the folder that holds it");
}

void* find_symbol(void* library, const char* library_name, const char* symbol) {
  void* address = dlsym(library, symbol);
  if (!address) throw std::runtime_error(std::string(library_name) + " has no symbol " + symbol);
  return address;
}

}  // namespace isobench::kernels::cuda
