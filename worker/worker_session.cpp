#include "worker_session.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ipc/artifact_folder.hpp"
#include "ipc/instance_table.hpp"
#include "ipc/kernel_record_buffer.hpp"
#include "ipc/segment.hpp"
#include "kernels/benchmark.hpp"
#include "kernels/plugin_loader.hpp"
#include "artifact_dir.hpp"
#include "command_timer.hpp"
#include "iteration_accounting.hpp"
#include "iteration_trace.hpp"
#include "kernel_record.hpp"
#include "orphan_guard.hpp"
#include "registered_kernels.hpp"
#include "segment_rank_comm.hpp"
#include "timer.hpp"
#ifdef ISOBENCH_WITH_CUDA
#include "worker/cuda/cuda_device.hpp"
#include "worker/cuda/cuda_timer.hpp"
#include "worker/cuda/kernel_recorder.hpp"
#endif

namespace isobench::worker {

namespace {

using ipc::load_acquire;
using ipc::store_release;

struct PreparedInstance {
  const ipc::WorkerInstance* spec = nullptr;
  std::unique_ptr<kernels::Benchmark> bench;
  std::unique_ptr<Timer> timer;  // made with the pinned inner count in the set-up, or on first use
  std::uint32_t timer_inner = 0;
  double kernel_gpu_s = 0;  // per launch, from this worker's kernel record pass; 0: not recorded
};

class Session {
 public:
  Session(const WorkerOptions& options, ipc::Segment& seg)
      : options_(options), seg_(seg), lane_(seg.lane(options.lane)) {}

  void run() {
    if (lane_.token != options_.token) throw std::runtime_error("lane token mismatch: not this worker's lane");
    side_ = lane_.side;  // read once: the lane is shared memory
    if (side_ >= ipc::kMaxSides) throw std::runtime_error("lane names side " + std::to_string(side_) + ", out of range");
    lane_.pid = static_cast<std::int32_t>(getpid());
    lane_.attached_ns = ipc::monotonic_ns();
    set_state(ipc::LaneState::attached);
    instances_ = ipc::decode_instances(seg_.instances_json());
    const auto& h = seg_.layout();
    if (lane_.n_tasks > h.tasks_per_lane) throw std::runtime_error("lane lists more tasks than fit");
    const ipc::Task* tasks = seg_.lane_tasks(options_.lane);
    tasks_.assign(tasks, tasks + lane_.n_tasks);
    for (const auto& t : tasks_) {
      if (t.instance >= instances_.size() || t.instance >= h.n_instances)
        throw std::runtime_error("task names instance " + std::to_string(t.instance) + ", out of range");
      if (t.kind == static_cast<std::uint32_t>(ipc::TaskKind::measure) && t.slot >= h.n_slots)
        throw std::runtime_error("task names slot " + std::to_string(t.slot) + ", out of range");
    }

    // The context gate: a held worker waits here, loaded and attached, until the orchestrator
    // permits it to create its device context, which it does only while no worker measures (on
    // the H200 a context created beside a measurement disturbed it). The wait polls every
    // millisecond: context creation takes hundreds, and a waiting worker must stay off the CPU.
    const bool gated = lane_.context_gate != 0;
    // A worker of a set-up batch waits beside its batch-mates' measurements, up to twice the
    // batch at once: each looks once a millisecond, as a context-permit wait does, to stay off
    // the CPU (a set-up takes hundreds of milliseconds, a millisecond's delay is nothing to it).
    const bool batched = lane_.batched != 0;
    const auto poll = batched ? std::chrono::microseconds(1000) : std::chrono::microseconds(50);
    if (gated) wait_until_set(lane_.context_permit, std::chrono::milliseconds(1));
    lane_.context_begin_ns = ipc::monotonic_ns();
    open_device();
    lane_.device_ready_ns = ipc::monotonic_ns();
    // A pre-started worker waits here, with its process loaded and its CUDA context made, until
    // the orchestrator releases it. Everything that puts work on the device (filling inputs,
    // warm-up) comes after the release, so nothing runs beside another worker's measurement.
    set_state(ipc::LaneState::waiting);
    if (lane_.hold_for_release) wait_until_set(lane_.release, poll);
    set_state(ipc::LaneState::setting_up);
    prepare_instances();
    lane_.prepared_ns = ipc::monotonic_ns();
    // Set up and warmed up while the next worker may have been creating its context: the timed
    // phase waits until the orchestrator says no other worker creates a context or exits. A
    // batched worker also waits for its turn: its batch-mates set up with it, and measure one
    // after another.
    if (gated || batched) {
      set_state(ipc::LaneState::prepared);
      wait_until_set(lane_.measure_permit, poll);
    }
    set_state(ipc::LaneState::measuring);
    lane_.measure_begin_ns = ipc::monotonic_ns();
    for (std::size_t k = 0; k < tasks_.size(); ++k) {
      const auto& t = tasks_[k];
      beat();
      if (k > 0 && tasks_[k - 1].instance != t.instance && set_up_in_turn(instances_[t.instance]))
        prepare_instance(t.instance);
      if (t.kind == static_cast<std::uint32_t>(ipc::TaskKind::calibrate))
        calibrate(t);
      else if (t.kind == static_cast<std::uint32_t>(ipc::TaskKind::measure))
        measure(t);
      // describe: setting up and reporting was the whole task
      std::atomic_ref<std::uint32_t>(lane_.tasks_done).fetch_add(1, std::memory_order_release);
    }
    lane_.measure_end_ns = ipc::monotonic_ns();
    set_state(ipc::LaneState::done);
    // Everything reported. A batched worker keeps its buffers and device context (freed when the
    // session ends) until the orchestrator permits its exit: a teardown beside a batch-mate's
    // measurement is what the context gate keeps apart from timed phases.
    if (batched) wait_until_set(lane_.exit_permit, poll);
  }

