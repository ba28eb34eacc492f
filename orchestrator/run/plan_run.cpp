#include "orchestrator/run/plan_run.hpp"

#include "orchestrator/run/sweep_plan.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string_view>

#include "ipc/rank_group.hpp"
#include "kernels/catalog.hpp"
#include "kernels/plugin_loader.hpp"
#include "kernels/gpu_libraries.hpp"
#include "orchestrator/format/numbers.hpp"
#include "orchestrator/gpu_environment.hpp"
#include "orchestrator/json_errors.hpp"
#include "orchestrator/program_output.hpp"
#include "orchestrator/run/run.hpp"
#include "orchestrator/sha256.hpp"
#include "stats/verdict_feasibility.hpp"

namespace fs = std::filesystem;

namespace isobench::orchestrator {

namespace {

bool is_library(const std::string& path) {
  const auto name = fs::path(path).filename().string();
  return name.ends_with(".so") || name.find(".so.") != std::string::npos;
}

// The first bytes of an ELF file name its class (32 or 64 bits), byte order and machine.
std::string elf_identity(const std::string& path) {
  char head[20] = {};
  std::ifstream in(path, std::ios::binary);
  in.read(head, sizeof head);
  if (in.gcount() < static_cast<std::streamsize>(sizeof head) || std::string_view(head, 4) != "\x7f" "ELF") return {};
  return std::string(head + 4, 2) + std::string(head + 18, 2);  // EI_CLASS, EI_DATA, e_machine
}

// Two builds of the sweep's plugin run in the default worker, each side loading its own library
// in place of the sweep's; otherwise the two sides are worker builds. One of each is a mistake:
// a library started as a worker dies of SIGSEGV.
void plan_ab_sides(Plan& plan, const RunRequest& request, const Sweep& sweep) {
  // Checked now: the comparison runs after the measurement, when a bad --alpha could only be logged.
  try {
    check_verdict_rule(request.verdict);
  } catch (const UsageError& e) {
    throw UsageError(std::string("ab: ") + e.what());
  }
  if (sweep.settings.isolation != "process")
    throw UsageError("ab: --isolation " + sweep.settings.isolation +
                     " cannot hold two builds; A/B runs use fresh worker processes (--isolation process)");
  const bool baseline_lib = is_library(request.baseline), candidate_lib = is_library(request.candidate);
  if (baseline_lib != candidate_lib)
    throw UsageError("ab: --baseline " + request.baseline + " and --candidate " + request.candidate +
                     ": one is a plugin library (.so) and the other is not; give two worker builds or two builds of "
                     "the sweep's plugin");
  if (baseline_lib) {
    if (sweep.plugins.size() != 1)
      throw UsageError("ab: --baseline and --candidate are plugin libraries, so the sweep must use exactly one "
                       "plugin; it uses " + std::to_string(sweep.plugins.size()));
    for (const auto* lib : {&request.baseline, &request.candidate}) {
      try {
        const auto& plugin = kernels::load_plugin(fs::absolute(*lib).lexically_normal().string());
        for (const auto& p : plan.instances)
          if (!p.worker.plugin.empty() && !plugin.find(p.worker.kernel))
            throw UsageError("ab: " + *lib + " has no kernel " + p.worker.kernel + " (the sweep measures it)");
      } catch (const kernels::PluginError& e) {
        throw UsageError(std::string("ab: ") + e.what());
      }
    }
    plan.workers = side_workers(request);
    for (const auto* lib : {&request.baseline, &request.candidate})
      plan.worker_args.push_back(
          {"--plugin-override", sweep.plugins[0] + "=" + fs::absolute(*lib).lexically_normal().string()});
  } else {
    check_worker_build(request.baseline, "ab: --baseline");
    check_worker_build(request.candidate, "ab: --candidate");
    plan.workers = side_workers(request);
  }
  plan.schedule = make_ab_schedule(parse_granularity(sweep.settings.per), plan.schedule.groups,
                                   static_cast<std::uint32_t>(sweep.settings.samples), sweep.settings.seed,
                                   plan.call_chains);
  // --baseline-set / --candidate-set: each side's workers get --set NAME=VALUE.
  plan.worker_args.resize(2);
  const std::vector<std::string>* sets[2] = {&request.baseline_sets, &request.candidate_sets};
  const char* flags[2] = {"--baseline-set", "--candidate-set"};
  for (std::size_t side = 0; side < 2; ++side)
    for (const auto& set : *sets[side]) {
      const auto eq = set.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == set.size())
        throw UsageError(std::string("ab: ") + flags[side] + " " + set + ": expected NAME=VALUE");
      const std::string name = set.substr(0, eq);
      const bool used = std::any_of(plan.instances.begin(), plan.instances.end(),
                                    [&](const PlannedInstance& p) { return p.worker.params.contains(name); });
      if (!used)
        throw UsageError(std::string("ab: ") + flags[side] + " " + set + ": no instance of the sweep has a parameter '" +
                         name + "'");
      plan.worker_args[side].insert(plan.worker_args[side].end(), {"--set", set});
    }
}

// --replay-from RUN_DIR: every instance that RUN_DIR recorded a choice for replays it.
void replay_choices(Plan& plan, const std::string& run_dir, const Log& log) {
  const fs::path file = fs::path(run_dir) / "instance_reports.json";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw UsageError("--replay-from: " + file.string() + ": no such file (is " + run_dir + " a run directory?)");
  nlohmann::json reports;
  try {
    std::ifstream in(file);
    reports = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError("--replay-from: " + file.string() + ": not JSON: " + json_error_text(e));
  }
  if (!reports.is_object() || !reports.contains("instances") || !reports["instances"].is_object())
    throw UsageError("--replay-from: " + file.string() + ": instances: missing or not an object");
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
  log.note("--replay-from " + run_dir + ": " + std::to_string(replayed) + " instances replay its recorded choices" +
           (without ? ", " + std::to_string(without) + " CUDA instances have none there and choose afresh" : ""));
}

// Spreading instances over GPUs places each on one GPU; an instance of several ranks already
// takes a GPU per rank (--gpu + r), so the two do not mix in one run.
void check_multi_rank_spread(const Plan& plan, const std::string& sweep_path) {
  if (plan.gpus.size() < 2) return;
  for (const auto& p : plan.instances)
    if (const auto ranks = ipc::world_size(p.worker); ranks > 1)
      throw UsageError(sweep_path + ": " + p.worker.id + " has ranks " + std::to_string(ranks) +
                       ": --gpus spreads single-GPU instances over GPUs; run multi-rank instances with --gpu (rank r "
                       "on --gpu + r)");
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
      throw UsageError(sweep_path + ": " + p.worker.id + " needs " + std::to_string(ranks) +
                       " GPUs (rank r runs on --gpu + r), but there is no CUDA device " +
                       std::to_string(gpu + ranks - 1) + " here");
  }
}

