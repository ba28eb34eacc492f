#include "run_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>

#include "ipc/rank_group.hpp"
#include "kernels/plugin_loader.hpp"
#include "orchestrator/artifacts.hpp"
#include "orchestrator/commands/compare_command.hpp"
#include "orchestrator/environment.hpp"
#include "orchestrator/gpu_environment.hpp"
#include "orchestrator/interrupt.hpp"
#include "orchestrator/plan.hpp"
#include "orchestrator/run_directory.hpp"
#include "orchestrator/runner/runner.hpp"
#include "orchestrator/sample_journal.hpp"
#include "orchestrator/summary.hpp"

namespace fs = std::filesystem;

namespace isobench::orchestrator {

namespace {

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

kernels::Backend choose_device(const std::string& device) {
  if (device == "cpu") return kernels::Backend::cpu;
#ifdef ISOBENCH_WITH_CUDA
  const bool have_gpu = gpu_available();
#else
  const bool have_gpu = false;
#endif
  if (device == "cuda") {
    if (!have_gpu)
      throw BadInput("--device cuda: no usable NVIDIA GPU (or this build has no CUDA); use --device cpu");
    return kernels::Backend::cuda;
  }
  return have_gpu ? kernels::Backend::cuda : kernels::Backend::cpu;
}

// The device memory one worker may hold at once: --memory-budget, or a safe fraction of what the
// devices have free (90% of the free memory of the GPU that has least; half the host's memory).
// 0 when unknown.
std::uint64_t memory_budget(const RunCommandOptions& options, kernels::Backend device, const std::vector<int>& gpus) {
  if (options.memory_budget_mib > 0) return options.memory_budget_mib << 20;
  if (device == kernels::Backend::cuda) {
    std::uint64_t least = 0;
    for (const int gpu : gpus) {
      const auto free_bytes = gpu_free_memory_bytes(gpu);
      if (!free_bytes) return 0;  // unknown: the worker's own allocation error will say it
      least = least == 0 ? *free_bytes : std::min(least, *free_bytes);
    }
    return least / 10 * 9;
  }
  return host_memory_bytes() / 2;
}

// The GPUs a new run spreads its instances over: --gpus (a list, or all that a worker sees), or
// --gpu alone. Every listed GPU must exist when NVML can tell.
std::vector<int> chosen_gpus(const RunCommandOptions& options, kernels::Backend device) {
  if (options.gpus.empty()) return {options.gpu};
  if (options.gpu_given) throw BadInput("--gpu and --gpus: give one of them");
  std::vector<int> gpus;
  if (options.gpus == "all") {
    const int n = visible_gpu_count();
    if (n == 0) throw BadInput("--gpus all: NVML shows no GPU here; list the GPUs (--gpus 0,1) or use --gpu");
    for (int i = 0; i < n; ++i) gpus.push_back(i);
    return gpus;
  }
  std::size_t pos = 0;
  while (pos <= options.gpus.size()) {
    const std::size_t comma = std::min(options.gpus.find(',', pos), options.gpus.size());
    const std::string item = options.gpus.substr(pos, comma - pos);
    int gpu = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), gpu);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || gpu < 0)
      throw BadInput("--gpus " + options.gpus + ": '" + item + "' is not a GPU index (expected e.g. 0,1 or all)");
    if (std::find(gpus.begin(), gpus.end(), gpu) != gpus.end())
      throw BadInput("--gpus " + options.gpus + ": GPU " + item + " is listed twice");
    gpus.push_back(gpu);
    pos = comma + 1;
  }
  if (device == kernels::Backend::cuda && gpu_free_memory_bytes(0))
    for (const int gpu : gpus)
      if (!gpu_free_memory_bytes(gpu))
        throw BadInput("--gpus " + options.gpus + ": there is no CUDA device " + std::to_string(gpu) + " here (" +
                       std::to_string(visible_gpu_count()) + " visible)");
  return gpus;
}

