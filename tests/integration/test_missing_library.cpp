// A runtime library missing where a CUDA run is planned (the worker opens cuBLAS and NCCL at run
// time, so a machine may lack one): the real isobench-worker, on a machine made to have no
// libcublasLt (every folder holding one hidden under an empty tmpfs in a mount namespace of its
// own: `unshare -rm`, no root needed where user namespaces are allowed),
// answers orchestrate's --check-gpu, and the planning leaves out the GEMMs only: their ids and the
// library's line in plan.json's skipped and skipped_reasons, one warning line, the rest planned
// and scheduled. A plan of nothing but GEMMs, or a cuBLASLt of another major version only, is
// still bad input. This machine has no GPU, so the plan is made as orchestrate makes it
// (plan_new_run, for a machine with a CUDA device 0) rather than measured.

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <iostream>
#include <set>
#include <sstream>

#include "harness.hpp"
#include "orchestrator/errors.hpp"
#include "orchestrator/run/plan_run.hpp"
#include "orchestrator/sweep.hpp"

using namespace isobench::testing;
using namespace isobench::orchestrator;

#ifndef ISOBENCH_WITH_CUDA
TEST_CASE("a missing runtime library: a build without CUDA has no GEMM kernel and no CUDA run to plan") {}
#else
namespace {

// A worker build (a #! script, as check_worker_build allows) that runs the real isobench-worker
// where no libcublasLt is found: the folders of ldconfig's cache, the toolkit's and $CUDA_HOME's
// that hold one are hidden, LD_LIBRARY_PATH is unset; `cuda_home` (when given) becomes its
// $CUDA_HOME. Exit 125 when no mount namespace can be made.
std::string worker_without_cublaslt(const Scratch& s, const std::string& name, const std::string& cuda_home = "") {
  const std::string hide = s.write(name + "-hide.sh", R"sh(for f in $(ldconfig -p 2>/dev/null | sed -n 's/.*libcublasLt\.so.* => //p') \
    /usr/local/cuda/lib/libcublasLt.so* /usr/local/cuda/lib64/libcublasLt.so* ${CUDA_HOME:+$CUDA_HOME/lib64/libcublasLt.so*}; do
  [ -e "$f" ] || continue
  mount -t tmpfs tmpfs "$(dirname "$(readlink -f "$f")")" || exit 125
done
exec env -u LD_LIBRARY_PATH )sh" + (cuda_home.empty() ? std::string() : "CUDA_HOME=" + cuda_home + " ") +
                                                           bin("isobench-worker") + " \"$@\"\n");
  const std::string worker = s.write(name + ".sh", "#!/bin/sh\nexec unshare -rm /bin/sh " + hide + " \"$@\"\n");
  chmod(worker.c_str(), 0755);
  return worker;
}

// Whether a mount namespace can be made here (unshare -rm); when not, the case is not run, and says so.
bool can_hide_libraries(const Scratch& s) {
  if (run("unshare -rm true", s).exit_code == 0) return true;
  MESSAGE("no mount namespace here (unshare -rm): the libraries cannot be hidden, the case is not run");
  return false;
}

struct Planned {
  Plan plan;
  std::string err;  // what planning said on stderr
};

// Plans `sweep_text` as orchestrate plans a new run on a machine with CUDA device 0.
Planned plan_cuda(const Scratch& s, const std::string& sweep_text, const RunRequest& request) {
  const Sweep sweep = parse_sweep(sweep_text, s.path("s.yaml"));
  Machine machine;
  machine.device = isobench::kernels::Backend::cuda;
  std::ostringstream err;
  auto* const old = std::cerr.rdbuf(err.rdbuf());
  Planned p;
  try {
    p.plan = plan_new_run(request, sweep, machine, nullptr);
  } catch (...) {
    std::cerr.rdbuf(old);
    throw;
  }
  std::cerr.rdbuf(old);
  p.err = err.str();
  return p;
}

std::string usage_error(const Scratch& s, const std::string& sweep_text, const RunRequest& request) {
  try {
    plan_cuda(s, sweep_text, request);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(planned)";
}

const char* kMixed = "settings: {samples: 4, seed: 3}\n"
                     "benchmarks:\n"
                     "  - kernel: gemm\n    axes: {m: [64, 128], n: 64, k: 64}\n"
                     "  - kernel: cast\n    axes: {n: [1024, 4096]}\n"
                     "  - kernel: cpu_spin\n    axes: {microseconds: 5}\n";

}  // namespace