 private:
  // Every state the worker stores is the protocol's next one (ipc/lane_protocol.hpp).
  void set_state(ipc::LaneState s) {
    if (!ipc::allowed_transition(state_, s))
      throw std::logic_error("lane protocol: " + std::string(ipc::to_string(state_)) + " -> " +
                             std::string(ipc::to_string(s)) + " is no transition");
    state_ = s;
    beat();
    store_release(lane_.state, static_cast<std::uint32_t>(s));
  }
  void beat() { store_release(lane_.heartbeat_ns, ipc::monotonic_ns()); }

  // Waits, beating, until the orchestrator sets a flag of this lane, looking every `poll`.
  void wait_until_set(std::uint32_t& flag, std::chrono::microseconds poll) {
    while (load_acquire(flag) == 0) {
      beat();
      std::this_thread::sleep_for(poll);
    }
  }

#ifdef ISOBENCH_BUILD_SLOWDOWN_PCT
  static bool slowed_kernel([[maybe_unused]] const std::string& kernel) {
#ifdef ISOBENCH_BUILD_SLOWDOWN_KERNELS
    const std::string list = "," ISOBENCH_BUILD_SLOWDOWN_KERNELS ",";
    return list.find("," + kernel + ",") != std::string::npos;
#else
    return true;
#endif
  }
#endif

  TimerOptions timer_options(const ipc::WorkerInstance& in, std::uint32_t inner) const {
    TimerOptions o;
    o.inner = static_cast<int>(inner);
    o.statistic = in.measure.statistic == "min" ? SampleStatistic::min : SampleStatistic::mean;
    o.timer = in.measure.timer;
    o.cold_cache = in.measure.cold_cache;
    o.cold_launches = in.measure.cold_launches;
    o.blocking_kernel = in.measure.blocking_kernel;
    o.slowdown_pct = in.measure.slowdown_pct;
    o.graph_chunk = in.measure.graph_chunk;
#ifdef ISOBENCH_BUILD_SLOWDOWN_PCT
    // A build with a regression compiled in: the candidate of the A/B tests, slower for real;
    // with ISOBENCH_BUILD_SLOWDOWN_KERNELS ("cast,rmsnorm"), only those kernels are.
    if (slowed_kernel(in.kernel)) o.slowdown_pct += ISOBENCH_BUILD_SLOWDOWN_PCT;
#endif
    return o;
  }

