// kernels/gpu_libraries.hpp on any machine: the one line a worker gives when a library the GPU
// kernels open is missing or of another major version (found among fake libraries in a temporary
// $CUDA_HOME), and when the driver is too old for the build's CUDA runtime.

#include <doctest/doctest.h>

#include <algorithm>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "kernels/gpu_libraries.hpp"

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

// What open_gpu_library throws.
std::string refusal(const GpuLibrary& library) {
  try {
    open_gpu_library(library);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(opened)";
}

}  // namespace

TEST_CASE("the libraries of the built-in kernels, by the build's CUDA") {
  REQUIRE(gpu_library("libcublasLt", 13));
  CHECK(gpu_library("libcublasLt", 13)->file_name() == "libcublasLt.so.13");
  CHECK(gpu_library("libcublasLt", 13)->package == "nvidia-cublas");
  CHECK(gpu_library("libcublas", 12)->file_name() == "libcublas.so.12");
  CHECK(gpu_library("libcublas", 12)->package == "nvidia-cublas-cu12");
  CHECK(gpu_library("libnccl", 13)->file_name() == "libnccl.so.2");
  CHECK(gpu_library("libnccl", 13)->package == "nvidia-nccl-cu13");
  // CUPTI for the kernel recorder: CUDA 13's wheel keeps it in nvidia/cu13/lib, CUDA 12's is a
  // package of its own; the toolkit's extras/CUPTI/lib64 is looked in too.
  CHECK(gpu_library("libcupti", 13)->file_name() == "libcupti.so.13");
  CHECK(gpu_library("libcupti", 13)->package == "nvidia-cuda-cupti");
  CHECK(gpu_library("libcupti", 12)->package == "nvidia-cuda-cupti-cu12");
  const auto cupti_dirs = search_dirs(*gpu_library("libcupti", 12));
  CHECK(std::find(cupti_dirs.begin(), cupti_dirs.end(), "/usr/local/cuda/extras/CUPTI/lib64") != cupti_dirs.end());
  CHECK_FALSE(gpu_library("libcudnn", 13));
}

TEST_CASE("a cuBLASLt of another major version: what was found, what the build needs, what to do") {
  // A build of CUDA 14 where $CUDA_HOME holds a CUDA 13 cuBLASLt (this machine may have one of
  // its own in /usr/local/cuda/lib64, named too).
  Folder home("runtime-library-home");
  home.touch("lib64/libcublasLt.so.13");
  home.touch("lib64/libcublasLt.so.14.0.1");  // the wanted one's full name, not a link to it: not "another"
  setenv("CUDA_HOME", home.path.c_str(), 1);
  const GpuLibrary lt = *gpu_library("libcublasLt", 14);
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
  const GpuLibrary none{"libisobench_no_such_blas", 3, 13, "the test kernels", "nvidia-no-such", {empty.path.string()}};
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
        "13.0 or newer (nvidia-smi shows what the driver runs): update the driver, or install isobench-cu12 (the wheel "
        "for CUDA 12)");
  // A driver older than any flavour's: only the update is offered.
  CHECK(driver_mismatch_line(11080, 12040) ==
        "the NVIDIA driver here runs CUDA up to 11.8, and this build's CUDA runtime is 12.4: it needs a driver for CUDA "
        "12.0 or newer (nvidia-smi shows what the driver runs): update the driver");
  CHECK(driver_mismatch_line(13000, 13000).empty());
  CHECK(driver_mismatch_line(13020, 13000).empty());
  CHECK(driver_mismatch_line(13000, 13020).empty());  // minor-version compatibility
  CHECK(driver_mismatch_line(0, 13000).empty());      // no driver: not a mismatch
  CHECK(cuda_version_text(12080) == "12.8");
}