// The instances of the sweep that a missing runtime library leaves out, with why, and the line
// said for each missing library.
struct LeftOut {
  std::map<std::string, std::string> reasons;  // instance id: the missing library's line
  std::vector<std::string> lines;              // "N instances of gemm are left out (...): LINE"
  std::vector<std::string> libraries;          // each missing library's line, once
};

// The GPU software the sweep's built-in CUDA kernels need, asked of each side's worker build
// before the run is planned (isobench-worker --check-gpu, kernels/gpu_libraries.hpp): a driver
// too old for the worker's CUDA runtime, or a cuBLAS of another major version than it was built
// against, is bad input in the worker's one line, not a run whose GEMMs all fail. A library that
// is missing leaves out only the instances whose kernels need it (on either side of an A/B run):
// they are decided here, before make_plan, so that the schedule, the instance table, both sides
// and --resume see the same instances. Sharded runs are measured on the cluster's nodes, which
// this host does not see. A worker build from before the option answers with CLI11's exit code
// for an unknown option, not 2, and is let through: its kernels' set-up still says what is
// missing; one from before the report refuses the run with its line, as it did.
LeftOut check_gpu_fit(const Sweep& sweep, kernels::Backend device, const RunRequest& request) {
  LeftOut left;
  if (device != kernels::Backend::cuda || request.slurm.sharded()) return left;
  std::vector<std::string> libraries;
  std::vector<std::pair<const Instance*, const kernels::KernelSpec*>> needing;
  for (const auto& in : sweep.instances) {
    if (in.backend != kernels::Backend::cuda || !in.command.empty() || !in.plugin.empty() || !in.python_module.empty())
      continue;
    const auto* spec = kernels::find_kernel(in.kernel);
    if (!spec || spec->runtime_libraries.empty()) continue;
    needing.emplace_back(&in, spec);
    for (const auto& stem : spec->runtime_libraries)
      if (std::find(libraries.begin(), libraries.end(), stem) == libraries.end()) libraries.push_back(stem);
  }
  std::string list;
  for (const auto& stem : libraries) list += (list.empty() ? "" : ",") + stem;
  // A plugin library against a worker build is plan_ab_sides's to refuse: nothing to ask here.
  const bool mixed_pair = request.ab && is_library(request.baseline) != is_library(request.candidate);
  const std::vector<std::string> workers = mixed_pair ? std::vector<std::string>{} : side_workers(request);
  for (std::size_t side = 0; side < workers.size(); ++side) {
    if (side > 0 && workers[side] == workers[0]) continue;
    ProgramOutput answer;
    try {
      answer = run_program(workers[side], {"--check-gpu", list});
    } catch (const std::runtime_error&) {
      continue;  // the run itself says why it cannot start the worker
    }
    const std::string side_name =
        workers.size() > 1 ? std::string(side == 0 ? "--baseline " : "--candidate ") + workers[side] + ": " : "";
    const kernels::GpuFit fit = kernels::read_gpu_fit(answer.exit_code, answer.out, answer.err);
    if (!fit.refusal.empty()) throw UsageError((side_name.empty() ? "" : "ab: " + side_name) + fit.refusal);
    // The side is named where the two differ: one worker serves both sides of an A/B run of plugins.
    const std::string which = workers.size() > 1 && workers[1] != workers[0] ? side_name : "";
    for (const auto& [stem, line] : fit.missing) {
      std::size_t count = 0;
      std::string kernel_names;
      std::vector<std::string> named;
      for (const auto& [in, spec] : needing) {
        const auto& needs = spec->runtime_libraries;
        if (std::find(needs.begin(), needs.end(), stem) == needs.end()) continue;
        ++count;
        if (std::find(named.begin(), named.end(), in->kernel) == named.end()) {
          named.push_back(in->kernel);
          kernel_names += (kernel_names.empty() ? "" : ", ") + in->kernel;
        }
        std::string& reason = left.reasons[in->id];
        reason += (reason.empty() ? "" : "; ") + which + line;
      }
      if (count == 0) continue;
      left.lines.push_back(std::to_string(count) + (count == 1 ? " instance of " : " instances of ") + kernel_names +
                           (count == 1 ? " is" : " are") + " left out (listed in plan.json): " + which + line);
      if (std::find(left.libraries.begin(), left.libraries.end(), which + line) == left.libraries.end())
        left.libraries.push_back(which + line);
    }
  }
  return left;
}