  std::unique_ptr<Timer> make_timer(PreparedInstance& p, std::uint32_t inner) {
    const auto options = timer_options(*p.spec, inner);
    if (p.spec->backend == "cpu") return make_cpu_timer(*p.bench, options);
    if (p.spec->backend == "command") return make_command_timer(*p.bench, options);
#ifdef ISOBENCH_WITH_CUDA
    return make_cuda_timer(*p.bench, options, *device_);
#else
    throw std::runtime_error("this worker was built without CUDA");
#endif
  }

  void open_device() {
    bool needs_cuda = false;
    for (const auto& t : tasks_) needs_cuda |= instances_[t.instance].backend == "cuda";
    if (!needs_cuda) return;
#ifdef ISOBENCH_WITH_CUDA
    device_ = std::make_unique<CudaDevice>(options_.device);
    ipc::copy_text(lane_.device_uuid, sizeof lane_.device_uuid, device_->uuid());
    ipc::copy_text(lane_.device_name, sizeof lane_.device_name, device_->name());
#else
    throw std::runtime_error("a task needs CUDA but this worker was built without it");
#endif
  }

  // A built-in kernel, a plugin's kernel (from the overriding library when the command line
  // names one: the two sides of a plugin A/B), a command, or a Python benchmark (the kernel its
  // zygote registered).
  std::unique_ptr<kernels::Benchmark> make_benchmark(const ipc::WorkerInstance& spec) const {
    if (spec.backend == "command") return make_command_benchmark(spec);
    if (!spec.python_module.empty()) return make_registered_benchmark(spec);
    if (spec.plugin.empty()) return kernels::create_benchmark(spec.kernel);
    const auto it = options_.plugin_overrides.find(spec.plugin);
    return kernels::load_plugin(it == options_.plugin_overrides.end() ? spec.plugin : it->second)
        .create_benchmark(spec.kernel);
  }

  // A timing call of a do_bench test (isobench.do_bench) is set up in its turn, right before the
  // worker's tasks of it, and again at each later turn: its set-up takes the test forward to the
  // call, and what it times holds only there, until a later instance's set-up takes the test on.
  // Set up with the others, the last call's set-up would have left every earlier one's behind.
  static bool set_up_in_turn(const ipc::WorkerInstance& spec) {
    return spec.pytest.is_object() && spec.pytest.value("timing", "") == "do_bench";
  }

  void prepare_instances() {
    // Set up every instance first, then warm each one up, in the order tasks first name them;
    // those set up in their turn come later, each at its turn (prepare_instance).
    std::vector<std::uint32_t> order;
    for (const auto& t : tasks_) {
      if (prepared_.count(t.instance) || set_up_in_turn(instances_[t.instance])) continue;
      beat();
      PreparedInstance p;
      p.spec = &instances_[t.instance];
      set_up(p);
      prepared_.emplace(t.instance, std::move(p));
      order.push_back(t.instance);
    }
    for (auto index : order) {
      beat();
      auto& p = prepared_.at(index);
      auto warm = warm_up(index, p);
      report_instance(index, p, *warm);
      record_kernels(index, p);
    }
#ifdef ISOBENCH_WITH_CUDA
    recorder_.reset();  // CUPTI detaches before the first timed sample
#endif
    for (auto index : order) make_measuring_timer(index, prepared_.at(index));
    // The first task's turn is now, in the set-up phase, where its set-up runs beside the other
    // workers' measurements as every set-up does (importing a file that the zygote could not
    // import, as FlagGems' conftest, takes seconds).
    if (!tasks_.empty() && set_up_in_turn(instances_[tasks_.front().instance])) prepare_instance(tasks_.front().instance);
  }

  // One instance set up in its turn: set up, warmed up, reported and its timer made, as
  // prepare_instances does for the others, its earlier set-up in this worker destroyed first.
  void prepare_instance(std::uint32_t index) {
    auto& p = prepared_[index];
    p.timer.reset();  // a timer holds a reference to the benchmark it times
    p.bench.reset();
    p.spec = &instances_[index];
    set_up(p);
    auto warm = warm_up(index, p);
    report_instance(index, p, *warm);
    record_kernels(index, p);
#ifdef ISOBENCH_WITH_CUDA
    recorder_.reset();  // CUPTI detaches before the instance's first timed sample
#endif
    make_measuring_timer(index, p);
  }

