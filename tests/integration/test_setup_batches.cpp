// Set-up batches (--setup-batch K): K workers released into their set-up at once, then measured
// one after another in plan order. What both sides wrote says whether the rules held: the
// journal's worker events (release, set-up done, context, measuring phase, exit permit, exit) and
// a plugin whose setup() sleeps and logs, with teardown(), when it ran in which process
// (setup_counter_plugin.cpp). No timed sample lies beside another worker's set-up, context or
// teardown; a batch's workers set up together; with the context gate they tear down only once
// their batch has measured, without it at once. A worker that fails in a batch is replaced in its
// place; an interrupted or killed run leaves no worker of a batch behind.

#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "harness.hpp"
#include "tests/process_tree.hpp"

using namespace isobench::testing;

namespace {

std::string counter_plugin() { return binary_dir() + "/lib/libisobench_test_setup_counter.so"; }

// Each worker sets up the counter (120 to 210 ms asleep, by its process id, so that a batch's
// set-ups end apart) and measures it and a spin of 50 ms a sample, long enough that a teardown
// right after a worker's measurement falls inside its batch-mate's.
std::string sweep_text(int samples) {
  return "settings: {samples: " + std::to_string(samples) +
         ", warmup: 1, inner: 5, seed: 8}\n"
         "benchmarks:\n"
         "  - plugin: " +
         counter_plugin() +
         "\n"
         "    kernel: setup_counter\n"
         "    axes: {setup_ms: 120, setup_stagger_ms: 30}\n"
         "  - kernel: cpu_spin\n"
         "    axes: {microseconds: 10000}\n";
}

struct Interval {
  std::uint64_t begin = 0, end = 0;
  bool overlaps(const Interval& o) const { return begin < o.end && o.begin < end; }
  bool contains(std::uint64_t t) const { return begin <= t && t <= end; }
};

// What one run's journal and the plugin's log say, by worker serial.
struct Timeline {
  std::vector<nlohmann::json> samples;
  std::map<std::uint64_t, nlohmann::json> workers;        // measure workers that ended well
  std::map<std::uint64_t, Interval> exits;                // exit permit (or measuring's end) to gone
  std::map<std::uint64_t, std::vector<Interval>> setups;  // setup() calls, from the plugin
  std::map<std::uint64_t, std::vector<std::uint64_t>> teardowns;
};

Timeline timeline(const Scratch& s) {
  Timeline t;
  t.samples = read_jsonl(s.path("run/samples.jsonl"));
  std::map<long, std::uint64_t> serial_of_pid;
  for (const auto& w : read_jsonl(s.path("run/samples.jsonl"), "worker")) {
    serial_of_pid[w["pid"].get<long>()] = w["serial"].get<std::uint64_t>();
    if (w["ok"].get<bool>() && w["what"] == "measure") t.workers[w["serial"].get<std::uint64_t>()] = w;
  }
  for (const auto& e : read_jsonl(s.path("run/samples.jsonl"), "worker_exit")) {
    const auto serial = e["serial"].get<std::uint64_t>();
    // A worker that died on its own (the fault worker's segv-at:done) died when it did, which no
    // schedule controls: only the exits the orchestrator permitted are held to the rule.
    if (!t.workers.count(serial) || e["ok"] == false) continue;
    const auto from = e.contains("exit_permit_ns") ? e["exit_permit_ns"].get<std::uint64_t>()
                                                   : t.workers[serial]["measure_end_ns"].get<std::uint64_t>();
    t.exits[serial] = {from, e["exited_ns"].get<std::uint64_t>()};
  }
  std::istringstream log(slurp(s.path("setups.log")));
  for (std::string line; std::getline(log, line);) {
    std::istringstream fields(line);
    std::string what, buffer;
    long pid = 0;
    fields >> what >> pid;
    if (!serial_of_pid.count(pid)) continue;  // a worker that failed before reporting
    const auto serial = serial_of_pid[pid];
    if (what == "setup") {
      unsigned long long seed = 0, begin = 0, end = 0;
      fields >> seed >> buffer >> begin >> end;
      t.setups[serial].push_back({begin, end});
    } else {
      unsigned long long at = 0;
      fields >> at;
      t.teardowns[serial].push_back(at);
    }
  }
  return t;
}

Interval sample_interval(const nlohmann::json& x) {
  return {x["begin_ns"].get<std::uint64_t>(), x["end_ns"].get<std::uint64_t>()};
}

// Every sample's timed region against every other worker's set-up (as the orchestrator released
// it and as setup() ran), context creation and exit (from its permit, and teardown() itself):
// the problems, one line each.
std::vector<std::string> disturbed_samples(const Timeline& t) {
  std::vector<std::string> problems;
  for (const auto& x : t.samples) {
    const auto mine = x["worker_serial"].get<std::uint64_t>();
    const auto timed = sample_interval(x);
    const std::string which = "sample " + std::to_string(x["slot"].get<int>()) + " of worker " + std::to_string(mine);
    for (const auto& [serial, w] : t.workers) {
      if (serial == mine) continue;
      const std::string other = " of worker " + std::to_string(serial);
      if (timed.overlaps({w["released_ns"].get<std::uint64_t>(), w["prepared_ns"].get<std::uint64_t>()}))
        problems.push_back(which + " beside the set-up" + other);
      if (timed.overlaps({w["context_begin_ns"].get<std::uint64_t>(), w["device_ready_ns"].get<std::uint64_t>()}))
        problems.push_back(which + " beside the context" + other);
    }
    for (const auto& [serial, setups] : t.setups)
      for (const auto& setup : setups)
        if (serial != mine && timed.overlaps(setup))
          problems.push_back(which + " beside setup() of worker " + std::to_string(serial));
    for (const auto& [serial, exit] : t.exits)
      if (serial != mine && timed.overlaps(exit))
        problems.push_back(which + " beside the exit of worker " + std::to_string(serial));
    for (const auto& [serial, at] : t.teardowns)
      for (auto when : at)
        if (serial != mine && timed.contains(when))
          problems.push_back(which + " beside teardown() of worker " + std::to_string(serial));
  }
  return problems;
}

// The slots in the order the plan lists them, and each one's position.
std::map<std::uint32_t, std::size_t> plan_positions(const Scratch& s) {
  std::map<std::uint32_t, std::size_t> position;
  const auto plan = read_json(s.path("run/plan.json"));
  for (const auto& run : plan["schedule"]["runs"])
    for (const auto& task : run["tasks"]) position.emplace(task[3].get<std::uint32_t>(), position.size());
  return position;
}

// The journal's samples in the plan's order, each slot once.
void check_plan_order(const Scratch& s, const Timeline& t) {
  const auto position = plan_positions(s);
  std::set<std::uint32_t> seen;
  std::size_t last = 0;
  for (const auto& x : t.samples) {
    const auto slot = x["slot"].get<std::uint32_t>();
    CHECK_MESSAGE(seen.insert(slot).second, "slot " << slot << " measured twice");
    REQUIRE(position.count(slot));
    CHECK_MESSAGE((seen.size() == 1 || position.at(slot) > last), "slot " << slot << " out of the plan's order");
    last = position.at(slot);
  }
}

// The batches: serials by batch number.
std::map<std::uint64_t, std::vector<std::uint64_t>> batches_of(const Timeline& t) {
  std::map<std::uint64_t, std::vector<std::uint64_t>> batches;
  for (const auto& [serial, w] : t.workers) {
    REQUIRE_MESSAGE(w.contains("batch"), "worker " << serial << " has no batch");
    batches[w["batch"].get<std::uint64_t>()].push_back(serial);
  }
  return batches;
}

// The measuring phases, one at a time.
void check_one_measuring_at_a_time(const Timeline& t) {
  std::vector<Interval> phases;
  for (const auto& [serial, w] : t.workers)
    phases.push_back({w["measure_begin_ns"].get<std::uint64_t>(), w["measure_end_ns"].get<std::uint64_t>()});
  for (std::size_t a = 0; a < phases.size(); ++a)
    for (std::size_t b = a + 1; b < phases.size(); ++b) CHECK_FALSE(phases[a].overlaps(phases[b]));
}

Result run_batched(const Scratch& s, const std::string& options, int samples = 6, const std::string& env = "") {
  const auto sweep = s.write("sweep.yaml", sweep_text(samples));
  return run(env + " ISOBENCH_TEST_SETUP_LOG=" + s.path("setups.log") + " " + bin("orchestrate") +
                 " --device cpu --quiet --format none --isolation process --per batch " + options + " --out " +
                 s.path("run") + " " + sweep,
             s);
}

// A batched run (batches of 3, one batch pre-started) whose second worker started dies by SIGSEGV
// once its lane reaches `state`: its timeline, after checking that the run went through with
// every sample once, in plan order, one measuring phase at a time.
Timeline run_with_fault(const Scratch& s, const std::string& state, int samples) {
  const std::string env = "ISOBENCH_TEST_FAULT=segv-at:" + state +
                          " ISOBENCH_TEST_FAULT_NTH=1 ISOBENCH_TEST_FAULT_COUNTER=" + s.path("counter");
  const auto r = run_batched(s, "--setup-batch 3 --prestart 1 --worker " + bin("isobench-fault-worker"), samples, env);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto t = timeline(s);
  CHECK(t.samples.size() == 2 * static_cast<std::size_t>(samples));
  check_plan_order(s, t);
  check_one_measuring_at_a_time(t);
  return t;
}

std::uint64_t last_measure_end(const Timeline& t, const std::vector<std::uint64_t>& serials) {
  std::uint64_t end = 0;
  for (auto serial : serials) end = std::max(end, t.workers.at(serial)["measure_end_ns"].get<std::uint64_t>());
  return end;
}

}  // namespace