// The sweep without the instances `left` leaves out.
Sweep without(const Sweep& sweep, const LeftOut& left) {
  Sweep reduced = sweep;
  reduced.instances.clear();
  for (const auto& in : sweep.instances)
    if (!left.reasons.contains(in.id)) reduced.instances.push_back(in);
  return reduced;
}

// Whether the plan can reach a verdict at all (stats/verdict_feasibility.hpp), before anything
// runs. An A/B run that cannot is refused with the smallest n that can, unless it is not a gate
// (--fail-on never). A plain run is not judged itself and only gets a note: it is compared later,
// with a rule of the user's choosing, and short runs have their uses (a look at the numbers, a
// smoke test).
void check_feasible(Plan& plan, const RunRequest& request, const Sweep& sweep) {
  const std::size_t m = plan.instances.size();
  const auto n = static_cast<std::size_t>(sweep.settings.samples);
  const VerdictRule& rule = request.verdict;
  if (request.until_verdict || (request.sequential_by_default && default_looks(n).size() > 1)) {
    SequentialPlan seq;
    seq.alpha = rule.alpha;
    seq.threshold = rule.threshold;
    seq.confidence = rule.confidence;
    seq.instances = m;
    seq.spending = request.spending;
    seq.futility = request.futility.value_or(kDefaultFutility);
    if (request.looks.empty())
      use_default_looks(seq, n);
    else
      seq.looks = request.looks;
    bool can_reject = false;
    try {
      can_reject = seq.can_reject();
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("ab --looks: ") + e.what());
    }
    // Whether a design can reach a verdict is its ordinary looks' to say; only a design that can
    // gets the extension, which carries on the instances beyond the floor that they left short.
    if (can_reject) {
      const std::size_t extend_to = extension_cap(request.extend_to, n, m, request.log);
      if (request.looks.empty())
        use_default_looks(seq, n, extend_to);
      else
        extend_looks(seq, extend_to);
      // The extension's looks need their rounds in the schedule: it runs to the cap, and the
      // runner takes the rounds past the most only for the instances that go on.
      if (const std::size_t cap = seq.looks.back(); cap > n)
        plan.schedule = make_ab_schedule(parse_granularity(sweep.settings.per), plan.schedule.groups,
                                         static_cast<std::uint32_t>(cap), sweep.settings.seed, plan.call_chains);
      plan.sequential = std::move(seq);
      return;
    }
    if (request.until_verdict) {
      const std::size_t least = stats::smallest_feasible_n(rule.alpha, m, rule.confidence);
      throw UsageError("ab --until-verdict: up to " + std::to_string(n) + " samples per side no look can reach SLOWER or " +
                       "FASTER over " + std::to_string(m) + " instances at alpha " + format("%g", rule.alpha) +
                       (least ? "; give --max-samples of at least " + std::to_string(least) : std::string()));
    }
    // ab's default: the fixed n, judged below as any.
    request.log.note("ab takes all " + std::to_string(n) + " samples per side: over " + std::to_string(m) +
                     " instances no look of the sequential design up to them can reach SLOWER or FASTER at alpha " +
                     format("%g", rule.alpha));
  }
  const std::string problem = unreachable_verdict(n, n, m, rule);
  if (problem.empty()) return;
  if (request.ab && rule.fail_on != FailOn::never)
    throw UsageError("ab: " + problem + ": give --samples N (or --until-verdict), or --fail-on never to run anyway");
  request.log.note(problem + (request.ab ? "" : " (compared as one family, alpha 0.001)"));
}