  // The timer that takes this worker's samples of the instance, made here, in the set-up, rather
  // than at its first sample. A CUDA timer's making is a warm-up launch, the graph capture of the
  // inner launches and the graph's first replay: on the H200, most of a Python worker's measuring
  // phase went to it (docs/evidence.md#behind-the-code), while the next worker waited for the
  // measure permit. Here it runs beside the next worker's context creation, as the warm-up does;
  // nothing in it is timed. Left to the first sample: a worker that only calibrates or describes,
  // an instance without a pinned inner count, realloc (every sample makes its own), a slowdown to
  // calibrate (its calibration times the kernel, which must not run beside a context creation), a
  // command (its timer is its program) and rank groups (their timers launch collectives, in the
  // order the samples take).
  void make_measuring_timer(std::uint32_t index, PreparedInstance& p) {
    const std::uint32_t inner = seg_.instance(index).inner;
    const auto& spec = *p.spec;
    if (!measures(index) || inner == 0 || spec.measure.realloc || spec.backend == "command" || options_.world > 1)
      return;
    if (timer_options(spec, inner).slowdown_pct > 0) return;
    beat();
    p.timer = make_timer(p, inner);
    p.timer_inner = inner;
  }

  // Whether this worker takes samples of the instance (not only calibrates or describes it).
  bool measures(std::uint32_t index) {
    if (measured_.empty()) {
      measured_.assign(instances_.size(), false);
      for (const auto& t : tasks_)
        if (t.kind == static_cast<std::uint32_t>(ipc::TaskKind::measure)) measured_[t.instance] = true;
    }
    return measured_[index];
  }

  // --record-kernels: one extra, untimed pass of the pinned inner launches with CUPTI on, after
  // the warm-up, so no sample is timed with it. Each launch is one iteration of the accounting
  // (worker/iteration_accounting.hpp). The record goes to the segment (the first worker of each
  // side writes it; kernels.json) and that worker writes the trace of the pass's last iteration
  // (the steady state: warm-up and start-up are long over) into the instance's artifact folder;
  // the kernels' GPU time per launch goes beside every sample this worker takes.
  // Calibration-only workers record nothing. Without CUPTI the record is a reason.
  void record_kernels(std::uint32_t index, PreparedInstance& p) {
    if (!p.spec->measure.record_kernels || !measures(index)) return;
    auto& entry = seg_.instance(index);
    std::string text;
    ActivityRecords records;  // for the trace: empty unless the pass recorded everything it needs
    if (p.spec->backend != "cuda") {
      text = encode_no_kernel_record("CUPTI records CUDA kernels only", ipc::kKernelRecordBytes);
    } else {
#ifdef ISOBENCH_WITH_CUDA
      beat();
      if (!recorder_) recorder_ = std::make_unique<KernelRecorder>();
      const std::uint32_t inner = entry.inner > 0 ? entry.inner : std::max<std::uint32_t>(1, entry.warmup);
      KernelCapture capture = recorder_->record(
          inner, [&] { p.bench->launch(); }, [&] { device_->synchronize(); });
      beat();
      if (!capture.failure.empty()) {
        text = encode_no_kernel_record(capture.failure, ipc::kKernelRecordBytes);
      } else {
        KernelRecord record = pass_record(capture.records, capture.accounting_failure);
        record.recorder = capture.recorder;
        p.kernel_gpu_s = record.kernel_gpu_s_per_launch();
        text = encode_kernel_record(std::move(record), ipc::kKernelRecordBytes);
        if (capture.accounting_failure.empty()) records = std::move(capture.records);
      }
#else
      text = encode_no_kernel_record("this worker was built without CUDA", ipc::kKernelRecordBytes);
#endif
    }
    if (ipc::publish_kernel_record(entry, side_, text)) write_iteration_trace(*p.spec, records);
  }

