#include "run_state.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "orchestrator/rank_groups.hpp"

namespace isobench::orchestrator {

namespace {

// The samples the progress line counts towards: the plan's, or, where a sequential plan's
// extension runs its schedule to a cap, those up to its last ordinary look (few instances go on).
std::size_t progress_total(const Plan& p) {
  if (!p.sequential || p.sequential->extension.from == 0) return p.schedule.total_samples();
  std::size_t n = 0;
  for (const auto& run : p.schedule.runs)
    for (const auto& t : run.tasks) n += t.round < p.sequential->extension.from ? 1 : 0;
  return n;
}

}  // namespace

OutputFile::OutputFile(const std::string& path) : f_(std::fopen(path.c_str(), "a")) {
  if (!f_) throw std::runtime_error(path + ": cannot open");
}

OutputFile::~OutputFile() { std::fclose(f_); }

RunState::RunState(const RunDirectory& d, Plan& p, const RunnerOptions& o, RunLog& l, ipc::Segment s,
                   std::set<std::uint32_t> done)
    : dir(d),
      plan(p),
      options(o),
      log(l),
      seg(std::move(s)),
      journal(d.file("samples.jsonl")),
      worker_output(d.file("workers.log")),
      done_slots(std::move(done)),
      progress(progress_total(p), o.quiet, p.sequential.has_value()) {
  for (std::uint32_t lane = seg.layout().n_lanes; lane-- > 0;) free_lanes.push_back(lane);
  worlds = instance_worlds(plan.instances);
  if (std::any_of(worlds.begin(), worlds.end(), [](std::uint32_t n) { return n > 1; })) rank_table.emplace(seg);
  for (const int gpu : plan_gpus(plan, options.device)) pipes.emplace_back().gpu = gpu;
  values.resize(plan.instances.size());
}

RunState::~RunState() {
  for (auto& p : pipes)
    for (auto& e : p.exiting) e.proc->kill();
}

std::size_t RunState::pipe_of(const Job& job) const {
  const int gpu = job.tasks.empty() ? pipes.front().gpu : instance_gpu(plan, job.tasks.front().instance, options.device);
  for (std::size_t p = 0; p < pipes.size(); ++p)
    if (pipes[p].gpu == gpu) return p;
  throw std::logic_error("no pipeline for GPU " + std::to_string(gpu));
}

std::uint32_t RunState::world_of(const Job& job) const {
  return job.tasks.empty() ? 1 : worlds.at(job.tasks.front().instance);
}

std::uint64_t RunState::device_bytes_of(const Job& job) const {
  std::set<std::uint32_t> instances;
  for (const auto& t : job.tasks) instances.insert(t.instance);
  std::uint64_t bytes = 0;
  for (auto i : instances) bytes += plan.instances.at(i).device_bytes;
  return bytes;
}

bool RunState::setup_task_done(const ipc::Task& t) const {
  const auto& entry = seg.instance(t.instance);
  if (t.kind == static_cast<std::uint32_t>(ipc::TaskKind::describe)) return ipc::load_acquire(entry.report_ready) != 0;
  return ipc::load_acquire(entry.calibrated) != 0;
}

std::string printable_text(const char* field, std::size_t field_bytes) {
  std::string text(field, strnlen(field, field_bytes));
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  return text;
}

}  // namespace isobench::orchestrator