// Spreading instances over GPUs places each on one GPU; an instance of several ranks already
// takes a GPU per rank (--gpu + r), so the two do not mix in one run.
void check_multi_rank_spread(const Plan& plan, const std::string& sweep_path) {
  if (plan.gpus.size() < 2) return;
  for (const auto& p : plan.instances)
    if (const auto ranks = ipc::world_size(p.worker); ranks > 1)
      throw BadInput(sweep_path + ": " + p.worker.id + " has ranks " + std::to_string(ranks) +
                     ": --gpus spreads single-GPU instances over GPUs; run multi-rank instances with --gpu (rank r on "
                     "--gpu + r)");
}

// Another process computing on the GPU disturbs every number: with --require-idle-gpu that is an
// error before anything runs (without it, the environment warning says so loudly).
void check_gpu_idle(int gpu) {
  const auto env = collect_gpu_environment();
  if (!env.value("available", false) || !env.contains("gpus")) return;
  for (const auto& g : env["gpus"]) {
    if (g.value("index", -1) != gpu || !g.contains("processes") || g["processes"].empty()) continue;
    std::string pids;
    for (const auto& p : g["processes"]) pids += (pids.empty() ? "" : ", ") + p.value("pid", nlohmann::json(0)).dump();
    throw BadInput("--require-idle-gpu: GPU " + std::to_string(gpu) + " (" + g.value("name", std::string("?")) +
                   ") is in use by " + std::to_string(g["processes"].size()) + " other processes (pid " + pids + ")");
  }
}

// A multi-rank instance needs one GPU per rank: rank r runs on CUDA device --gpu + r. When NVML
// sees the first device but not the last one needed, the run is refused before anything starts
// (instead of every group failing in NCCL's setup and being retried). Without NVML the workers
// find out themselves and fail cleanly.
void check_rank_gpus(const Plan& plan, int gpu, const std::string& sweep_path) {
  if (plan.device != "cuda" || !gpu_free_memory_bytes(gpu)) return;
  for (const auto& p : plan.instances) {
    const int ranks = static_cast<int>(ipc::world_size(p.worker));
    if (ranks > 1 && !gpu_free_memory_bytes(gpu + ranks - 1))
      throw BadInput(sweep_path + ": " + p.worker.id + " needs " + std::to_string(ranks) +
                     " GPUs (rank r runs on --gpu + r), but there is no CUDA device " +
                     std::to_string(gpu + ranks - 1) + " here");
  }
}

// Hashes what the workers left in <run>/artifacts into artifacts.json (after a resumed run too:
// its workers may have written more). A problem here is reported and never fails the run: the
// samples are what the run is for.
void archive_run_artifacts(const RunDirectory& dir, const Plan& plan, RunLog& log) {
  std::vector<std::string> ids;
  for (const auto& p : plan.instances) ids.push_back(p.worker.id);
  try {
    const auto archive = archive_artifacts(dir.file("artifacts"), ids, plan.schedule.sides);
    for (const auto& note : archive.notes) {
      log.write("artifact", note);
      std::cerr << "warning: artifact " << note << "\n";
    }
    dir.write_json("artifacts.json", archive.document);
  } catch (const std::exception& e) {
    log.write("artifact", std::string("not archived: ") + e.what());
    std::cerr << "warning: artifacts not archived: " << e.what() << "\n";
  }
}

std::string default_out_dir(const std::string& sweep_name) {
  std::string base = "runs/" + sweep_name + "-" + compact_utc_timestamp();
  std::string dir = base;
  for (int i = 2; fs::exists(dir); ++i) dir = base + "-" + std::to_string(i);
  return dir;
}

void print_summary(const RunCommandOptions& options, const std::vector<InstanceSummary>& rows) {
  if (options.format == "none") return;
  if (options.format == "json")
    std::cout << summary_to_json(rows).dump(2) << "\n";
  else if (options.format == "csv")
    print_csv(std::cout, rows);
  else if (options.format == "markdown")
    print_markdown(std::cout, rows);
  else
    print_table(std::cout, rows);
}

