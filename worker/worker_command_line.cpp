#include "worker_command_line.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>
#include <sstream>

#include "kernels/benchmark.hpp"
#include "kernels/catalog.hpp"
#include "worker_session.hpp"
#ifdef ISOBENCH_WITH_CUDA
#include "worker/cuda/gpu_fit.hpp"
#endif

namespace isobench::worker {

int run_worker_command_line(int argc, char** argv) {
  CLI::App app{"isobench worker: measures the tasks of one lane of a run's shared-memory segment"};
  WorkerOptions options;
  bool list = false;
  app.add_option("--segment", options.segment, "shared-memory segment name (isobench-...)");
  app.add_option("--lane", options.lane, "lane index in the segment");
  app.add_option("--token", options.token, "this worker's identity token");
  app.add_option("--device", options.device, "CUDA device index")->capture_default_str();
  app.add_option("--rank", options.rank, "this worker's rank in its rank group (multi-rank instances)");
  app.add_option("--world", options.world, "ranks in the group: worker processes started together")
      ->check(CLI::Range(1, 8))
      ->capture_default_str();
  app.add_option("--group", options.group, "the rank group's index in the segment");
  app.add_flag("--list-kernels", list, "print the kernels this build implements and exit");
  std::optional<std::vector<std::string>> check_gpu;
  app.add_option_function<std::string>(
      "--check-gpu",
      [&check_gpu](const std::string& text) {
        check_gpu.emplace();
        std::stringstream in(text);
        for (std::string stem; std::getline(in, stem, ',');)
          if (!stem.empty()) check_gpu->push_back(stem);
      },
      "LIBRARIES: whether the GPU software here fits this build, and exit: the driver against its CUDA runtime, "
      "then each runtime library named (comma-separated, e.g. libcublasLt,libcublas; may be empty) opened as "
      "a kernel opens it. Prints a line per item on stdout, NAME<TAB>STATUS[<TAB>LINE]: driver, then each "
      "library, with status ok, missing (found nowhere), mismatch (a driver too old; only another major version "
      "of the library) or unknown. Exit 0 when all are ok, else 2 with one line on stderr naming what was "
      "found, what is needed and what to do: the first mismatch or unknown, else the first missing library");
  app.add_option("--artifact-root", options.artifact_root,
                 "folder of this side's artifact folders: each instance gets one, named in ISOBENCH_ARTIFACT_DIR "
                 "while it is set up");
  std::vector<std::string> overrides;
  app.add_option("--plugin-override", overrides,
                 "OLD=NEW: load plugin library NEW where the plan names OLD (A/B runs of two plugin builds); "
                 "repeatable");
  std::vector<std::string> sets;
  app.add_option("--set", sets,
                 "NAME=VALUE: run every instance that has parameter NAME with VALUE (JSON, else a string) instead "
                 "of the plan's; one side of an A/B run forced onto another choice, e.g. algo=1; repeatable");
  CLI11_PARSE(app, argc, argv);
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) {
      std::cerr << "isobench-worker: --set " << s << ": expected NAME=VALUE\n";
      return 2;
    }
    const std::string text = s.substr(eq + 1);
    auto value = nlohmann::json::parse(text, nullptr, false);
    options.param_overrides[s.substr(0, eq)] = value.is_discarded() ? nlohmann::json(text) : value;
  }
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == o.size()) {
      std::cerr << "isobench-worker: --plugin-override " << o << ": expected OLD=NEW\n";
      return 2;
    }
    options.plugin_overrides[o.substr(0, eq)] = o.substr(eq + 1);
  }
  if (list) {
    for (const auto& spec : isobench::kernels::builtin_catalog())
      if (isobench::kernels::create_benchmark(spec.name))
        std::cout << spec.name << "\t" << isobench::kernels::to_string(spec.backend) << "\n";
    return 0;
  }
  if (check_gpu) {
#ifdef ISOBENCH_WITH_CUDA
    // The report on stdout (kernels/gpu_libraries.hpp); on stderr the problem that matters most:
    // one that refuses a run before one that leaves out the kernels of a missing library.
    std::string refusal, missing;
    for (const auto& item : gpu_fit_report(*check_gpu)) {
      std::cout << isobench::kernels::gpu_fit_report_line(item);
      std::string& first = item.status == "missing" ? missing : refusal;
      if (item.status != "ok" && first.empty()) first = item.line;
    }
    const std::string problem = refusal.empty() ? missing : refusal;
#else
    const std::string problem = "this worker was built without CUDA";
#endif
    std::cout.flush();
    if (problem.empty()) return 0;
    std::cerr << "isobench-worker: " << problem << "\n";
    return 2;
  }
  if (options.segment.empty()) {
    std::cerr << "isobench-worker: --segment is required (workers are started by orchestrate)\n";
    return 2;
  }
  return run_worker(options);
}

}  // namespace isobench::worker