TEST_CASE(
    "setup batches: a batch sets up at once, then measures one worker at a time in plan order; "
    "no sample beside another's set-up, context or teardown") {
  for (const int prestart : {0, 1}) {
    CAPTURE(prestart);
    Scratch s("setup-batch-" + std::to_string(prestart));
    const auto r = run_batched(s, "--setup-batch 3 --prestart " + std::to_string(prestart));
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const auto t = timeline(s);
    REQUIRE(t.samples.size() == 12);
    REQUIRE(t.workers.size() == 6);
    check_plan_order(s, t);
    check_one_measuring_at_a_time(t);
    const auto problems = disturbed_samples(t);
    CHECK_MESSAGE(problems.empty(), problems.size() << " disturbed, the first: " << problems.front());
    // Two batches of three, each released at once: every set-up of a batch began before any of
    // them ended.
    const auto batches = batches_of(t);
    REQUIRE(batches.size() == 2);
    for (const auto& [batch, serials] : batches) {
      CHECK(serials.size() == 3);
      std::uint64_t released = 0, prepared = UINT64_MAX;
      for (auto serial : serials) {
        released = std::max(released, t.workers.at(serial)["released_ns"].get<std::uint64_t>());
        prepared = std::min(prepared, t.workers.at(serial)["prepared_ns"].get<std::uint64_t>());
      }
      CHECK_MESSAGE(released < prepared, "batch " << batch << " did not set up at once");
      // Each worker of the batch tore down only once the last of them had measured.
      const auto end = last_measure_end(t, serials);
      for (auto serial : serials) {
        REQUIRE(t.teardowns.count(serial));
        for (auto at : t.teardowns.at(serial)) CHECK(at > end);
        CHECK(t.exits.at(serial).begin >= end);
      }
    }
    CHECK(read_json(s.path("run/run.json"))["setup_batch"] == 3);
  }
}