TEST_CASE("a missing libcublasLt leaves out the GEMMs of a CUDA run, and plans the rest") {
  Scratch s("missing-library");
  if (!can_hide_libraries(s)) return;
  const std::string worker = worker_without_cublaslt(s, "worker");
  // The worker itself: the report says libcublasLt is missing, the driver (none here) is ok.
  const auto answer = run(worker + " --check-gpu libcublasLt", s);
  REQUIRE_MESSAGE(answer.exit_code == 2, answer.err);
  CHECK_MESSAGE(answer.out.rfind("driver\tok\nlibcublasLt\tmissing\tlibcublasLt.so.", 0) == 0, answer.out);
  CHECK_MESSAGE(answer.err.rfind("isobench-worker: libcublasLt.so.", 0) == 0, answer.err);

  RunRequest request;
  request.worker = worker;
  request.quiet = true;
  request.log = Log::to_stderr(/*quiet=*/true);  // as orchestrate --quiet binds it
  const Planned p = plan_cuda(s, kMixed, request);
  const Sweep sweep = parse_sweep(kMixed, s.path("s.yaml"));
  REQUIRE(sweep.instances.size() == 5);
  std::vector<std::string> gemms, kept;
  for (const auto& in : sweep.instances) (in.kernel == "gemm" ? gemms : kept).push_back(in.id);
  REQUIRE(gemms.size() == 2);

  // The GEMMs left out, with the library's line as their reason; the cast and the CPU kernel
  // planned (the CPU one is skipped by its device, as before).
  std::vector<std::string> planned;
  for (const auto& i : p.plan.instances) planned.push_back(i.worker.id);
  CHECK(planned == std::vector<std::string>{kept[0], kept[1]});
  CHECK(p.plan.skipped == std::vector<std::string>{kept[2], gemms[0], gemms[1]});
  for (const auto& id : gemms) {
    const std::string why = p.plan.skipped_reasons.at(id);
    CHECK_MESSAGE(why.rfind("libcublasLt.so.", 0) == 0, why);
    CHECK_MESSAGE(why.find(" not found (needed by the GEMM kernels, built against CUDA ") != std::string::npos, why);
    CHECK_MESSAGE(why.find("not on the loader's path (LD_LIBRARY_PATH, the system's) nor in ") != std::string::npos, why);
  }
  CHECK(p.plan.skipped_reasons.at(kept[2]) == "runs on cpu, and this run measures on cuda");
  // One line on stderr, even with --quiet: the library, how many instances of which kernel, where it was looked for.
  CHECK_MESSAGE(std::count(p.err.begin(), p.err.end(), '\n') == 1, p.err);
  CHECK_MESSAGE(p.err.rfind("warning: 2 instances of gemm are left out (listed in plan.json): " +
                                p.plan.skipped_reasons.at(gemms[0]) + "\n",
                            0) == 0,
                p.err);
  // The schedule knows only the instances planned: 2 instances x 4 samples.
  std::set<std::uint32_t> scheduled;
  std::size_t tasks = 0;
  for (const auto& r : p.plan.schedule.runs)
    for (const auto& t : r.tasks) {
      scheduled.insert(t.instance);
      ++tasks;
    }
  CHECK(scheduled == std::set<std::uint32_t>{0, 1});
  CHECK(tasks == 8);
  // plan.json, as --resume reads it back.
  const nlohmann::json written = p.plan.to_json();
  CHECK(written["skipped"].size() == 3);
  CHECK(written["skipped_reasons"][gemms[1]] == p.plan.skipped_reasons.at(gemms[1]));
  const Plan read = Plan::from_json(nlohmann::json::parse(written.dump()));
  CHECK(read.skipped_reasons == p.plan.skipped_reasons);
  CHECK(read.instances.size() == 2);

  // An A/B run whose baseline lacks the library and whose candidate has it (or lacks it too, on
  // a machine without cuBLASLt): both sides plan the same instances, the GEMMs left out of both.
  RunRequest ab = request;
  ab.ab = true;
  ab.baseline = worker;
  ab.candidate = bin("isobench-worker");
  ab.verdict.fail_on = FailOn::never;
  const Planned q = plan_cuda(s, kMixed, ab);
  CHECK(q.plan.instances.size() == 2);
  CHECK(q.plan.schedule.sides == 2);
  CHECK(q.plan.skipped.size() == 3);
  CHECK_MESSAGE(q.plan.skipped_reasons.at(gemms[0]).rfind("--baseline " + worker + ": libcublasLt.so.", 0) == 0,
                q.plan.skipped_reasons.at(gemms[0]));
  CHECK_MESSAGE(q.err.rfind("warning: 2 instances of gemm are left out (listed in plan.json): --baseline " + worker +
                                ": libcublasLt.so.",
                            0) == 0,
                q.err);

  // Nothing but GEMMs on the device: no run, one line naming the library.
  const std::string only_gemms = "benchmarks:\n  - kernel: gemm\n    axes: {m: [64, 128], n: 64, k: 64}\n"
                                 "  - kernel: cpu_spin\n    axes: {microseconds: 5}\n";
  const std::string refused = usage_error(s, only_gemms, request);
  CHECK_MESSAGE(refused.rfind(s.path("s.yaml") + ": no instance runs here: the 2 that run on cuda need a library that "
                                                 "is missing: libcublasLt.so.",
                              0) == 0,
                refused);
  CHECK(refused.find('\n') == std::string::npos);
}

TEST_CASE("a cuBLASLt of another major version only still refuses the whole run, in the worker's line") {
  Scratch s("other-major-library");
  if (!can_hide_libraries(s)) return;
  // $CUDA_HOME holds libcublasLt.so.1: no major version any build wants.
  std::filesystem::create_directories(s.path("home/lib64"));
  s.write("home/lib64/libcublasLt.so.1", "");
  RunRequest request;
  request.worker = worker_without_cublaslt(s, "worker", s.path("home"));
  request.quiet = true;
  const std::string refused = usage_error(s, kMixed, request);
  CHECK_MESSAGE(refused.rfind("isobench-worker: libcublasLt.so.", 0) == 0, refused);
  CHECK_MESSAGE(refused.find("; found libcublasLt.so.1 in " + s.path("home/lib64") +
                             ", another major version, which this build cannot use: ") != std::string::npos,
                refused);
}
#endif