// ab --baseline-set / --candidate-set: each side's workers get --set NAME=VALUE.
void add_side_overrides(Plan& plan, const RunCommandOptions& options) {
  plan.worker_args.resize(2);
  const std::vector<std::string>* sets[2] = {&options.baseline_sets, &options.candidate_sets};
  const char* flags[2] = {"--baseline-set", "--candidate-set"};
  for (std::size_t side = 0; side < 2; ++side)
    for (const auto& set : *sets[side]) {
      const auto eq = set.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == set.size())
        throw BadInput(std::string("ab: ") + flags[side] + " " + set + ": expected NAME=VALUE");
      const std::string name = set.substr(0, eq);
      const bool used = std::any_of(plan.instances.begin(), plan.instances.end(),
                                    [&](const PlannedInstance& p) { return p.worker.params.contains(name); });
      if (!used)
        throw BadInput(std::string("ab: ") + flags[side] + " " + set + ": no instance of the sweep has a parameter '" +
                       name + "'");
      plan.worker_args[side].insert(plan.worker_args[side].end(), {"--set", set});
    }
}

// --replay-from RUN_DIR: every instance that RUN_DIR recorded a choice for replays it.
void replay_choices(Plan& plan, const std::string& run_dir, bool quiet) {
  const fs::path file = fs::path(run_dir) / "instance_reports.json";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw BadInput("--replay-from: " + file.string() + ": no such file (is " + run_dir + " a run directory?)");
  nlohmann::json reports;
  try {
    std::ifstream in(file);
    reports = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    throw BadInput("--replay-from: " + file.string() + ": not JSON: " + e.what());
  }
  if (!reports.is_object() || !reports.contains("instances") || !reports["instances"].is_object())
    throw BadInput("--replay-from: " + file.string() + ": instances: missing or not an object");
  std::size_t replayed = 0, without = 0;
  for (auto& p : plan.instances) {
    const auto& recorded = reports["instances"];
    const auto it = recorded.find(p.worker.id);
    if (it == recorded.end() || !it->is_object() || !it->contains("describe") || !(*it)["describe"].is_object() ||
        (*it)["describe"].empty()) {
      without += p.worker.backend == "cuda" ? 1 : 0;
      continue;
    }
    p.replay = (*it)["describe"];
    ++replayed;
  }
  if (!quiet)
    std::cerr << "note: --replay-from " << run_dir << ": " << replayed << " instances replay its recorded choices"
              << (without ? ", " + std::to_string(without) + " CUDA instances have none there and choose afresh" : "")
              << "\n";
}

