#pragma once
// The GPU libraries a worker finds at run time, and whether they fit its build. The CUDA kernels
// open cuBLAS/cuBLASLt (the GEMMs) and NCCL (the multi-rank kernels) with dlopen when they are
// first set up, rather than link them: a worker that runs neither never maps them, and a machine
// without them still runs every other kernel. The CUDA runtime is linked statically, so the driver
// must be one of its major version or newer. When either does not fit, the user gets one line
// naming what was found, what the build needs and what to do.
//
// Host code with no CUDA header: the versions come from the callers (kernels/cuda/, the worker),
// so the search and its lines are tested on machines without CUDA. `isobench-worker --check-gpu`
// runs these checks before a run (orchestrator/run/plan_run.cpp) and reports each one (the
// report below): a driver too old, or a library of another major version than the build's, is
// bad input (exit 2) rather than a run whose GEMMs all fail; a library that is simply missing
// leaves out the instances whose kernels need it, and the rest of the run measures.

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace isobench::kernels {

struct GpuLibrary {
  std::string stem;        // "libcublasLt"
  int major = 0;           // the major version the kernels were compiled against: its ABI is theirs
  int cuda_major = 0;      // the build's CUDA: where the nvidia-* wheels keep it, and what to install
  std::string needed_by;   // "the GEMM kernels"
  std::string package;     // the pip package that carries it for that CUDA ("nvidia-cublas")
  std::vector<std::string> fallback_dirs;  // looked in last ("/usr/local/cuda/lib64")

  std::string file_name() const { return stem + ".so." + std::to_string(major); }
};

// The library of the built-in kernels called `stem` (libcublasLt, libcublas, libnccl; libcupti for
// the worker's kernel recorder) for a build of CUDA `cuda_major`; nullopt for another name.
std::optional<GpuLibrary> gpu_library(const std::string& stem, int cuda_major);

// Opens file_name() from the loader's path (LD_LIBRARY_PATH, the system's), then from
// search_dirs(). Throws std::runtime_error with missing_library_line's line.
void* open_gpu_library(const GpuLibrary& library);

// Whether open_gpu_library opens `library` here (it is left open): found; missing (nowhere,
// of any major version); or only of another major version, which the build cannot use. `line`
// is missing_library_line's when it is not found.
enum class LibraryStatus { found, missing, other_major };
struct LibraryCheck {
  LibraryStatus status = LibraryStatus::found;
  std::string line;
};
LibraryCheck check_gpu_library(const GpuLibrary& library);

// The folders looked in after the loader's path: the nvidia-* wheels' beside an installed isobench
// (nvidia/cu<major>/lib, nvidia/cublas/lib, nvidia/nccl/lib, nvidia/cuda_cupti/lib), $CUDA_HOME/lib64,
// the fallbacks.
std::vector<std::string> search_dirs(const GpuLibrary& library);

// Files of the library of another major version (stem.so.N) in `dirs` and on LD_LIBRARY_PATH.
std::vector<std::string> other_versions(const GpuLibrary& library, const std::vector<std::string>& dirs);

// "libcublasLt.so.13 not found (needed by the GEMM kernels, built against CUDA 13); found
// libcublasLt.so.12 in /v/nvidia/cublas/lib, another major version: pip install nvidia-cublas
// (CUDA 13), or a CUDA 13 toolkit, and put the folder that holds libcublasLt.so.13 on
// LD_LIBRARY_PATH". Without other versions it names the folders looked in and the loader's message.
std::string missing_library_line(const GpuLibrary& library, const std::vector<std::string>& looked_in,
                                 const std::vector<std::string>& others, const std::string& loader_message);

// CUDA versions as the runtime and driver APIs give them, 1000 major + 10 minor: 12040 is "12.4".
std::string cuda_version_text(int version);

// A runtime of CUDA `runtime_version` runs on a driver that supports CUDA `driver_version` when the
// driver's major is at least the runtime's (CUDA's minor-version compatibility). Otherwise the one
// line that says so and what to do; empty when it fits, or when there is no driver (0).
std::string driver_mismatch_line(int driver_version, int runtime_version);

// `isobench-worker --check-gpu LIBRARIES` reports on stdout one line per thing it checked, the
// driver first, then each library in the order given, as NAME<TAB>STATUS[<TAB>LINE]:
//   driver<TAB>ok                        no driver at all is ok here (the device's opening says so)
//   driver<TAB>mismatch<TAB>LINE         older than the build's CUDA runtime (driver_mismatch_line)
//   libcublasLt<TAB>ok
//   libcublasLt<TAB>missing<TAB>LINE     found nowhere (missing_library_line)
//   libcublasLt<TAB>mismatch<TAB>LINE    only another major version found (missing_library_line)
//   libcudnn<TAB>unknown<TAB>LINE        no library of the built-in kernels
// It exits 0 when everything is ok, else 2 with one line on stderr, "isobench-worker: LINE" of
// the first problem that refuses a run (mismatch, unknown), or else of the first missing library.
// Workers from before the report print nothing on stdout and exit 2 with their first problem:
// read_gpu_fit takes that as a refusal, as those orchestrators did.
struct GpuFitItem {
  std::string name;    // "driver", or the library's stem
  std::string status;  // ok, missing, mismatch, unknown
  std::string line;    // empty when ok
};
std::string gpu_fit_report_line(const GpuFitItem& item);  // with its '\n'
// The items of a report; lines not of its form (no status) are ignored.
std::vector<GpuFitItem> parse_gpu_fit_report(const std::string& text);

// What orchestrate takes from the worker's answer to --check-gpu. `refusal`: the one line that
// refuses the whole run (the worker's first stderr line); empty when the run may go on, without
// the instances whose kernels need a `missing` library (stem, missing_library_line). Exit 0 fits;
// an exit code other than 0 and 2 (a worker from before the option, which CLI11 refuses) is let
// through: its kernels' set-up still says what is missing. Exit 2 is a refusal unless the report
// names only missing libraries.
struct GpuFit {
  std::string refusal;
  std::vector<std::pair<std::string, std::string>> missing;
};
GpuFit read_gpu_fit(int exit_code, const std::string& out, const std::string& err);

// One function of an opened library, typed as the table's member `out`.
void* find_symbol(void* library, const char* library_name, const char* symbol);
template <class F>
void resolve(void* library, const char* library_name, const char* symbol, F& out) {
  out = reinterpret_cast<F>(find_symbol(library, library_name, symbol));
}

}  // namespace isobench::kernels
