#include "kernels/gpu_libraries.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace isobench::kernels {

namespace {

namespace fs = std::filesystem;

// Installed from the wheel, this code sits in <site-packages>/isobench/_build/{bin,lib}/; the
// nvidia-* wheels torch installs keep their libraries in <site-packages>/nvidia/: CUDA 13's
// together in nvidia/cu13/lib, CUDA 12's one package each (nvidia/cublas/lib), NCCL in
// nvidia/nccl/lib, CUPTI in nvidia/cuda_cupti/lib (CUDA 12). Empty outside a wheel's layout.
std::vector<std::string> wheel_dirs(int cuda_major) {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&wheel_dirs), &info) || !info.dli_fname) return {};
  std::error_code ec;
  const fs::path self = fs::canonical(info.dli_fname, ec);
  if (ec) return {};
  const fs::path build = self.parent_path().parent_path();
  if (build.filename() != "_build" || build.parent_path().filename() != "isobench") return {};
  const fs::path nvidia = build.parent_path().parent_path() / "nvidia";
  std::vector<std::string> dirs = {(nvidia / ("cu" + std::to_string(cuda_major)) / "lib").string()};
  for (const char* package : {"cublas", "nccl", "cuda_cupti"}) dirs.push_back((nvidia / package / "lib").string());
  return dirs;
}

std::vector<std::string> split_path_list(const char* list) {
  std::vector<std::string> dirs;
  std::stringstream in(list ? list : "");
  for (std::string dir; std::getline(in, dir, ':');)
    if (!dir.empty()) dirs.push_back(dir);
  return dirs;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

std::optional<GpuLibrary> gpu_library(const std::string& stem, int cuda_major) {
  const std::string cuda = std::to_string(cuda_major);
  // CUDA 13's cuBLAS wheel has no suffix (nvidia-cublas-cu13 is an empty, deprecated name).
  const std::string cublas = cuda_major >= 13 ? "nvidia-cublas" : "nvidia-cublas-cu" + cuda;
  if (stem == "libcublasLt") return GpuLibrary{stem, cuda_major, cuda_major, "the GEMM kernels", cublas, {"/usr/local/cuda/lib64"}};
  if (stem == "libcublas")
    return GpuLibrary{stem, cuda_major, cuda_major, "the grouped GEMM kernel", cublas, {"/usr/local/cuda/lib64"}};
  // CUDA 13's wheel is nvidia-cuda-cupti (into nvidia/cu13/lib), CUDA 12's nvidia-cuda-cupti-cu12.
  if (stem == "libcupti")
    return GpuLibrary{stem, cuda_major, cuda_major, "--record-kernels (the kernel recorder)",
                          cuda_major >= 13 ? "nvidia-cuda-cupti" : "nvidia-cuda-cupti-cu" + cuda,
                          {"/usr/local/cuda/lib64", "/usr/local/cuda/extras/CUPTI/lib64"}};
  if (stem == "libnccl")
    return GpuLibrary{stem, 2, cuda_major, "the multi-rank kernels", "nvidia-nccl-cu" + cuda,
                          {"/usr/local/cuda/lib64", "/usr/local/cuda/lib"}};
  return std::nullopt;
}

std::vector<std::string> search_dirs(const GpuLibrary& library) {
  std::vector<std::string> dirs = wheel_dirs(library.cuda_major);
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) dirs.push_back(std::string(home) + "/lib64");
  // Each once: $CUDA_HOME is often /usr/local/cuda, whose lib64 is a fallback too.
  for (const auto& dir : library.fallback_dirs)
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  return dirs;
}