TEST_CASE("setup batches without the context gate: set-ups still apart from measurements, exits at once") {
  Scratch s("setup-batch-gate-off");
  const auto r = run_batched(s, "--setup-batch 3 --prestart 1 --context-gate off");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto t = timeline(s);
  REQUIRE(t.samples.size() == 12);
  check_plan_order(s, t);
  check_one_measuring_at_a_time(t);
  for (const auto& x : t.samples)
    for (const auto& [serial, setups] : t.setups)
      for (const auto& setup : setups)
        CHECK_MESSAGE((serial == x["worker_serial"].get<std::uint64_t>() || !sample_interval(x).overlaps(setup)),
                      "a sample of worker " << x["worker_serial"] << " beside setup() of worker " << serial);
  // A worker that has measured tears down while its batch-mates measure: in each batch of
  // three, the first two had 50 ms samples of the others to fall into.
  std::size_t early = 0;
  for (const auto& [batch, serials] : batches_of(t)) {
    const auto end = last_measure_end(t, serials);
    for (auto serial : serials)
      if (const auto it = t.teardowns.find(serial); it != t.teardowns.end())
        for (auto at : it->second) early += at < end;
  }
  CHECK(early >= 1);
}

TEST_CASE("setup batches: a worker that fails in a batch is replaced in its place; nothing lost or repeated") {
  // The second worker started (one of the first batch) dies while it waits, set up, for its turn;
  // in the other case it dies once it has reported everything (holding its exit, or as it is let
  // go).
  for (const std::string state : {"prepared", "done"}) {
    CAPTURE(state);
    Scratch s("setup-batch-fault-" + state);
    const auto t = run_with_fault(s, state, 6);
    const auto problems = disturbed_samples(t);
    CHECK_MESSAGE(problems.empty(), problems.size() << " disturbed, the first: " << problems.front());
    const auto failures = read_jsonl(s.path("run/samples.jsonl"), "worker_failure");
    if (state == "prepared") {
      REQUIRE(failures.size() == 1);
      CHECK(failures[0]["released"] == true);
      CHECK(failures[0]["reason"].get<std::string>().find("killed by SIGSEGV") == 0);
      CHECK(t.workers.size() == 6);  // five first workers and the replacement
    } else {
      // Done: its samples are in, nothing to retry. Seen holding its exit, its end is a teardown
      // that went wrong; seen dead first, a failure whose tasks were all done.
      const auto exits = read_jsonl(s.path("run/samples.jsonl"), "worker_exit");
      const auto bad_exits = std::count_if(exits.begin(), exits.end(), [](const auto& e) { return e["ok"] == false; });
      CHECK(failures.size() + static_cast<std::size_t>(bad_exits) == 1);
      for (const auto& f : failures) CHECK(f["reason"].get<std::string>().find("killed by SIGSEGV") == 0);
      if (bad_exits == 1)
        CHECK(slurp(s.path("run/log.txt")).find("after reporting all its samples") != std::string::npos);
      CHECK(read_json(s.path("run/run.json"))["workers_started"] == 6);
    }
  }
}