  // The trace of the last iteration of a record pass, when its records are consistent (else the
  // record's "iteration" says why there is none).
  void write_iteration_trace(const ipc::WorkerInstance& spec, const ActivityRecords& records) {
    if (records.iterations.empty() || options_.artifact_root.empty()) return;
    nlohmann::json trace;
    try {
      trace = iteration_trace(records, records.iterations.size() - 1, spec.id + ", side " + std::to_string(side_));
    } catch (const std::invalid_argument&) {
      return;
    }
    // The folder exists: set_up made it (enter_artifact_folder) before the benchmark's setup.
    const auto path =
        std::filesystem::path(options_.artifact_root) / ipc::artifact_folder_name(spec.id) / ipc::kIterationTraceFile;
    std::ofstream out(path);
    out << trace.dump(-1, ' ', /*ensure_ascii=*/true) << "\n";
    if (!out) throw std::runtime_error("cannot write the iteration trace of " + spec.id + " to " + path.string());
  }

  // Makes the instance's benchmark and sets it up: once per worker, and again before every sample
  // with realloc, so a re-setup gets exactly the context the first one got.
  void set_up(PreparedInstance& p) {
    const auto& spec = *p.spec;
    p.bench = make_benchmark(spec);
    if (!p.bench) throw std::runtime_error("kernel '" + spec.kernel + "' is not in this worker build");
    kernels::SetupContext ctx;
    ctx.seed = spec.seed;
    ctx.rotate_buffers = spec.measure.rotate_buffers;
    ctx.replay = pinned_choice(spec);
    if (ipc::world_size(spec) != options_.world)
      throw std::runtime_error(spec.id + " runs on " + std::to_string(ipc::world_size(spec)) +
                               " ranks, this worker is one of " + std::to_string(options_.world));
    ctx.ranks = rank_comm();
#ifdef ISOBENCH_WITH_CUDA
    if (device_) ctx.cuda_stream = device_->stream();
#endif
    try {
      enter_artifact_folder(options_.artifact_root, spec.id);  // ISOBENCH_ARTIFACT_DIR for setup()
      p.bench->setup(params_of(spec), ctx);
    } catch (const std::exception& e) {
      throw std::runtime_error("setup of " + spec.id + " failed: " + e.what());
    }
  }

  // The choice the orchestrator pinned for this instance (an earlier worker's describe()), or null.
  nlohmann::json pinned_choice(const ipc::WorkerInstance& spec) const {
    const auto index = static_cast<std::uint32_t>(&spec - instances_.data());
    const auto& pin = seg_.instance(index).pin;
    const std::string text(pin, strnlen(pin, sizeof pin));
    if (text.empty()) return nullptr;
    auto choice = nlohmann::json::parse(text, nullptr, false);
    if (choice.is_discarded() || !choice.is_object())
      throw std::runtime_error("the pinned choice of " + spec.id + " is not a JSON object");
    return choice;
  }

  // The instance's parameters with this worker's --set overrides applied (one side of an A/B run
  // forced onto another choice, e.g. algo=1). Only parameters the kernel has are overridden.
  nlohmann::json params_of(const ipc::WorkerInstance& spec) const {
    nlohmann::json params = spec.params;
    for (const auto& [name, value] : options_.param_overrides)
      if (params.contains(name)) params[name] = value;
    return params;
  }

  // The instance's warm-up launches; returns the timer that ran them (its setup note is reported).
  std::unique_ptr<Timer> warm_up(std::uint32_t index, PreparedInstance& p) {
    const std::uint32_t warmup = seg_.instance(index).warmup;
    // Warm-up goes through a timer so CUDA work is synchronised and module loading is done
    // before the first timed sample.
    auto warm = make_timer(p, std::max<std::uint32_t>(1, warmup));
    if (warmup > 0) warm->measure();
    return warm;
  }

  // realloc: every sample measures a fresh instance, destroyed and set up again (same seed, so
  // the same inputs in re-allocated buffers) and warmed up as after the worker's first setup, so
  // each sample sees the state the first sample of a fresh worker sees. None of it is timed.
  void renew_for_sample(std::uint32_t index, PreparedInstance& p) {
    if (!p.spec->measure.realloc) return;
    beat();
    p.timer.reset();  // a timer holds a reference to the benchmark it times
    p.bench.reset();  // the old buffers go before the new ones are made: peak memory stays one instance
    set_up(p);
    warm_up(index, p);
  }

