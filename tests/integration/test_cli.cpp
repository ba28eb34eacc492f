// The orchestrate command line itself through the real binary: --version, and the `kernels` verb
// with its exit codes; and the worker's --check-gpu, which orchestrate asks before a CUDA run.

#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

bool all_in(const std::string& text, const std::string& allowed) {
  return !text.empty() && text.find_first_not_of(allowed) == std::string::npos;
}

// The parts of --version's line, "orchestrate VERSION (commit C; BACKENDS[; FLAVOUR])\n" with C 12
// hex digits (and "-dirty" where the tree had changes) or "unknown"; BACKENDS "CUDA X.Y for
// sm_..., and CPU" followed by FLAVOUR "flavour cuX: needs an NVIDIA driver RNNN or newer" (the
// driver branch of CUDA X's minor-version compatibility: R525 for 12, R580 for 13), or "CPU only:
// built without the CUDA toolkit" alone; nullopt for any other line. Read by hand: <regex>'s
// libstdc++ code draws -Wmaybe-uninitialized false positives from GCC 12 in the sanitizer build.
struct VersionLine {
  std::string commit, backends, flavour;
};

std::optional<VersionLine> parse_version_line(const std::string& out) {
  const std::string head = "orchestrate " ISOBENCH_VERSION " (commit ", tail = ")\n";
  if (out.size() < head.size() + tail.size() || out.rfind(head, 0) != 0 ||
      out.compare(out.size() - tail.size(), tail.size(), tail) != 0)
    return std::nullopt;
  const std::string inner = out.substr(head.size(), out.size() - head.size() - tail.size());
  const auto semicolon = inner.find("; ");
  if (semicolon == std::string::npos) return std::nullopt;
  VersionLine line{inner.substr(0, semicolon), inner.substr(semicolon + 2), ""};
  const std::string hash = line.commit.size() == 18 && line.commit.ends_with("-dirty") ? line.commit.substr(0, 12)
                                                                                        : line.commit;
  if (line.commit != "unknown" && !(hash.size() == 12 && all_in(hash, "0123456789abcdef"))) return std::nullopt;
#ifdef ISOBENCH_WITH_CUDA
  // "CUDA X.Y for sm_..., and CPU; flavour cuX: needs an NVIDIA driver RNNN or newer"
  const auto flavour_at = line.backends.find("; ");
  if (flavour_at == std::string::npos) return std::nullopt;
  line.flavour = line.backends.substr(flavour_at + 2);
  line.backends.resize(flavour_at);
  const std::string& b = line.backends;
  const auto dot = b.find('.'), for_sm = b.find(" for sm_"), and_cpu = b.rfind(", and CPU");
  if (b.rfind("CUDA ", 0) != 0 || dot == std::string::npos || for_sm == std::string::npos || for_sm < dot ||
      and_cpu == std::string::npos || and_cpu + 9 != b.size() || and_cpu < for_sm + 8 ||
      !all_in(b.substr(5, dot - 5), "0123456789") || !all_in(b.substr(dot + 1, for_sm - dot - 1), "0123456789") ||
      !all_in(b.substr(for_sm + 8, and_cpu - for_sm - 8), "0123456789abcdefghijklmnopqrstuvwxyz_ "))
    return std::nullopt;
  const std::string major = b.substr(5, dot - 5);
  const std::string branch = major == "12" ? "R525" : major == "13" ? "R580" : "";
  if (branch.empty() || line.flavour != "flavour cu" + major + ": needs an NVIDIA driver " + branch + " or newer")
    return std::nullopt;
#else
  if (line.backends != "CPU only: built without the CUDA toolkit") return std::nullopt;
#endif
  return line;
}

}  // namespace

TEST_CASE("--version's line is read by its parts, and other lines are not") {
  const std::string v = "orchestrate " ISOBENCH_VERSION " (commit ";
#ifdef ISOBENCH_WITH_CUDA
  const std::string backends = "CUDA 13.0 for sm_90, and CPU; flavour cu13: needs an NVIDIA driver R580 or newer";
  const std::string cu13 = "; flavour cu13: needs an NVIDIA driver R580 or newer)\n";
  CHECK_FALSE(parse_version_line(v + "0123456789ab; CUDA 13 for sm_90, and CPU" + cu13));
  CHECK_FALSE(parse_version_line(v + "0123456789ab; CUDA 13.0 for sm_90" + cu13));
  CHECK(parse_version_line(v + "0123456789ab; CUDA 12.4 for sm_90, and CPU; flavour cu12: needs an NVIDIA driver R525 "
                               "or newer)\n")->flavour == "flavour cu12: needs an NVIDIA driver R525 or newer");
  CHECK_FALSE(parse_version_line(v + "0123456789ab; CUDA 13.0 for sm_90, and CPU)\n"));  // no flavour
  CHECK_FALSE(parse_version_line(v + "0123456789ab; CUDA 12.4 for sm_90, and CPU" + cu13));  // another major's
  CHECK_FALSE(parse_version_line(v + "0123456789ab; CUDA 13.0 for sm_90, and CPU; flavour cu13: needs an NVIDIA "
                                     "driver R525 or newer)\n"));  // another major's driver
  CHECK_FALSE(parse_version_line(v + "0123456789ab; CUDA 11.8 for sm_90, and CPU; flavour cu11: needs an NVIDIA "
                                     "driver R450 or newer)\n"));  // a major without a flavour
#else
  const std::string backends = "CPU only: built without the CUDA toolkit";
  CHECK_FALSE(parse_version_line(v + "0123456789ab; CPU only)\n"));
#endif
  CHECK(parse_version_line(v + "0123456789ab; " + backends + ")\n")->commit == "0123456789ab");
  CHECK(parse_version_line(v + "0123456789ab-dirty; " + backends + ")\n")->commit == "0123456789ab-dirty");
  CHECK(parse_version_line(v + "unknown; " + backends + ")\n")->commit == "unknown");
  CHECK_FALSE(parse_version_line(v + "0123456789a; " + backends + ")\n"));    // 11 digits
  CHECK_FALSE(parse_version_line(v + "0123456789aB; " + backends + ")\n"));   // not lower-case hex
  CHECK_FALSE(parse_version_line(v + "0123456789ab-clean; " + backends + ")\n"));
  CHECK_FALSE(parse_version_line(v + "0123456789ab; " + backends + ")"));      // no newline
  CHECK_FALSE(parse_version_line(v + "0123456789ab; " + backends + ")\nmore\n"));
  CHECK_FALSE(parse_version_line("orchestrate 0.0.0-other (commit 0123456789ab; " + backends + ")\n"));
}

TEST_CASE("--version: one line, the project version, the commit the build was made from and its backends") {
  Scratch s("version");
  const auto r = run(bin("orchestrate") + " --version", s);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  const auto line = parse_version_line(r.out);
  REQUIRE_MESSAGE(line.has_value(), r.out);
  // Built from a checkout, the commit is one of its commits (the tests run where they were built).
  if (run("git -C " + source_dir() + " rev-parse --git-dir", s).exit_code == 0) {
    const std::string commit = line->commit.substr(0, 12);
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
  CHECK(r.out == "driver\tok\n");  // the report, a line per item (kernels/gpu_libraries.hpp)
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