int execute(const RunCommandOptions& options) {
  install_interrupt_handlers();
  Plan plan;
  std::unique_ptr<RunDirectory> dir;
  nlohmann::json run_info;
  // Device memory one worker may hold: the plan's memory groups, and the runner's check before a
  // worker allocates beside exiting ones.
  std::uint64_t budget = 0;
  if (!options.resume_dir.empty()) {
    dir = std::make_unique<RunDirectory>(RunDirectory::open(options.resume_dir));
    const auto plan_json = dir->read_json("plan.json");
    check_schema_version(plan_json, dir->file("plan.json"));
    plan = Plan::from_json(plan_json);
    run_info = dir->read_json("run.json");
    if (run_info.value("status", "") == "complete") {
      std::cerr << "orchestrate: " << options.resume_dir << " is complete; nothing to resume\n";
      return 0;
    }
    run_info["resumed"].push_back(utc_timestamp());
    if (!options.gpus.empty() || options.gpu_given)
      throw BadInput("--resume: the run measures on the GPUs its plan.json names; --gpu and --gpus are not taken");
    budget = memory_budget(options, plan.device == "cuda" ? kernels::Backend::cuda : kernels::Backend::cpu,
                           plan_gpus(plan, options.gpu));
  } else {
    if (options.sweep_path.empty()) throw BadInput("orchestrate: give a sweep file (or --resume RUN_DIR); see --help");
    const Sweep sweep = load_sweep(options.sweep_path, options.overrides);
    const auto device = choose_device(options.device);
    const auto gpus = chosen_gpus(options, device);
    budget = memory_budget(options, device, gpus);
    if (budget > 0)
      if (auto problem = check_memory(sweep, budget, device); !problem.empty()) throw BadInput(sweep.path + ": " + problem);
    plan = make_plan(sweep, device, budget, gpus);
    check_multi_rank_spread(plan, sweep.path);
    if (gpus.size() > 1 && device == kernels::Backend::cpu && !options.quiet)
      std::cerr << "note: --gpus with the CPU kernels runs " << gpus.size()
                << " schedules at once on this machine's cores, where they disturb each other\n";
    if (options.ab) {
      if (sweep.settings.isolation != "process")
        throw BadInput("ab: --isolation " + sweep.settings.isolation +
                       " cannot hold two builds; A/B runs use fresh worker processes (--isolation process)");
      // Two builds of the sweep's plugin (shared libraries) run in the default worker, each side
      // loading its own library in place of the sweep's; otherwise the sides are worker builds.
      auto is_library = [](const std::string& p) {
        const auto name = fs::path(p).filename().string();
        return name.ends_with(".so") || name.find(".so.") != std::string::npos;
      };
      const bool plugin_ab = is_library(options.baseline) && is_library(options.candidate);
      if (plugin_ab) {
        if (sweep.plugins.size() != 1)
          throw BadInput("ab: --baseline and --candidate are plugin libraries, so the sweep must use exactly one "
                         "plugin; it uses " + std::to_string(sweep.plugins.size()));
        for (const auto* lib : {&options.baseline, &options.candidate}) {
          try {
            const auto& plugin = kernels::load_plugin(fs::absolute(*lib).lexically_normal().string());
            for (const auto& p : plan.instances)
              if (!p.worker.plugin.empty() && !plugin.find(p.worker.kernel))
                throw BadInput("ab: " + *lib + " has no kernel " + p.worker.kernel + " (the sweep measures it)");
          } catch (const kernels::PluginError& e) {
            throw BadInput(std::string("ab: ") + e.what());
          }
        }
      } else {
        for (const auto* exe : {&options.baseline, &options.candidate}) {
          std::error_code ec;
          if (exe->empty() || !fs::is_regular_file(*exe, ec) || access(exe->c_str(), X_OK) != 0)
            throw BadInput("ab: " + (exe->empty() ? std::string("--baseline and --candidate are required")
                                                  : *exe + ": not an executable worker build"));
        }
      }
      plan.schedule = make_ab_schedule(parse_granularity(sweep.settings.per), plan.schedule.groups,
                                       static_cast<std::uint32_t>(sweep.settings.samples), sweep.settings.seed);
      if (plugin_ab) {
        const std::string worker =
            fs::absolute(options.worker.empty() ? default_worker_path() : options.worker).string();
        plan.workers = {worker, worker};
        for (const auto* lib : {&options.baseline, &options.candidate})
          plan.worker_args.push_back(
              {"--plugin-override", sweep.plugins[0] + "=" + fs::absolute(*lib).lexically_normal().string()});
      } else {
        plan.workers = {fs::absolute(options.baseline).string(), fs::absolute(options.candidate).string()};
      }
    }
    if (options.ab) add_side_overrides(plan, options);
    if (!options.replay_from.empty()) replay_choices(plan, options.replay_from, options.quiet);
    if (plan.instances.empty())
      throw BadInput(sweep.path + ": no instance runs on " + kernels::to_string(device) + " (" +
                     std::to_string(plan.skipped.size()) + " need another device)");
    // Every planned sample has a slot in the shared-memory segment, which holds at most 2^28.
    const std::uint64_t slots = std::uint64_t{plan.schedule.n_instances} * plan.schedule.samples * plan.schedule.sides;
    if (slots > (std::uint64_t{1} << 28))
      throw BadInput(sweep.path + ": " + std::to_string(plan.instances.size()) + " instances x " +
                     std::to_string(plan.schedule.samples) + " samples x " + std::to_string(plan.schedule.sides) +
                     " sides is " + std::to_string(slots) + " samples, more than one run holds (268435456)");
    if (plan.schedule.groups.size() > 1 && !options.quiet)
      std::cerr << "note: the instances do not fit in device memory at once (budget " << (budget >> 20)
                << " MiB): they run in " << plan.schedule.groups.size() << " groups, one after another\n";
    if (device == kernels::Backend::cuda && options.require_idle_gpu)
      for (const int gpu : gpus) check_gpu_idle(gpu);
    check_rank_gpus(plan, gpus.front(), sweep.path);
    dir = std::make_unique<RunDirectory>(
        RunDirectory::create(options.out_dir.empty() ? default_out_dir(sweep.name) : options.out_dir));
    dir->write_text("sweep.yaml", sweep.source_text);
    dir->write_json("plan.json", plan.to_json());
    run_info = {{"schema_version", kRunSchemaVersion}, {"sweep", sweep.name}, {"started", utc_timestamp()},
                {"command_line", options.command_line}, {"resumed", nlohmann::json::array()}};
    if (!plan.skipped.empty())
      std::cerr << "note: " << plan.skipped.size() << " instances need a device other than " << plan.device
                << " and are left out (listed in plan.json)\n";
  }
  // CUDA numbers devices fastest first, NVML and nvidia-smi by PCI bus: on a machine of mixed
  // GPUs the two differ. Workers get the PCI order unless the user chose one, so that a device
  // index names the same GPU to a worker and to the orchestrator's NVML checks.
  if (plan.device == "cuda") setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0);
  if (const char* order = std::getenv("CUDA_DEVICE_ORDER")) run_info["cuda_device_order"] = order;
  run_info["status"] = "running";
  dir->write_json("run.json", run_info);
  const auto env = collect_environment(options.command_line);
  dir->write_json(options.resume_dir.empty() ? "environment.json" : "environment-resume.json", env.data);
  for (const auto& w : env.warnings) std::cerr << "warning: " << w << "\n";
  if (!options.quiet) std::cerr << "run directory: " << dir->path() << "\n";

  RunLog log(dir->file("log.txt"));
  log.write("run-start", options.resume_dir.empty() ? "new run" : "resumed");
  RunnerOptions ropts;
  if (!plan.workers.empty())
    for (std::size_t side = 0; side < plan.workers.size(); ++side)
      ropts.workers.push_back({plan.workers[side], side < plan.worker_args.size() ? plan.worker_args[side]
                                                                                : std::vector<std::string>{}});
  else
    ropts.workers = {{options.worker.empty() ? default_worker_path() : options.worker, {}}};
  ropts.worker_timeout_s = options.worker_timeout_s;
  ropts.retries = options.retries;
  // Pre-start defaults to 1 on the GPU, 0 on the CPU. With the context gate (no context created
  // or destroyed beside a measurement) one pre-started worker gave 1.67x samples per minute per
  // batch and 1.2x per sample on the H200 (the driver makes a context in about 220 ms, and a
  // context cannot be hidden behind a measurement without disturbing it), with the share of
  // disturbed samples and the power of an A/B run of a real 5% regression unchanged (6 of 9
  // SLOWER with and without); deeper pre-start gains nothing more (docs/results/2026-11-29-h200-d).
  // Without the gate, pre-start 4 had tripled the disturbed samples and cut that power to 1 of 9
  // (docs/results/2026-11-29-h200-c). A CPU worker starts in about 2 ms: nothing to hide there,
  // and a waiting process would share the CPUs being measured.
  ropts.prestart = options.prestart >= 0 ? options.prestart : plan.device == "cuda" ? 1 : 0;
  run_info["prestart"] = ropts.prestart;
  ropts.context_gate = options.context_gate;
  ropts.memory_budget_bytes = budget;
  run_info["context_gate"] = ropts.context_gate;
  ropts.device = options.gpu;  // plans from before --gpus name no GPU per instance
  run_info["gpus"] = plan_gpus(plan, options.gpu);
  ropts.quiet = options.quiet;
  ropts.artifact_root = fs::absolute(dir->file("artifacts")).lexically_normal().string();
  Runner runner(*dir, plan, ropts, log);
  RunOutcome outcome;
  try {
    outcome = runner.run();
  } catch (const std::exception& e) {
    run_info["status"] = "failed";
    run_info["error"] = e.what();
    run_info["finished"] = utc_timestamp();
    dir->write_json("run.json", run_info);
    log.write("run-failed", e.what());
    std::cerr << "orchestrate: " << e.what() << "\n";
    return 1;
  }
  archive_run_artifacts(*dir, plan, log);

  const auto journal = read_journal(dir->file("samples.jsonl"));
  const auto rows = summarize(plan, journal.samples);
  dir->write_json("summary.json", summary_to_json(rows));
  const std::size_t recorded = journal.samples.size();
  const std::size_t expected = plan.schedule.total_samples();
  run_info["finished"] = utc_timestamp();
  run_info["samples_expected"] = expected;
  run_info["samples_recorded"] = recorded;
  run_info["workers_started"] = outcome.workers_started;
  run_info["wall_seconds"] = outcome.wall_seconds;
  run_info["failures"] = outcome.failures.size();
  if (outcome.interrupted) {
    run_info["status"] = "interrupted";
  } else {
    run_info["status"] = recorded == expected ? "complete" : "incomplete";
  }
  dir->write_json("run.json", run_info);
  log.write("run-end", run_info["status"].get<std::string>() + ": " + std::to_string(recorded) + " of " +
                           std::to_string(expected) + " samples");
  if (outcome.interrupted) {
    std::cerr << "orchestrate: interrupted; " << recorded << " of " << expected
              << " samples kept; finish with: orchestrate --resume " << dir->path() << "\n";
    return 130;
  }
  int verdict_exit = 0;
  if (plan.schedule.sides == 2 && options.format != "none") {
    // An A/B run answers with verdicts, baseline against candidate, in the chosen format.
    CompareOptions compare;
    compare.runs = {dir->path()};
    compare.format = options.format == "json"       ? CompareFormat::json
                     : options.format == "csv"      ? CompareFormat::csv
                     : options.format == "markdown" ? CompareFormat::markdown
                                                    : CompareFormat::terminal;
    verdict_exit = run_compare(compare, std::cout, std::cerr);
  } else {
    print_summary(options, rows);
  }
  if (recorded != expected) {
    std::cerr << "orchestrate: " << (expected - recorded) << " of " << expected << " samples failed ("
              << outcome.failures.size() << " worker failures; see " << dir->file("log.txt") << ")\n";
    return 3;
  }
  return verdict_exit;
}

}  // namespace