// The SHA-256 of every plugin library the run loads, so that --resume measures the code it began
// with (check_recorded_plugins refuses a library rebuilt since).
void record_plugins(Plan& plan) {
  std::set<std::string> libraries;
  for (const auto& p : plan.instances)
    if (!p.worker.plugin.empty()) libraries.insert(p.worker.plugin);
  for (const auto& args : plan.worker_args)
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == "--plugin-override") libraries.insert(args[i + 1].substr(args[i + 1].find('=') + 1));
  for (const auto& library : libraries) plan.plugin_sha256[library] = plugin_fingerprint(library);
}

// Whether a command benchmark's program is found through PATH, which then decides what it runs.
bool runs_programs_from_path(const Plan& plan) {
  return std::any_of(plan.instances.begin(), plan.instances.end(),
                     [](const PlannedInstance& p) { return looked_up_in_path(p.worker.command); });
}

}  // namespace

std::string plugin_fingerprint(const std::string& library) {
  std::error_code ec;
  const auto file = fs::canonical(library, ec);
  if (ec) return "";
  try {
    return sha256_file_hex(file.string());
  } catch (const std::runtime_error&) {
    return "";
  }
}

// Two builds of the sweep's plugin run in the default worker (plan_ab_sides).
std::vector<std::string> side_workers(const RunRequest& request) {
  // Recorded absolute and without "." or "..", as resolved where the run started: --resume and the
  // journal name the build however it was spelled then, from any directory.
  const auto recorded = [](const std::string& path) { return fs::absolute(path).lexically_normal().string(); };
  const std::string worker = recorded(request.worker.empty() ? default_worker_path() : request.worker);
  if (!request.ab) return {worker};
  if (is_library(request.baseline)) return {worker, worker};
  return {recorded(request.baseline), recorded(request.candidate)};
}

