#include "shared_library.hpp"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace isobench::kernels::cuda {

namespace {

namespace fs = std::filesystem;

// Installed from the wheel, this code sits in <site-packages>/isobench/_build/{bin,lib}/; the
// nvidia-* wheels torch installs keep their libraries in <site-packages>/nvidia/: CUDA 13's
// together in nvidia/cu13/lib, CUDA 12's one package each (nvidia/cublas/lib), NCCL in
// nvidia/nccl/lib. Empty outside a wheel's layout.
std::vector<std::string> wheel_dirs() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&wheel_dirs), &info) || !info.dli_fname) return {};
  std::error_code ec;
  const fs::path self = fs::canonical(info.dli_fname, ec);
  if (ec) return {};
  const fs::path build = self.parent_path().parent_path();
  if (build.filename() != "_build" || build.parent_path().filename() != "isobench") return {};
  const fs::path nvidia = build.parent_path().parent_path() / "nvidia";
  std::vector<std::string> dirs = {(nvidia / ("cu" + std::to_string(CUDART_VERSION / 1000)) / "lib").string()};
  for (const char* package : {"cublas", "nccl"}) dirs.push_back((nvidia / package / "lib").string());
  return dirs;
}

}  // namespace

void* open_shared_library(const std::string& stem, int major, const std::string& needed_by,
                          std::initializer_list<const char*> fallback_dirs) {
  const std::string versioned = stem + ".so." + std::to_string(major);
  if (void* handle = dlopen(versioned.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  const char* first = dlerror();
  const std::string why = first ? first : "not found";
  std::vector<std::string> dirs = wheel_dirs();
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) dirs.push_back(std::string(home) + "/lib64");
  dirs.insert(dirs.end(), fallback_dirs.begin(), fallback_dirs.end());
  std::string looked;
  for (const auto& dir : dirs) {
    if (void* handle = dlopen((dir + "/" + versioned).c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    looked += ", " + dir;
  }
  throw std::runtime_error("cannot load " + versioned + " (needed by " + needed_by +
                           "): not on the loader's path (LD_LIBRARY_PATH, the system's) nor in" + looked.substr(1) +
                           " (" + why + "); set LD_LIBRARY_PATH to the folder that holds it");
}

void* find_symbol(void* library, const char* library_name, const char* symbol) {
  void* address = dlsym(library, symbol);
  if (!address) throw std::runtime_error(std::string(library_name) + " has no symbol " + symbol);
  return address;
}

}  // namespace isobench::kernels::cuda