std::string default_worker_path() {
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "isobench-worker";
  return (self.parent_path() / "isobench-worker").string();
}

void add_run_options(CLI::App& app, RunCommandOptions& o) {
  app.add_option("sweep", o.sweep_path, "sweep file (YAML); see docs/sweep-format.md");
  app.add_option("--resume", o.resume_dir, "finish an interrupted run: measure only its missing samples");
  app.add_option("--out", o.out_dir, "run directory to create (default: runs/<sweep>-<utc time>)");
  app.add_option("--device", o.device, "where to run: auto (a GPU when present), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  app.add_option_function<int>(
         "--gpu",
         [&o](int gpu) {
           o.gpu = gpu;
           o.gpu_given = true;
         },
         "CUDA device index (default 0)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--gpus", o.gpus,
                 "GPUs to spread the instances over, e.g. 0,1 or all: one schedule runs on each GPU at once, each "
                 "instance on one of them (docs/measurement.md)");
  app.add_option("--worker", o.worker, "worker executable (default: isobench-worker beside orchestrate)");
  app.add_option("--worker-timeout", o.worker_timeout_s, "seconds without a worker heartbeat before it is killed")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--prestart", o.prestart,
                 "workers started ahead of the measuring one, released one at a time (default 1 on the GPU, 0 on "
                 "the CPU; docs/measurement.md)")
      ->check(CLI::Range(0, 8));
  app.add_option("--context-gate", o.context_gate,
                 "on: a worker creates its CUDA context only while no worker measures, and starts measuring only "
                 "while no other worker creates a context or exits; off: contexts come and go beside "
                 "measurements (to measure what the gate buys)")
      ->capture_default_str();
  app.add_option("--memory-budget", o.memory_budget_mib,
                 "MiB of device memory one worker may hold; instances are grouped to fit (default: 90% of the "
                 "GPU's free memory, half the host's)");
  app.add_option("--retries", o.retries, "fresh workers tried for the samples of a failed one")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  app.add_option("--format", o.format, "summary on stdout: table, json, csv, markdown or none")
      ->check(CLI::IsMember({"table", "json", "csv", "markdown", "none"}))
      ->capture_default_str();
  app.add_flag_callback("--json", [&o] { o.format = "json"; }, "same as --format json");
  app.add_flag_callback("--csv", [&o] { o.format = "csv"; }, "same as --format csv");
  app.add_flag_callback("--markdown", [&o] { o.format = "markdown"; }, "same as --format markdown");
  app.add_flag("-q,--quiet", o.quiet, "no progress on stderr");
  app.add_flag("--require-idle-gpu", o.require_idle_gpu,
               "refuse to run while another process uses the GPU (otherwise a loud warning)");
  add_setting_options(app, o.overrides, {});
  app.add_option("--replay-from", o.replay_from,
                 "run directory whose recorded choices (cuBLASLt algorithms, instance_reports.json) this run replays");
}

