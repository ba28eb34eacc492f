// kernels/runtime_library.hpp on any machine: the one line a worker gives when a library the GPU
// kernels open is missing or of another major version (found among fake libraries in a temporary
// $CUDA_HOME), and when the driver is too old for the build's CUDA runtime.

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "kernels/runtime_library.hpp"

using namespace isobench::kernels;
namespace fs = std::filesystem;

namespace {

struct Folder {
  fs::path path;
  explicit Folder(const std::string& name)
      : path(fs::temp_directory_path() / ("isobench-test-" + name + "-" + std::to_string(getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() { fs::remove_all(path); }
  // An empty file: found by its name, never loaded.
  void touch(const std::string& relative) const {
    fs::create_directories((path / relative).parent_path());
    std::ofstream(path / relative).put('\n');
  }
};

// What open_runtime_library throws.
std::string refusal(const RuntimeLibrary& library) {
  try {
    open_runtime_library(library);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(opened)";
}

}  // namespace

TEST_CASE("the libraries of the built-in kernels, by the build's CUDA") {
  REQUIRE(runtime_library("libcublasLt", 13));
  CHECK(runtime_library("libcublasLt", 13)->file_name() == "libcublasLt.so.13");
  CHECK(runtime_library("libcublasLt", 13)->package == "nvidia-cublas");
  CHECK(runtime_library("libcublas", 12)->file_name() == "libcublas.so.12");
  CHECK(runtime_library("libcublas", 12)->package == "nvidia-cublas-cu12");
  CHECK(runtime_library("libnccl", 13)->file_name() == "libnccl.so.2");
  CHECK(runtime_library("libnccl", 13)->package == "nvidia-nccl-cu13");
  CHECK_FALSE(runtime_library("libcudnn", 13));
}

TEST_CASE("a cuBLASLt of another major version: what was found, what the build needs, what to do") {
  // A build of CUDA 14 where $CUDA_HOME holds a CUDA 13 cuBLASLt (this machine may have one of
  // its own in /usr/local/cuda/lib64, named too).
  Folder home("runtime-library-home");
  home.touch("lib64/libcublasLt.so.13");
  home.touch("lib64/libcublasLt.so.14.0.1");  // the wanted one's full name, not a link to it: not "another"
  setenv("CUDA_HOME", home.path.c_str(), 1);
  const RuntimeLibrary lt = *runtime_library("libcublasLt", 14);
  const std::string line = refusal(lt);
  unsetenv("CUDA_HOME");
  CHECK_MESSAGE(line.rfind("libcublasLt.so.14 not found (needed by the GEMM kernels, built against CUDA 14); found ", 0) == 0,
                line);
  CHECK_MESSAGE(line.find("libcublasLt.so.13 in " + (home.path / "lib64").string()) != std::string::npos, line);
  CHECK_MESSAGE(line.find("libcublasLt.so.14.0.1") == std::string::npos, line);
  CHECK_MESSAGE(line.find("another major version, which this build cannot use: pip install nvidia-cublas (CUDA 14), or "
                          "install a CUDA 14 toolkit, and put the folder that holds libcublasLt.so.14 on LD_LIBRARY_PATH") !=
                    std::string::npos,
                line);
  CHECK(line.find('\n') == std::string::npos);
  // LD_LIBRARY_PATH is searched for other versions too.
  Folder other("runtime-library-ld-path");
  other.touch("libcublasLt.so.12");
  setenv("LD_LIBRARY_PATH", other.path.c_str(), 1);
  const auto found = other_versions(lt, {});
  unsetenv("LD_LIBRARY_PATH");
  CHECK(found == std::vector<std::string>{(other.path / "libcublasLt.so.12").string()});
  // $CUDA_HOME of /usr/local/cuda is looked in once, not again as the fallback.
  setenv("CUDA_HOME", "/usr/local/cuda", 1);
  const auto dirs = search_dirs(lt);
  unsetenv("CUDA_HOME");
  CHECK(std::count(dirs.begin(), dirs.end(), "/usr/local/cuda/lib64") == 1);
}

TEST_CASE("a library found nowhere: the folders looked in and the loader's message") {
  Folder empty("runtime-library-empty");
  const RuntimeLibrary none{"libisobench_no_such_blas", 3, 13, "the test kernels", "nvidia-no-such", {empty.path.string()}};
  const std::string line = refusal(none);
  CHECK_MESSAGE(line.rfind("libisobench_no_such_blas.so.3 not found (needed by the test kernels, built against CUDA 13); not "
                           "on the loader's path (LD_LIBRARY_PATH, the system's) nor in ",
                           0) == 0,
                line);
  CHECK_MESSAGE(line.find(empty.path.string() + " (") != std::string::npos, line);
  CHECK_MESSAGE(line.find("cannot open shared object file") != std::string::npos, line);  // dlerror's
  CHECK_MESSAGE(line.find(": pip install nvidia-no-such (CUDA 13)") != std::string::npos, line);
}

TEST_CASE("a driver older than the runtime's major version: both versions and what to do") {
  CHECK(driver_mismatch_line(12040, 13000) ==
        "the NVIDIA driver here runs CUDA up to 12.4, and this build's CUDA runtime is 13.0: it needs a driver for CUDA "
        "13.0 or newer (nvidia-smi shows what the driver runs): update the driver, or use an isobench built with CUDA 12");
  CHECK(driver_mismatch_line(13000, 13000).empty());
  CHECK(driver_mismatch_line(13020, 13000).empty());
  CHECK(driver_mismatch_line(13000, 13020).empty());  // minor-version compatibility
  CHECK(driver_mismatch_line(0, 13000).empty());      // no driver: not a mismatch
  CHECK(cuda_version_text(12080) == "12.8");
}