TEST_CASE("setup batches: after a worker fails in its batch's set-up, the rest of the run sets up one at a time") {
  // The second worker started dies once released into its set-up. Workers that set up together
  // may not fit together (a Python set-up's device memory is not estimated): every batch released
  // after that one holds a single worker, and nothing is lost.
  Scratch s("setup-batch-shrink");
  const auto t = run_with_fault(s, "setting_up", 9);
  const auto failures = read_jsonl(s.path("run/samples.jsonl"), "worker_failure");
  REQUIRE(failures.size() == 1);
  const auto failed_serial = failures[0]["serial"].get<std::uint64_t>();
  std::uint64_t failed_batch = 0;
  for (const auto& w : read_jsonl(s.path("run/samples.jsonl"), "worker"))
    if (w["serial"].get<std::uint64_t>() == failed_serial) failed_batch = w.value("batch", std::uint64_t{0});
  // The second worker to start is one of the six started at once (a batch and one pre-started):
  // of the first batch or of the second, whichever process reached the counter second.
  REQUIRE((failed_batch == 1 || failed_batch == 2));
  std::size_t later = 0;
  for (const auto& [batch, serials] : batches_of(t)) {
    if (batch < failed_batch) CHECK(serials.size() == 3);
    if (batch == failed_batch) CHECK(serials.size() == 2);
    if (batch <= failed_batch) continue;
    ++later;
    CHECK_MESSAGE(serials.size() == 1, "batch " << batch << " released " << serials.size() << " workers");
  }
  // The replacement, then every worker after the failed one's batch: 9 measured in all.
  CHECK(later == 10 - 3 * failed_batch);
  CHECK(slurp(s.path("run/log.txt")).find("failed in its set-up batch, before it measured") != std::string::npos);
}