void add_setting_options(CLI::App& app, SettingsOverrides& overrides, const std::vector<std::string>& except) {
  for (const auto& spec : ipc::setting_specs()) {
    const std::string name(spec.name);
    if (std::find(except.begin(), except.end(), name) != except.end()) continue;
    const std::string help = std::string(spec.help) + " (overrides the sweep)";
    if (spec.bare_flag) {
      app.add_flag_callback(spec.flag(), [&overrides, name] { overrides.set(name, true); }, help);
      continue;
    }
    app.add_option_function<std::string>(
        spec.flag(), [&overrides, name](const std::string& text) { overrides.set_text(name, text); }, help);
  }
}

void register_ab_command(CLI::App& app, RunCommandOptions& options, int& exit_code) {
  auto* ab = app.add_subcommand("ab",
                                "A/B run: baseline and candidate worker builds alternate in fresh processes, in a "
                                "randomized balanced order, in one run; prints per-instance verdicts");
  add_run_options(*ab, options);
  ab->add_option("--baseline", options.baseline,
                 "worker executable of the baseline build, or a build of the sweep's plugin (.so)")
      ->required();
  ab->add_option("--candidate", options.candidate,
                 "worker executable of the candidate build, or a build of the sweep's plugin (.so)")
      ->required();
  ab->add_option("--baseline-set", options.baseline_sets,
                 "NAME=VALUE: the baseline's workers run every instance with parameter NAME at VALUE; repeatable");
  ab->add_option("--candidate-set", options.candidate_sets,
                 "NAME=VALUE: the candidate's workers run every instance with parameter NAME at VALUE (e.g. algo=1 "
                 "forces another cuBLASLt algorithm); repeatable");
  ab->callback([&options, &exit_code] {
    options.ab = true;
    exit_code = run_command(options);
  });
}

int run_command(const RunCommandOptions& options) {
  try {
    return execute(options);
  } catch (const SweepError& e) {
    std::cerr << "orchestrate: " << e.what() << "\n";
    return 2;
  } catch (const BadInput& e) {
    std::cerr << "orchestrate: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "orchestrate: " << e.what() << "\n";
    return options.resume_dir.empty() ? 1 : 2;
  }
}

}  // namespace isobench::orchestrator
