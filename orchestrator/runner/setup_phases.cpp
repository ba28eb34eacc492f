#include "setup_phases.hpp"

#include "ipc/kernel_record_buffer.hpp"
#include "orchestrator/interrupt.hpp"

namespace isobench::orchestrator {

using ipc::load_acquire;

std::deque<Job> split_by_world(const RunState& s, const Job& job) {
  std::deque<Job> parts;
  auto gpu_of = [&](std::uint32_t instance) { return instance_gpu(s.plan, instance, s.options.device); };
  for (std::size_t i = 0; i < job.tasks.size(); ++i) {
    const std::uint32_t world = s.worlds.at(job.tasks[i].instance);
    const int gpu = gpu_of(job.tasks[i].instance);
    if (parts.empty() || s.world_of(parts.back()) != world || gpu_of(parts.back().tasks.front().instance) != gpu) {
      parts.emplace_back();
      parts.back().what = job.what;
      parts.back().side = job.side;
      parts.back().attempt = job.attempt;
    }
    parts.back().tasks.push_back(job.tasks[i]);
    if (i < job.planned.size()) parts.back().planned.push_back(job.planned[i]);
  }
  return parts;
}

// A calibration or describe job as the jobs that run it: one per memory group of the plan
// (instances a worker may hold on the device at once; plan.schedule.groups), each split by world
// size. A setup worker sets up every instance it lists before warming any up, so a job over all
// instances of a sweep that does not fit at once would run out of device memory. The job's tasks
// are gathered per group, in the group's order, whatever order the job lists them in (with
// --gpus a GPU's instances are not consecutive).
std::deque<Job> SetupPhases::setup_jobs(const Job& job) const {
  const Plan& plan = s_.plan;
  std::vector<std::size_t> group_of(plan.instances.size(), 0);
  for (std::size_t g = 0; g < plan.schedule.groups.size(); ++g)
    for (auto i : plan.schedule.groups[g]) group_of.at(i) = g;
  std::vector<Job> parts(plan.schedule.groups.size());
  for (const auto& t : job.tasks) {
    Job& part = parts.at(group_of.at(t.instance));
    part.what = job.what;
    part.side = job.side;
    part.tasks.push_back(t);
  }
  std::deque<Job> jobs;
  for (auto& part : parts)
    if (!part.tasks.empty())
      for (auto& j : split_by_world(s_, part)) jobs.push_back(std::move(j));
  return jobs;
}

void SetupPhases::write_instance_reports() {
  const RunDirectory& dir = s_.dir;
  nlohmann::json reports = dir.exists("instance_reports.json")
                               ? dir.read_json("instance_reports.json")
                               : nlohmann::json{{"schema_version", kRunSchemaVersion},
                                                {"instances", nlohmann::json::object()}};
  for (std::uint32_t i = 0; i < s_.plan.instances.size(); ++i)
    if (auto report = instance_report(i)) reports["instances"][s_.plan.instances[i].worker.id] = std::move(*report);
  dir.write_json("instance_reports.json", reports);
}

// The report a worker published for instance i, once it is a JSON object.
std::optional<nlohmann::json> SetupPhases::instance_report(std::uint32_t i) {
  const auto& entry = s_.seg.instance(i);
  if (load_acquire(entry.report_ready) == 0) return std::nullopt;
  const std::string text = printable_text(entry.report, sizeof entry.report);
  auto report = nlohmann::json::parse(text, nullptr, false);
  if (report.is_discarded() || !report.is_object()) {
    s_.log.write("report-rejected", s_.plan.instances[i].worker.id + ": the worker's report is not a JSON object");
    return std::nullopt;
  }
  return report;
}

// A heuristic that picked differently in one process, or in the candidate build, would otherwise
// be measured as a regression.
void SetupPhases::pin_choices() {
  Plan& plan = s_.plan;
  Job job;
  job.what = "describe";
  for (std::uint32_t i = 0; i < plan.instances.size(); ++i) {
    const auto& p = plan.instances[i];
    if (p.replay.is_null() && p.worker.backend == "cuda" && load_acquire(s_.seg.instance(i).report_ready) == 0)
      job.tasks.push_back({static_cast<std::uint32_t>(ipc::TaskKind::describe), i, 0, 0});
  }
  if (!job.tasks.empty()) {
    s_.progress.phase("pinning choices (" + std::to_string(job.tasks.size()) + " CUDA instances)",
                      s_.outcome.samples_recorded);
    pipelines_.run_jobs(setup_jobs(job));
  }
  if (interrupt_requested()) return;
  bool pinned_now = false;
  for (std::uint32_t i = 0; i < plan.instances.size(); ++i) {
    auto& p = plan.instances[i];
    if (!p.replay.is_null() || p.worker.backend != "cuda") continue;
    const auto report = instance_report(i);
    if (!report || !report->contains("describe") || !(*report)["describe"].is_object() ||
        (*report)["describe"].empty())
      continue;
    p.replay = (*report)["describe"];
    pinned_now = true;
  }
  for (std::uint32_t i = 0; i < plan.instances.size(); ++i) {
    const auto& p = plan.instances[i];
    if (p.replay.is_null()) continue;
    const std::string text = p.replay.dump();
    if (text.size() >= ipc::kReportBytes) {
      s_.log.write("pin-skipped", p.worker.id + ": the recorded choice is too long to pin (" +
                                      std::to_string(text.size()) + " bytes)");
      continue;
    }
    ipc::copy_text(s_.seg.instance(i).pin, sizeof s_.seg.instance(i).pin, text);
  }
  if (pinned_now) s_.dir.write_json("plan.json", plan.to_json());
}

// A resumed run keeps the records an earlier start wrote and fills in what it lacked.
void SetupPhases::write_kernel_records() {
  const Plan& plan = s_.plan;
  bool asked = false;
  for (const auto& p : plan.instances) asked |= p.worker.measure.record_kernels;
  if (!asked) return;
  nlohmann::json records = s_.dir.exists("kernels.json") ? s_.dir.read_json("kernels.json") : nlohmann::json();
  if (!records.is_object() || !records.contains("instances") || !records["instances"].is_object())
    records = {{"schema_version", kRunSchemaVersion}, {"instances", nlohmann::json::object()}};
  for (std::uint32_t i = 0; i < plan.instances.size(); ++i) {
    const auto& p = plan.instances[i];
    if (!p.worker.measure.record_kernels) continue;
    auto& sides = records["instances"][p.worker.id];
    if (!sides.is_array()) sides = nlohmann::json::array();
    for (std::uint32_t side = 0; side < plan.schedule.sides; ++side) {
      if (sides.size() <= side) sides.push_back({{"reason", "no worker of this side reached its record pass"}});
      if (sides[side].is_object() && !sides[side].contains("reason")) continue;  // recorded earlier
      const auto text = ipc::read_kernel_record(s_.seg.instance(i), side);
      if (!text) continue;
      auto record = nlohmann::json::parse(*text, nullptr, false);
      if (record.is_discarded() || !record.is_object()) {
        s_.log.write("kernel-record-rejected", p.worker.id + " side " + std::to_string(side) +
                                                   ": the worker's kernel record is not a JSON object");
        continue;
      }
      sides[side] = std::move(record);
    }
  }
  s_.dir.write_json("kernels.json", records);
}

void SetupPhases::calibrate(std::deque<Job> next_call) {
  Plan& plan = s_.plan;
  Job job;
  job.what = "calibration";
  for (std::uint32_t i = 0; i < plan.instances.size(); ++i)
    if (plan.instances[i].inner == 0)
      job.tasks.push_back({static_cast<std::uint32_t>(ipc::TaskKind::calibrate), i, 0, 0});
  if (job.tasks.empty()) return;
  s_.progress.phase("calibrating inner counts (" + std::to_string(job.tasks.size()) + " instances)",
                    s_.outcome.samples_recorded);
  pipelines_.run_jobs(setup_jobs(job), std::move(next_call));
  if (interrupt_requested()) return;
  nlohmann::json calibration = nlohmann::json::array();
  std::string failed;
  for (const auto& t : job.tasks) {
    auto& entry = s_.seg.instance(t.instance);
    auto& p = plan.instances[t.instance];
    if (load_acquire(entry.calibrated) == 0 || entry.calibrated_inner == 0) {
      failed = p.worker.id;
      continue;
    }
    p.inner = entry.calibrated_inner;
    entry.inner = p.inner;
    calibration.push_back({{"id", p.worker.id},
                           {"inner", p.inner},
                           {"seconds_per_launch", entry.calibrated_seconds_per_launch},
                           {"min_sample_time_s", p.min_sample_time_s}});
    s_.log.write("calibrated", p.worker.id + ": inner " + std::to_string(p.inner) + " (" +
                                   std::to_string(entry.calibrated_seconds_per_launch * 1e6) + " us per launch)");
  }
  if (!failed.empty() && !s_.outcome.deterministic_failure.empty()) return;  // the run stopped on it
  if (!failed.empty())
    throw MeasurementFailed("calibration failed for " + failed + " after " + std::to_string(s_.options.retries + 1) +
                             " workers; see " + s_.dir.file("log.txt"));
  s_.dir.write_json("calibration.json", {{"schema_version", kRunSchemaVersion}, {"instances", calibration}});
}

}  // namespace isobench::orchestrator
