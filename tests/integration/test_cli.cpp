// The orchestrate command line itself through the real binary: --version, and the `kernels` verb
// with its exit codes; and the worker's --check-gpu, which orchestrate asks before a CUDA run.

#include <doctest/doctest.h>

#include <regex>

#include "harness.hpp"

using namespace isobench::testing;

TEST_CASE("--version: one line, the project version, the commit the build was made from and its backends") {
  Scratch s("version");
  const auto r = run(bin("orchestrate") + " --version", s);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  std::smatch m;
#ifdef ISOBENCH_WITH_CUDA
  const std::string backends = "CUDA [0-9]+\\.[0-9]+ for sm_[0-9a-z_ ]+, and CPU";
#else
  const std::string backends = "CPU only: built without the CUDA toolkit";
#endif
  REQUIRE_MESSAGE(std::regex_match(r.out, m, std::regex("orchestrate " ISOBENCH_VERSION
                                                        " \\(commit ([0-9a-f]{12}(-dirty)?|unknown); " +
                                                        backends + "\\)\n")),
                  r.out);
  // Built from a checkout, the commit is one of its commits (the tests run where they were built).
  if (run("git -C " + source_dir() + " rev-parse --git-dir", s).exit_code == 0) {
    const std::string commit = m[1].str().substr(0, 12);
    REQUIRE(commit != "unknown");
    CHECK(run("git -C " + source_dir() + " cat-file -e " + commit + "^{commit}", s).exit_code == 0);
  }
}

TEST_CASE("orchestrate kernels lists the catalog; a plugin that does not load is exit 2 with one line") {
  Scratch s("kernels");
  auto r = run(bin("orchestrate") + " kernels", s);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("cpu_spin  (cpu, family cpu)") != std::string::npos);
  CHECK(r.out.find("    microseconds  number  50  1 .. 1000000  time spent per launch") != std::string::npos);
  r = run(bin("orchestrate") + " kernels --json --plugin " + binary_dir() + "/lib/libisobench_example_cpu.so", s);
  CHECK(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["kernels"].back()["name"] == "example_stencil");
  r = run(bin("orchestrate") + " kernels --plugin " + s.path("nope.so"), s);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err.rfind("orchestrate kernels: --plugin " + s.path("nope.so") + ": cannot load", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(run(bin("orchestrate") + " --help", s).out.find("orchestrate kernels") != std::string::npos);
  CHECK(run(bin("orchestrate") + " kernels --help", s).out.find("Exit code 0: listed; 2: a plugin that does not load") !=
        std::string::npos);
}

TEST_CASE("isobench-worker --check-gpu: exit 0 when the GPU software fits the build, else 2 with one line") {
  Scratch s("check-gpu");
  auto r = run(bin("isobench-worker") + " --check-gpu ''", s);
#ifdef ISOBENCH_WITH_CUDA
  // The driver (none on a CPU machine, which is no mismatch) and no library: orchestrate asks this
  // before a CUDA run whose kernels open nothing.
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out == "driver\tok\n");  // the report, a line per item (kernels/runtime_library.hpp)
  r = run(bin("isobench-worker") + " --check-gpu libcudnn", s);
  CHECK(r.exit_code == 2);
  CHECK(r.err == "isobench-worker: libcudnn: no such runtime library of the kernels (libcublasLt, libcublas, libnccl)\n");
  CHECK(r.out ==
        "driver\tok\nlibcudnn\tunknown\tlibcudnn: no such runtime library of the kernels (libcublasLt, libcublas, libnccl)\n");
#else
  CHECK(r.exit_code == 2);
  CHECK(r.err == "isobench-worker: this worker was built without CUDA\n");
#endif
}