TEST_CASE("the --check-gpu report: a line per item, read back; lines not of its form are ignored") {
  const std::vector<GpuFitItem> items = {{"driver", "ok", ""},
                                         {"libcublasLt", "missing", "libcublasLt.so.13 not found (...): pip install x"},
                                         {"libnccl", "ok", ""}};
  std::string text;
  for (const auto& item : items) text += gpu_fit_report_line(item);
  CHECK(text == "driver\tok\nlibcublasLt\tmissing\tlibcublasLt.so.13 not found (...): pip install x\nlibnccl\tok\n");
  const auto read = parse_gpu_fit_report("a line of something else\n\tno name\nname\t\n" + text + "last\tok");
  REQUIRE(read.size() == 4);
  CHECK(read[1].name == "libcublasLt");
  CHECK(read[1].status == "missing");
  CHECK(read[1].line == "libcublasLt.so.13 not found (...): pip install x");
  CHECK(read[2].line.empty());
  CHECK(read[3].name == "last");
  // A line that holds a tab of its own keeps it.
  CHECK(parse_gpu_fit_report("libnccl\tmismatch\ta\tb\n").at(0).line == "a\tb");
}

TEST_CASE("what orchestrate takes from --check-gpu: fits, missing libraries to leave out, or one refusal") {
  const std::string missing_lt = "libcublasLt\tmissing\tlibcublasLt.so.13 not found (lt)\n";
  const std::string missing_nccl = "libnccl\tmissing\tlibnccl.so.2 not found (nccl)\n";
  // Exit 0: fits, whatever the report. Exit 1 or 109 (CLI11's, a worker from before the option): let through.
  for (const int code : {0, 1, 109}) {
    const GpuFit fit = read_gpu_fit(code, "driver\tok\n" + missing_lt, "isobench-worker: x\n");
    CHECK(fit.refusal.empty());
    CHECK(fit.missing.empty());
  }
  // Only missing libraries: each is left out, nothing refused.
  GpuFit fit = read_gpu_fit(2, "driver\tok\n" + missing_lt + "libcublas\tok\n" + missing_nccl,
                            "isobench-worker: libcublasLt.so.13 not found (lt)\n");
  CHECK(fit.refusal.empty());
  REQUIRE(fit.missing.size() == 2);
  CHECK(fit.missing[0] == std::pair<std::string, std::string>{"libcublasLt", "libcublasLt.so.13 not found (lt)"});
  CHECK(fit.missing[1].first == "libnccl");
  // A driver too old, a library of another major version, an unknown library: the worker's one
  // line refuses the run, even beside a missing library.
  for (const std::string refusing : {"driver\tmismatch\tthe NVIDIA driver here runs CUDA up to 12.4, ...\n",
                                     "libcublas\tmismatch\tlibcublas.so.13 not found (...); found libcublas.so.12 ...\n",
                                     "libcudnn\tunknown\tlibcudnn: no such runtime library\n", "libx\tbroken\tnew\n"}) {
    CAPTURE(refusing);
    fit = read_gpu_fit(2, missing_lt + refusing, "isobench-worker: the first refusing line\nmore\n");
    CHECK(fit.refusal == "isobench-worker: the first refusing line");
    CHECK(fit.missing.empty());
  }
  // A worker from before the report: exit 2 and its line, nothing on stdout, refuses as it did.
  fit = read_gpu_fit(2, "", "isobench-worker: libcublasLt.so.13 not found (...)\n");
  CHECK(fit.refusal == "isobench-worker: libcublasLt.so.13 not found (...)");
  CHECK(fit.missing.empty());
  // Exit 2 with a report of nothing wrong, or no line at all: still no run.
  CHECK(read_gpu_fit(2, "driver\tok\n", "isobench-worker: odd\n").refusal == "isobench-worker: odd");
  CHECK(read_gpu_fit(2, "", "").refusal == "isobench-worker --check-gpu: exit code 2 without a line on stderr");
}

TEST_CASE("check_gpu_library tells a missing library from one of another major version") {
  Folder home("runtime-library-check");
  setenv("CUDA_HOME", home.path.c_str(), 1);
  const GpuLibrary none{"libisobench_no_such_blas", 3, 13, "the test kernels", "nvidia-no-such", {}};
  LibraryCheck check = check_gpu_library(none);
  CHECK(check.status == LibraryStatus::missing);
  CHECK(check.line.rfind("libisobench_no_such_blas.so.3 not found (needed by the test kernels", 0) == 0);
  home.touch("lib64/libisobench_no_such_blas.so.2");
  check = check_gpu_library(none);
  unsetenv("CUDA_HOME");
  CHECK(check.status == LibraryStatus::other_major);
  CHECK_MESSAGE(check.line.find("found libisobench_no_such_blas.so.2 in " + (home.path / "lib64").string() +
                                ", another major version") != std::string::npos,
                check.line);
}
