#include "orchestrator/python/sass_step.hpp"

#include <sys/resource.h>

#include <chrono>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "orchestrator/program_output.hpp"

namespace isobench::orchestrator {

namespace fs = std::filesystem;

namespace {

bool has_cubin(const std::string& root) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->path().extension() == ".cubin") return true;
  return false;
}

}  // namespace

SassStep::SassStep(const PythonSides& sides, std::string artifact_root) : artifact_root_(std::move(artifact_root)) {
  if (!sides.record.contains("sides") || sides.record["sides"].empty()) return;
  const auto& side = sides.record["sides"][0];
  interpreter_ = side.value("interpreter", "");
  package_ = side.value("package", "");
}

SassStep::~SassStep() {
  if (thread_.joinable()) thread_.join();
}

void SassStep::start() {
  if (interpreter_.empty() || thread_.joinable()) return;
  thread_ = std::thread([this] {
    // The nice value is a thread's own on Linux, and a process started from this thread inherits
    // it: cuobjdump yields the CPU to the measuring worker's launches.
    ::setpriority(PRIO_PROCESS, 0, 10);
    background_ = pass(true);
  });
}

SassStep::Pass SassStep::pass(bool background) const {
  Pass p;
  std::error_code ec;
  if (interpreter_.empty() || !fs::is_directory(artifact_root_, ec) || !has_cubin(artifact_root_)) return p;
  p.ran = true;
  const auto began = std::chrono::steady_clock::now();
  try {
    const auto answer = run_program(interpreter_, {"-m", "isobench.triton_ir", "sass", artifact_root_}, "",
                                    {"PYTHONPATH=" + package_});
    if (answer.exit_code != 0) throw std::runtime_error("exit " + std::to_string(answer.exit_code) + ": " + first_line(answer.err));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    std::ostringstream line;
    line << first_line(answer.out) << " in " << std::fixed << std::setprecision(2) << seconds << " s"
         << (background ? ", beside the measurement" : "");
    p.line = line.str();
  } catch (const std::exception& e) {
    p.failed = true;
    p.line = e.what();
  }
  return p;
}

void SassStep::finish(RunLog& log, const Log& warnings) {
  if (thread_.joinable()) thread_.join();
  // A background pass that failed would fail again: said once.
  for (const Pass& p : {background_, background_.failed ? Pass{} : pass(false)}) {
    if (!p.ran) continue;
    if (!p.failed) {
      log.write("sass", p.line);
      continue;
    }
    log.write("sass", "not made: " + p.line);
    warnings.warning("the SASS of the Triton kernels was not made: " + p.line);
  }
}

}  // namespace isobench::orchestrator