TEST_CASE("setup batches: contexts that fail beside their batch's are retried one at a time; a cause every "
          "context meets alone still stops the run") {
  // Two workers of the first batch die once their contexts exist, before their release (the third
  // starts late): on a GPU too small for a batch's contexts that is where they run out of memory.
  // Before any sample that would be the side's cause twice (exit 3); made beside the batch's other
  // contexts, it is not.
  Scratch s("setup-batch-context");
  const std::string fault = "ISOBENCH_TEST_FAULT=segv-at:waiting ISOBENCH_TEST_FAULT_COUNTER=" + s.path("counter");
  const std::string options = "--setup-batch 3 --prestart 1 --worker " + bin("isobench-fault-worker");
  const auto r = run_batched(s, options, 9, fault + " ISOBENCH_TEST_FAULT_NTH=0,1 ISOBENCH_TEST_UNFAULTED_DELAY_MS=200");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto failures = read_jsonl(s.path("run/samples.jsonl"), "worker_failure");
  REQUIRE(failures.size() == 2);
  // The first dies unreleased; the second may have been released alone, once the batch shrank.
  CHECK(failures[0]["released"] == false);
  for (const auto& f : failures) CHECK(f["reason"].get<std::string>().find("killed by SIGSEGV") == 0);
  const auto t = timeline(s);
  CHECK(t.samples.size() == 18);
  check_plan_order(s, t);
  const std::string log = slurp(s.path("run/log.txt"));
  CHECK_MESSAGE(log.find("failed in its set-up batch (making its context), before it measured") != std::string::npos,
                log);
  CHECK(log.find("[deterministic-failure]") == std::string::npos);
  for (const auto& [batch, serials] : batches_of(t)) CHECK(serials.size() == 1);  // none released as 3

  // Every worker dies there: the first batch's three are retried (and the second batch's, where
  // the first was released before its workers died and the second made its contexts), then two
  // made alone stop the run. Without this rule it stops at the second failure.
  Scratch all("setup-batch-context-all");
  const auto stopped = run_batched(all, options, 9, fault);
  CHECK_MESSAGE(stopped.exit_code == 3, stopped.err);
  const std::string stop_log = slurp(all.path("run/log.txt"));
  CHECK_MESSAGE(stop_log.find("[deterministic-failure]") != std::string::npos, stop_log);
  const auto all_failures = read_jsonl(all.path("run/samples.jsonl"), "worker_failure").size();
  CHECK(all_failures >= 5);
  CHECK(all_failures <= 8);
}

TEST_CASE("setup batches: interrupted, the run stops every worker of its batches, held ones included") {
  become_subreaper();
  Scratch s("setup-batch-interrupt");
  const auto sweep = s.write("sweep.yaml", sweep_text(200));
  const pid_t orchestrate =
      spawn({bin("orchestrate"), "--device", "cpu", "--quiet", "--format", "none", "--isolation", "process", "--per",
             "batch", "--setup-batch", "3", "--prestart", "1", "--out", s.path("run"), sweep},
            s);
  REQUIRE(orchestrate > 0);
  // Once a batch has measured a worker, one holds its exit and the others wait for their turn.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (samples_so_far(s.path("run/samples.jsonl")) < 9 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(samples_so_far(s.path("run/samples.jsonl")) >= 9);
  ::kill(orchestrate, SIGINT);
  const auto status = wait_for_exit(orchestrate, std::chrono::seconds(30));
  REQUIRE(status);
  CHECK(WIFEXITED(*status));
  CHECK(WEXITSTATUS(*status) == 130);
  // Gone when orchestrate is: it kills and waits for every worker, held ones included. (Each
  // worker's orphan guard would also stop it the moment orchestrate is gone, so this cannot tell
  // the two apart; that the run ends, 130 and interrupted, with none left is what it checks.)
  const auto at_exit = live_descendants();
  CHECK_MESSAGE(at_exit.empty(), "alive when orchestrate had exited:\n" << describe(at_exit));
  const auto left = wait_for_no_descendants(std::chrono::seconds(10));
  CHECK_MESSAGE(left.empty(), "left behind:\n" << describe(left));
  for (const auto& p : left) ::kill(p.pid, SIGKILL);
  CHECK(read_json(s.path("run/run.json"))["status"] == "interrupted");
}

TEST_CASE("setup batches in an A/B run: both sides in the plan's balanced order, each look's batches apart") {
  Scratch s("setup-batch-ab");
  const auto sweep = s.write("sweep.yaml", sweep_text(12));
  const auto r =
      run("ISOBENCH_TEST_SETUP_LOG=" + s.path("setups.log") + " " + bin("orchestrate") +
              " ab --device cpu --quiet --format none --baseline " + bin("isobench-worker") + " --candidate " +
              bin("isobench-worker") + " --setup-batch 4 --out " + s.path("run") + " " + sweep,
          s);
  REQUIRE_MESSAGE((r.exit_code == 0 || r.exit_code == 1), r.err);
  const auto t = timeline(s);
  REQUIRE(t.samples.size() >= 16);  // the first look: 8 per side of each instance
  check_plan_order(s, t);
  check_one_measuring_at_a_time(t);
  const auto problems = disturbed_samples(t);
  CHECK_MESSAGE(problems.empty(), problems.size() << " disturbed, the first: " << problems.front());
  std::set<int> sides;
  for (const auto& [batch, serials] : batches_of(t)) {
    CHECK(serials.size() <= 4);
    for (auto serial : serials) sides.insert(t.workers.at(serial)["side"].get<int>());
  }
  CHECK(sides == std::set<int>{0, 1});
}