  // idle_gap_ms: host asleep and no work queued on the device, right before the timed region.
  // Sleeps in short steps with a heartbeat, so a long gap is not taken for a hung worker.
  void idle_gap(const ipc::WorkerInstance& spec) {
    if (spec.measure.idle_gap_ms <= 0) return;
    const auto until = std::chrono::steady_clock::now() +
                       std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                           std::chrono::duration<double, std::milli>(spec.measure.idle_gap_ms));
    for (auto now = std::chrono::steady_clock::now(); now < until; now = std::chrono::steady_clock::now()) {
      beat();
      std::this_thread::sleep_for(
          std::min<std::chrono::steady_clock::duration>(until - now, std::chrono::milliseconds(100)));
    }
  }

  // The warm-up timer's setup note, and how the samples' graph holds the pinned inner launches
  // when it is replayed in chunks: the warm-up's few launches fit one graph, so its own note
  // cannot say (unless its capture failed, when the samples' capture will too).
  std::string reported_setup_note(std::uint32_t index, const PreparedInstance& p, const Timer& timer) const {
    std::string note = timer.setup_note();
    const std::uint32_t inner = seg_.instance(index).inner;
    if (inner == 0 || p.spec->backend != "cuda" || note.find(kGraphFallbackNote) != std::string::npos) return note;
    const std::string samples = graph_chunks_note(graph_chunks(timer_options(*p.spec, inner)), static_cast<int>(inner));
    if (samples.empty() || note.find(samples) != std::string::npos) return note;
    return note + (note.empty() ? "" : "; ") + "samples: " + samples;
  }

  void report_instance(std::uint32_t index, PreparedInstance& p, const Timer& timer) {
    auto& entry = seg_.instance(index);
    if (options_.rank != 0 || load_acquire(entry.report_ready) != 0) return;  // one writer per instance
    nlohmann::json report = {{"setup_note", reported_setup_note(index, p, timer)}, {"describe", p.bench->describe()}};
    std::string text = report.dump();
    if (text.size() >= ipc::kReportBytes) text = nlohmann::json{{"setup_note", "report too long"}}.dump();
    ipc::copy_text(entry.report, sizeof entry.report, text);
    store_release(entry.report_ready, std::uint32_t{1});
  }

  // Finds the launches per sample that make one sample last at least min_sample_time_s.
  void calibrate(const ipc::Task& t) {
    auto& p = prepared_.at(t.instance);
    auto& entry = seg_.instance(t.instance);
    const double target = entry.min_sample_time_s > 0 ? entry.min_sample_time_s : 0.01;
    std::uint32_t inner = 1;
    double per_launch = 0;
    for (;;) {
      beat();
      auto timer = make_timer(p, inner);
      // The ranks of a group decide alike, from the slowest rank's time: they must run the same
      // launches, or a collective in one of them would wait forever.
      const double total = slowest_of_ranks(timer->measure().sample.value_s * inner);
      per_launch = total / inner;
      if (total >= target || inner >= (1u << 24)) break;
      const double grow = total > 0 ? std::clamp(target / total * 1.2, 2.0, 100.0) : 100.0;
      inner = static_cast<std::uint32_t>(std::min<double>(inner * grow, 1u << 24));
    }
    if (options_.rank != 0) return;  // rank 0 reports the group's calibration
    const double wanted = per_launch > 0 ? std::ceil(target / per_launch) : 1.0;
    entry.calibrated_inner = static_cast<std::uint32_t>(std::clamp(wanted, 1.0, double(1u << 24)));
    entry.calibrated_seconds_per_launch = per_launch;
    entry.calibrated_by_token = options_.token;
    store_release(entry.calibrated, std::uint32_t{1});
  }