// A file the kernel cannot execute is found here, not by the first worker's start: that fails in
// the forked child (Exec format error), after the run directory exists.
void check_worker_build(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (path.empty()) throw UsageError(what + ": no path given");
  const std::string not_a_worker = what + " " + path + ": not an executable worker build";
  if (!fs::exists(path, ec)) throw UsageError(not_a_worker + " (no such file)");
  if (!fs::is_regular_file(path, ec) || access(path.c_str(), X_OK) != 0)
    throw UsageError(not_a_worker + " (not an executable file)");
  if (is_library(path))
    throw UsageError(what + " " + path + ": a plugin library, not a worker build (a sweep names its plugins; ab "
                     "takes two builds of one as --baseline and --candidate)");
  char head[2] = {};
  std::ifstream(path, std::ios::binary).read(head, sizeof head);
  if (std::string_view(head, 2) == "#!") return;
  const std::string identity = elf_identity(path);
  if (identity.empty()) throw UsageError(not_a_worker + " (neither an ELF program nor a #! script)");
  if (identity != elf_identity("/proc/self/exe"))
    throw UsageError(not_a_worker + " (an ELF program for another machine than this orchestrate)");
}

std::size_t extension_cap(std::optional<std::size_t> asked, std::size_t most, std::size_t instances, const Log& log) {
  const std::size_t cap = asked.value_or(kDefaultExtendTo);
  const std::uint64_t fits = kMaxSamplesPerRun / (2 * instances);
  if (cap <= most || cap <= fits) return cap;
  const std::string why = std::to_string(instances) + " instances x " + std::to_string(cap) +
                          " samples x 2 sides is more than one run holds (" + std::to_string(kMaxSamplesPerRun) + ")";
  if (asked)
    throw UsageError("ab --extend-to " + std::to_string(cap) + ": " + why +
                     "; give a smaller --extend-to, or 0 for none");
  // The default is the tool's choice, not the user's: a sweep too large for it is not refused.
  if (fits <= most) {
    log.note("no extension past " + std::to_string(most) + " samples per side: " + why);
    return 0;
  }
  log.note("the extension goes up to " + std::to_string(fits) + " samples per side, not " + std::to_string(cap) + ": " +
           why);
  return static_cast<std::size_t>(fits);
}