namespace {

// The library opened, or null with `check` saying why.
void* try_open(const GpuLibrary& library, LibraryCheck& check) {
  const std::string name = library.file_name();
  if (void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  const char* first = dlerror();
  const std::string why = first ? first : "not found";
  const std::vector<std::string> dirs = search_dirs(library);
  for (const auto& dir : dirs)
    if (void* handle = dlopen((dir + "/" + name).c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  const std::vector<std::string> others = other_versions(library, dirs);
  check.status = others.empty() ? LibraryStatus::missing : LibraryStatus::other_major;
  check.line = missing_library_line(library, dirs, others, why);
  return nullptr;
}

}  // namespace

void* open_gpu_library(const GpuLibrary& library) {
  LibraryCheck check;
  if (void* handle = try_open(library, check)) return handle;
  throw std::runtime_error(check.line);
}

LibraryCheck check_gpu_library(const GpuLibrary& library) {
  LibraryCheck check;
  try_open(library, check);
  return check;
}

std::vector<std::string> other_versions(const GpuLibrary& library, const std::vector<std::string>& dirs) {
  std::vector<std::string> searched = split_path_list(std::getenv("LD_LIBRARY_PATH"));
  searched.insert(searched.end(), dirs.begin(), dirs.end());
  const std::string prefix = library.stem + ".so.", wanted = library.file_name();
  std::vector<std::string> found;
  for (const auto& dir : searched) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string file = entry.path().filename().string();
      // libcublasLt.so.12, not libcublasLt.so.13.0.1 of the version wanted (a broken link to it, say)
      if (file.rfind(prefix, 0) != 0 || file.rfind(wanted, 0) == 0) continue;
      const std::string path = entry.path().string();
      if (std::find(found.begin(), found.end(), path) == found.end()) found.push_back(path);
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string missing_library_line(const GpuLibrary& library, const std::vector<std::string>& looked_in,
                                 const std::vector<std::string>& others, const std::string& loader_message) {
  const std::string name = library.file_name(), cuda = std::to_string(library.cuda_major);
  std::string line = name + " not found (needed by " + library.needed_by + ", built against CUDA " + cuda + "); ";
  if (others.empty()) {
    line += "not on the loader's path (LD_LIBRARY_PATH, the system's)" +
            (looked_in.empty() ? std::string() : " nor in " + joined(looked_in)) + " (" + loader_message + ")";
  } else {
    std::vector<std::string> described;
    for (const auto& path : others) {
      const fs::path p(path);
      described.push_back(p.filename().string() + " in " + p.parent_path().string());
    }
    line += "found " + joined(described) + ", another major version, which this build cannot use";
  }
  return line + ": pip install " + library.package + " (CUDA " + cuda + "), or install a CUDA " + cuda +
         " toolkit, and put the folder that holds " + name + " on LD_LIBRARY_PATH";
}

std::string cuda_version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

std::string driver_mismatch_line(int driver_version, int runtime_version) {
  if (driver_version <= 0 || driver_version / 1000 >= runtime_version / 1000) return {};
  const std::string runtime = cuda_version_text(runtime_version);
  // The flavours built are CUDA 12's and 13's (docs/install.md): one of them may fit this driver.
  const int driver_major = driver_version / 1000;
  const std::string other = driver_major >= 12 ? ", or install isobench-cu" + std::to_string(driver_major) +
                                                     " (the wheel for CUDA " + std::to_string(driver_major) + ")"
                                               : "";
  return "the NVIDIA driver here runs CUDA up to " + cuda_version_text(driver_version) +
         ", and this build's CUDA runtime is " + runtime + ": it needs a driver for CUDA " +
         std::to_string(runtime_version / 1000) + ".0 or newer (nvidia-smi shows what the driver runs): update the "
         "driver" + other;
}

std::string gpu_fit_report_line(const GpuFitItem& item) {
  return item.name + "\t" + item.status + (item.line.empty() ? std::string() : "\t" + item.line) + "\n";
}

std::vector<GpuFitItem> parse_gpu_fit_report(const std::string& text) {
  std::vector<GpuFitItem> items;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto tab = line.find('\t');
    if (tab == 0 || tab == std::string::npos) continue;
    const auto second = line.find('\t', tab + 1);
    GpuFitItem item{line.substr(0, tab), line.substr(tab + 1, second == std::string::npos ? second : second - tab - 1),
                    second == std::string::npos ? std::string() : line.substr(second + 1)};
    if (!item.status.empty()) items.push_back(std::move(item));
  }
  return items;
}

GpuFit read_gpu_fit(int exit_code, const std::string& out, const std::string& err) {
  GpuFit fit;
  if (exit_code != 2) return fit;
  bool only_missing = true;
  for (const auto& item : parse_gpu_fit_report(out)) {
    if (item.status == "missing")
      fit.missing.emplace_back(item.name, item.line);
    else if (item.status != "ok")
      only_missing = false;
  }
  if (only_missing && !fit.missing.empty()) return fit;
  fit.missing.clear();
  fit.refusal = err.substr(0, err.find('\n'));
  if (fit.refusal.empty()) fit.refusal = "isobench-worker --check-gpu: exit code 2 without a line on stderr";
  return fit;
}

void* find_symbol(void* library, const char* library_name, const char* symbol) {
  void* address = dlsym(library, symbol);
  if (!address) throw std::runtime_error(std::string(library_name) + " has no symbol " + symbol);
  return address;
}

}  // namespace isobench::kernels