  void measure(const ipc::Task& t) {
    auto& p = prepared_.at(t.instance);
    const std::uint32_t inner = seg_.instance(t.instance).inner;
    if (inner == 0) throw std::runtime_error("instance " + p.spec->id + " has no pinned inner count");
    renew_for_sample(t.instance, p);
    if (!p.timer || p.timer_inner != inner) {
      p.timer = make_timer(p, inner);
      p.timer_inner = inner;
    }
    auto& slot = seg_.slot(t.slot);
    idle_gap(*p.spec);
    if (auto* ranks = rank_comm()) ranks->member().barrier();  // a group's ranks start each sample together
    const auto begin_ns = ipc::monotonic_ns();
    ipc::SampleValues sample = p.timer->measure().sample;
    sample.begin_ns = begin_ns;
    sample.end_ns = ipc::monotonic_ns();
    sample.inner = inner;
    sample.kernel_gpu_s = p.kernel_gpu_s;
    if (auto* ranks = rank_comm()) {
      // The slowest-rank rule: rank 0 writes the slot once every rank has reported its part.
      const auto parts = ranks->member().gather_sample(t.slot, sample);
      if (parts.empty()) return;
      sample = ipc::slowest_rank(parts);
    }
    slot.instance = t.instance;
    slot.token = options_.token;
    slot.values = sample;
    slot.seal = ipc::seal_of(slot, t.slot);
    store_release(slot.state, static_cast<std::uint32_t>(ipc::SlotState::written));
  }

  // This worker's rank group (--world above 1), joined on first use; null for a worker of its own.
  SegmentRankComm* rank_comm() {
    if (options_.world <= 1) return nullptr;
    if (!ranks_)
      ranks_ = std::make_unique<SegmentRankComm>(seg_, options_.group, options_.rank, options_.world, [this] { beat(); });
    return ranks_.get();
  }

  // The largest of the ranks' `seconds` (every rank gets it); `seconds` itself without ranks.
  double slowest_of_ranks(double seconds) {
    auto* ranks = rank_comm();
    if (!ranks) return seconds;
    std::vector<double> all(options_.world);
    ranks->all_gather(&seconds, sizeof seconds, all.data());
    return *std::max_element(all.begin(), all.end());
  }

  const WorkerOptions& options_;
  ipc::Segment& seg_;
  ipc::Lane& lane_;
  std::vector<ipc::WorkerInstance> instances_;
  std::vector<ipc::Task> tasks_;
  std::unique_ptr<SegmentRankComm> ranks_;  // before prepared_: benchmarks hold a pointer to it
  std::map<std::uint32_t, PreparedInstance> prepared_;
  std::uint32_t side_ = 0;  // which build this worker is (the lane's side)
  ipc::LaneState state_ = ipc::LaneState::assigned;  // the last state stored (the orchestrator's at start)
  std::vector<bool> measured_;  // by instance index: measure tasks in this worker (measures())
#ifdef ISOBENCH_WITH_CUDA
  std::unique_ptr<CudaDevice> device_;
  std::unique_ptr<KernelRecorder> recorder_;  // after device_: destroyed (CUPTI detached) first
#endif
};

// A failed rank tells the other ranks of its group, which stop waiting for it at their barrier.
void abort_rank_group(const ipc::Segment& seg, const WorkerOptions& options) {
  if (options.world <= 1) return;
  try {
    ipc::abort_rank_group(ipc::RankTable(seg), options.group, options.rank + 1);
  } catch (const std::exception& e) {
    std::cerr << "isobench-worker: cannot abort rank group " << options.group << ": " << e.what() << "\n";
  }
}

}  // namespace

int run_worker(const WorkerOptions& options) {
  std::unique_ptr<ipc::Segment> seg;
  try {
    seg = std::make_unique<ipc::Segment>(ipc::Segment::attach(options.segment));
  } catch (const std::exception& e) {
    std::cerr << "isobench-worker: " << e.what() << "\n";
    return 3;  // nothing was written: the segment is not trusted
  }
  ipc::Lane* lane = nullptr;
  try {
    const OrphanGuard guard(seg->layout().owner_pid);  // the worker stops when its orchestrator dies
    lane = &seg->lane(options.lane);
    Session session(options, *seg);
    session.run();
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "isobench-worker: " << e.what() << "\n";
    if (lane && lane->token == options.token) {
      ipc::copy_text(lane->error, sizeof lane->error, e.what());
      store_release(lane->state, static_cast<std::uint32_t>(ipc::LaneState::failed));
      abort_rank_group(*seg, options);
    }
    return 3;
  }
}

}  // namespace isobench::worker