Plan plan_new_run(const RunRequest& request, const Sweep& sweep, const Machine& machine, const LikeRun* like) {
  if (!request.worker.empty()) check_worker_build(request.worker, "--worker");
  if (like) check_like_machine(*like, machine);
  if (sweep.settings.isolation != "process" && sweep.settings.per == "sample")
    throw UsageError(sweep.path + ": isolation " + sweep.settings.isolation +
                     " with per sample: per chooses how many samples a fresh worker takes in isolation process; use "
                     "--isolation process, or leave per out");
  if (machine.memory_budget_bytes > 0)
    if (auto problem = check_memory(sweep, machine.memory_budget_bytes, machine.device); !problem.empty())
      throw UsageError(sweep.path + ": " + problem);
  // Every planned sample has a slot in the shared-memory segment: the limit is checked on the
  // sweep, before planning allocates the schedule.
  const std::uint64_t sides = request.ab ? 2 : 1;
  const std::uint64_t slots = sweep.instances.size() * static_cast<std::uint64_t>(sweep.settings.samples) * sides;
  if (slots > kMaxSamplesPerRun)
    throw UsageError(sweep.path + ": " + std::to_string(sweep.instances.size()) + " instances x " +
                     std::to_string(sweep.settings.samples) + " samples x " + std::to_string(sides) + " sides is " +
                     std::to_string(slots) + " samples, more than one run holds (" +
                     std::to_string(kMaxSamplesPerRun) + ")");
  const LeftOut left_out = check_gpu_fit(sweep, machine.device, request);
  Plan plan = left_out.reasons.empty()
                  ? make_plan(sweep, machine.device, machine.memory_budget_bytes, machine.gpus)
                  : make_plan(without(sweep, left_out), machine.device, machine.memory_budget_bytes, machine.gpus);
  for (const auto& in : sweep.instances)
    if (const auto it = left_out.reasons.find(in.id); it != left_out.reasons.end()) {
      plan.skipped.push_back(in.id);
      plan.skipped_reasons[in.id] = it->second;
    }
  if (plan.instances.empty() && !left_out.reasons.empty()) {
    std::string missing;
    for (const auto& line : left_out.libraries) missing += (missing.empty() ? "" : "; ") + line;
    throw UsageError(sweep.path + ": no instance runs here: the " + std::to_string(left_out.reasons.size()) +
                     " that run on " + kernels::to_string(machine.device) + " need a library that is missing: " +
                     missing);
  }
  check_multi_rank_spread(plan, sweep.path);
  // The worker build of each side is the plan's, so that --resume measures with it and no other.
  if (request.ab)
    plan_ab_sides(plan, request, sweep);
  else
    plan.workers = side_workers(request);
  record_plugins(plan);
  plan.environment_variables = record_environment(deciding_variables(runs_programs_from_path(plan)));
  if (!request.replay_from.empty()) replay_choices(plan, request.replay_from, request.log);
  if (like) take_like_choices(plan, *like, request.overrides, request.log);
  if (plan.instances.empty())
    throw UsageError(sweep.path + ": no instance runs on " + kernels::to_string(machine.device) + " (" +
                     std::to_string(plan.skipped.size()) + " need another device)");
  check_rank_gpus(plan, machine.gpus.front(), sweep.path);
  check_feasible(plan, request, sweep);
  // Said even with --quiet: the run measures less than its sweep because of this machine.
  for (const auto& line : left_out.lines) request.log.warning(line);
  if (machine.gpus.size() > 1 && machine.device == kernels::Backend::cpu)
    request.log.note("--gpus with the CPU kernels runs " + std::to_string(machine.gpus.size()) +
                     " schedules at once on this machine's cores, where they disturb each other");
  // Groups split by memory, not the one group per GPU of --gpus.
  if (const std::size_t split = groups_per_gpu(plan); split > 1)
    request.log.note("the instances do not fit in device memory at once (budget " +
                     std::to_string(machine.memory_budget_bytes >> 20) + " MiB): " +
                     (machine.gpus.size() > 1 ? "a GPU runs its instances in up to " : "they run in ") +
                     std::to_string(split) + " groups, one after another");
  if (const std::size_t other_device = plan.skipped.size() - left_out.reasons.size(); other_device > 0)
    request.log.note(std::to_string(other_device) + " instances need a device other than " + plan.device +
                     " and are left out (listed in plan.json)");
  return plan;
}

}  // namespace isobench::orchestrator
