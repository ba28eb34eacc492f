#include "orchestrator/run/sweep_plan.hpp"

#include <stdexcept>

#include "ipc/settings.hpp"

namespace isobench::orchestrator {

namespace {

// Runs of consecutive instances that are timing calls of one do_bench test: the sweep makes a
// test's calls one after another, in the order the test makes them (sweep/expansion.cpp).
CallChains call_chains_of(const std::vector<PlannedInstance>& instances) {
  // The pytest arguments too: one test under two entries' arguments is two tests. (Not the whole
  // pytest object: it marks each control call.)
  const auto same_test = [](const ipc::WorkerInstance& a, const ipc::WorkerInstance& b) {
    return a.python_module == b.python_module && a.python_function == b.python_function &&
           a.pytest.value("args", nlohmann::json()) == b.pytest.value("args", nlohmann::json());
  };
  const auto timing_call = [](const ipc::WorkerInstance& w) {
    return w.pytest.is_object() && w.pytest.value("timing", "") == "do_bench";
  };
  CallChains chains;
  for (std::uint32_t i = 0; i < instances.size(); ++i) {
    const auto& w = instances[i].worker;
    if (!timing_call(w)) continue;
    if (!chains.empty() && chains.back().back() + 1 == i && same_test(instances[i - 1].worker, w))
      chains.back().push_back(i);
    else
      chains.push_back({i});
  }
  std::erase_if(chains, [](const auto& chain) { return chain.size() < 2; });
  return chains;
}

}  // namespace

Plan make_plan(const Sweep& sweep, kernels::Backend device, std::uint64_t memory_budget, const std::vector<int>& gpus) {
  if (gpus.empty()) throw std::invalid_argument("make_plan: no GPU to run on");
  Plan plan;
  plan.gpus = gpus;
  plan.sweep_name = sweep.name;
  plan.device = kernels::to_string(device);
  plan.settings = sweep.settings.to_json();
  for (const auto& in : sweep.instances) {
    const bool is_command = !in.command.empty();  // a command runs wherever the worker runs
    if (in.backend != device && !is_command) {
      plan.skipped.push_back(in.id);
      plan.skipped_reasons[in.id] =
          "runs on " + kernels::to_string(in.backend) + ", and this run measures on " + plan.device;
      continue;
    }
    PlannedInstance p;
    p.worker.id = in.id;
    p.worker.kernel = in.kernel;
    p.worker.backend = is_command ? "command" : kernels::to_string(in.backend);
    p.worker.params = in.params;
    p.worker.seed = instance_seed(sweep.settings.seed, in.id);
    p.worker.measure = in.measure;
    p.worker.plugin = in.plugin;
    p.worker.command = in.command;
    p.worker.command_dir = in.command_dir;
    p.worker.python_module = in.python_module;
    p.worker.python_function = in.python_function;
    p.worker.pytest = in.pytest;
    p.family = in.family;
    p.warmup = static_cast<std::uint32_t>(in.measure.warmup);
    // A command is one fresh invocation per sample; a cold cache one launch after a flush, by the
    // settings' own rule (ipc::finalize), which a sweep has applied already.
    ipc::MeasureSettings measure = in.measure;
    ipc::finalize(measure);
    if (is_command)
      p.fixed_inner = 1;
    else if (measure.inner)
      p.fixed_inner = static_cast<std::uint32_t>(*measure.inner);
    p.min_sample_time_s = in.measure.min_sample_time_s;
    if (is_command) p.warmup = 0;  // warm-up belongs inside the program: each sample is a fresh one
    p.inner = p.fixed_inner.value_or(0);
    p.device_bytes = in.device_bytes;
    p.gpu = gpus[plan.instances.size() % gpus.size()];
    plan.instances.push_back(std::move(p));
  }
  const auto isolation = parse_isolation(sweep.settings.isolation);
  const auto per = parse_granularity(sweep.settings.per);
  // A worker sets up every instance of its task list before measuring: the instances a worker
  // takes together must fit in the budget. Per-sample workers hold one instance each.
  const bool grouped_by_memory =
      memory_budget > 0 && !(isolation == Isolation::process && per == ProcessGranularity::sample);
  Groups groups;
  for (const int gpu : gpus) {
    std::vector<std::uint32_t> mine;
    for (std::uint32_t i = 0; i < plan.instances.size(); ++i)
      if (plan.instances[i].gpu == gpu) mine.push_back(i);
    if (mine.empty()) continue;
    Groups local = {mine};
    if (grouped_by_memory) {
      std::vector<std::uint64_t> bytes;
      for (auto i : mine) bytes.push_back(plan.instances[i].device_bytes);
      try {
        local = memory_groups(bytes, memory_budget);
        for (auto& g : local)
          for (auto& i : g) i = mine[i];
      } catch (const std::invalid_argument&) {
        // check_memory() names the instance; here only the grouping is decided.
      }
    }
    groups.insert(groups.end(), local.begin(), local.end());
  }
  if (groups.empty()) groups = single_group(0);
  plan.call_chains = call_chains_of(plan.instances);
  plan.schedule = make_schedule(isolation, per, groups, static_cast<std::uint32_t>(sweep.settings.samples),
                                sweep.settings.seed, plan.call_chains);
  return plan;
}

}  // namespace isobench::orchestrator
