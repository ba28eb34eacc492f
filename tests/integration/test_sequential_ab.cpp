// ab --until-verdict: sequential sampling with real worker builds on the CPU backend. A clear
// regression stops before the most samples, the same build stops SAME or runs out UNCERTAIN, an
// interrupted sequential run resumes to the same decisions, and compare replays the looks of the
// journal to the verdicts the run printed. ab samples so by default: which options take the fixed
// n instead. With pre-start, the next look's first workers (and the first measuring ones, behind
// the calibration worker) start before their look and wait for it, taken or dropped there; with
// set-up batches they make their contexts one at a time, once the look's last batch is released.

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "harness.hpp"

using namespace isobench::testing;

namespace {

// The per-sample minimum, as in test_ab: preemption on a loaded machine inflates means.
const char* kSweep = R"(name: seq
settings: {warmup: 2, inner: 20, statistic: min, seed: 4, per: batch}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [100, 200]}
)";

std::string ab_command(const Scratch& s, const std::string& candidate, const std::string& extra,
                       const std::string& out = "run") {
  const auto sweep = s.write("seq.yaml", kSweep);
  return bin("orchestrate") + " ab --device cpu --quiet --baseline " + bin("isobench-worker") + " --candidate " +
         bin(candidate) + " " + extra + " --out " + s.path(out) + " " + sweep;
}

std::size_t samples_of(const Scratch& s, const std::string& run_dir) {
  return read_jsonl(s.path(run_dir + "/samples.jsonl")).size();
}

}  // namespace

TEST_CASE("ab --until-verdict: a real 10% regression stops SLOWER before the most samples") {
  Scratch s("seq-slow");
  const auto r = run(ab_command(s, "isobench-worker-slow10", "--until-verdict --max-samples 64 --format json"), s);
  CHECK_MESSAGE(r.exit_code == 1, r.err);
  const auto report = nlohmann::json::parse(r.out);
  const auto v = verdicts(report);
  REQUIRE(v.size() == 2);
  for (const auto& [id, verdict] : v) CHECK_MESSAGE(verdict == "SLOWER", id);
  // Stopped at a look: fewer than 2 instances x 2 sides x 64 samples, and each instance's rows
  // say how many samples per side it used (a look of the plan).
  const auto plan = read_json(s.path("run/plan.json"));
  REQUIRE(plan.contains("sequential"));
  const auto looks = plan["sequential"]["looks"];
  CHECK(looks.back() == 64);
  // Two instances at alpha 0.001: at 8 per side even complete separation (p 1.55e-4) is above the
  // look's level (9.7e-5), so the default looks add 9, the first count that can, as a separation
  // look (SLOWER or FASTER only).
  CHECK(looks == nlohmann::json::array({8, 9, 12, 16, 24, 36, 54, 64}));
  CHECK(plan["sequential"]["separation_looks"] == nlohmann::json::array({9}));
  CHECK(samples_of(s, "run") < 2u * 2u * 64u);
  for (const auto& row : report["instances"]) {
    CHECK(row["n_a"] == row["n_b"]);
    CHECK(row["n_a"].get<int>() < 64);
    CHECK(std::find(looks.begin(), looks.end(), row["n_a"]) != looks.end());
  }
  CHECK(!read_jsonl(s.path("run/samples.jsonl"), "look").empty());
  CHECK(read_json(s.path("run/run.json"))["status"] == "complete");
  // compare replays the journal's looks: the same verdicts, from the same samples.
  const auto again = run(bin("orchestrate") + " compare --json " + s.path("run"), s);
  CHECK(again.exit_code == 1);
  CHECK(verdicts(nlohmann::json::parse(again.out)) == v);
}

TEST_CASE("ab --until-verdict: the same build on both sides is never SLOWER or FASTER") {
  Scratch s("seq-same");
  const auto r = run(ab_command(s, "isobench-worker", "--until-verdict --max-samples 32 --format json"), s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto v = verdicts(nlohmann::json::parse(r.out));
  REQUIRE(v.size() == 2);
  for (const auto& [id, verdict] : v) CHECK_MESSAGE((verdict == "SAME" || verdict == "UNCERTAIN"), id, verdict);
}

TEST_CASE("ab --until-verdict: the progress line counts up to the most, as instances may stop before it") {
  Scratch s("seq-progress");
  const auto sweep = s.write("seq.yaml", kSweep);
  const auto r = run(bin("orchestrate") + " ab --device cpu --baseline " + bin("isobench-worker") + " --candidate " +
                         bin("isobench-worker") + " --until-verdict --looks 8,16 --extend-to 0 --format none --out " +
                         s.path("run") + " " + sweep,
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // 2 instances x 2 sides x 16 per side at most.
  CHECK_MESSAGE(
      r.err.find("measuring, look 1 of 2 (8 per side, 2 instances) | samples 0/up to 64 | ") != std::string::npos,
      r.err);
}

TEST_CASE("ab --until-verdict: an interrupted run resumes and decides as compare replays it") {
  Scratch s("seq-resume");
  // Per sample, so that the run lasts long enough to be interrupted between its looks.
  const std::string command =
      ab_command(s, "isobench-worker-slow10", "--until-verdict --looks 8,12,16,24,32 --per sample");
  std::vector<std::string> args;
  std::istringstream words(command);
  for (std::string w; words >> w;) args.push_back(w);
  const pid_t pid = spawn(args, s);
  REQUIRE(pid > 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::filesystem::exists(s.path("run/samples.jsonl")) && samples_so_far(s.path("run/samples.jsonl")) >= 20) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 130) {
    CHECK(read_json(s.path("run/run.json"))["status"] == "interrupted");
    const auto resumed = run(bin("orchestrate") + " --quiet --resume " + s.path("run"), s);
    CHECK_MESSAGE(resumed.exit_code == 1, resumed.err);
  } else {
    CHECK(WEXITSTATUS(status) == 1);  // the run reached its verdicts before the signal
  }
  CHECK(read_json(s.path("run/run.json"))["status"] == "complete");
  const auto compared = run(bin("orchestrate") + " compare --json " + s.path("run"), s);
  CHECK(compared.exit_code == 1);
  for (const auto& [id, verdict] : verdicts(nlohmann::json::parse(compared.out))) CHECK_MESSAGE(verdict == "SLOWER", id);
}

TEST_CASE("ab --until-verdict and plans that cannot reach a verdict: one line, exit 2, no run directory") {
  Scratch s("seq-refused");
  struct Case {
    std::string extra, fragment;
  };
  const std::vector<Case> cases = {
      {"--fixed-n --until-verdict", "--until-verdict excludes --fixed-n"},
      {"--fixed-n --max-samples 32", "--fixed-n excludes --max-samples"},
      {"--fixed-n --spending obrien-fleming", "--fixed-n excludes --spending"},
      {"--fixed-n --extend-to 60", "--fixed-n excludes --extend-to"},
      {"--fixed-n --futility 0", "--fixed-n excludes --futility"},
      {"--futility 0.7", "--futility"},
      {"--looks 8,16 --samples 20", "leave --samples out"},
      {"--until-verdict --max-samples 32 --samples 20", "leave --samples out"},
      {"--until-verdict --looks 8,16 --max-samples 32", "--looks ends at 16 and --max-samples is 32"},
      {"--until-verdict --looks 12,8", "ab --looks:"},
      {"--until-verdict --max-samples 6", "no look can reach SLOWER or FASTER"},
      {"--samples 4", "with 4 samples per side no instance can be SLOWER or FASTER at alpha 0.001"},
  };
  for (const auto& c : cases) {
    const auto r = run(ab_command(s, "isobench-worker", c.extra), s);
    CHECK_MESSAGE(r.exit_code == 2, c.extra);
    CHECK_MESSAGE(r.err.find(c.fragment) != std::string::npos, c.extra, r.err);
    CHECK_MESSAGE(std::count(r.err.begin(), r.err.end(), '\n') == 1, c.extra, r.err);
    CHECK_MESSAGE(!std::filesystem::exists(s.path("run")), c.extra);
  }
  // A plain run cannot take the flag: it has no verdict to stop at.
  const auto plain =
      run(bin("orchestrate") + " --device cpu --quiet --until-verdict --out " + s.path("run") + " " + s.path("seq.yaml"), s);
  CHECK(plain.exit_code == 2);
  CHECK(!std::filesystem::exists(s.path("run")));
  // --fail-on never: not a gate, so an n that cannot reach a verdict runs, with a note.
  const auto ungated = run(ab_command(s, "isobench-worker", "--samples 4 --fail-on never"), s);
  CHECK_MESSAGE(ungated.exit_code == 0, ungated.err);
}

TEST_CASE("ab samples sequentially by default; --fixed-n, --samples or too few samples take every sample") {
  Scratch s("seq-default");
  const auto sweep = [&s](int samples, int instances) {
    std::string axes;
    for (int i = 0; i < instances; ++i) axes += (i ? ", " : "") + std::to_string(20 + i);
    return s.write("seq-" + std::to_string(samples) + "-" + std::to_string(instances) + ".yaml",
                   "name: seq\nsettings: {samples: " + std::to_string(samples) +
                       ", warmup: 2, inner: 20, statistic: min, seed: 4, per: batch}\nbenchmarks:\n  - kernel: "
                       "cpu_spin\n    axes: {microseconds: [" +
                       axes + "]}\n");
  };
  struct Case {
    std::string extra;
    int samples, instances;
    std::vector<int> looks;  // plan.json's sequential looks; empty: a fixed-n plan
    std::string note;        // on stderr
  };
  const std::vector<Case> cases = {
      // The sweep's 20 samples over 2 instances: the looks --until-verdict plans, and the
      // extension's up to 60 for an instance beyond the floor whose p is short.
      {"", 20, 2, {8, 12, 16, 20, 30, 45, 60}, ""},
      {"--until-verdict", 20, 2, {8, 12, 16, 20, 30, 45, 60}, ""},
      {"--max-samples 16", 20, 2, {8, 12, 16, 24, 36, 54, 60}, ""},
      {"--looks 8,20", 20, 2, {8, 20, 30, 45, 60}, ""},
      {"--extend-to 0", 20, 2, {8, 12, 16, 20}, ""},
      {"--extend-to 40", 20, 2, {8, 12, 16, 20, 30, 40}, ""},
      // The spending says looks, as --looks does: --samples is then their most.
      {"--samples 20 --spending pocock", 20, 2, {8, 12, 16, 20, 30, 45, 60}, ""},
      // N asked for: N taken.
      {"--samples 20", 20, 2, {}, ""},
      {"--fixed-n", 20, 2, {}, ""},
      // One look at most: the fixed n.
      {"", 8, 2, {}, ""},
      // 100 instances at 10 per side: no look can reach SLOWER (nor can the fixed n: --fail-on
      // never runs it anyway), so every sample is taken, with a note.
      {"--fail-on never", 10, 100, {}, "note: ab takes all 10 samples per side"},
      // 40 at 12: the look at 8 can stop SAME only; a separation look at 10 and the last can reject.
      {"", 12, 40, {8, 10, 12, 18, 27, 40, 60}, ""},
      // The futility level says looks too; 0: none.
      {"--futility 0", 20, 2, {8, 12, 16, 20, 30, 45, 60}, ""},
  };
  int k = 0;
  for (const auto& c : cases) {
    const std::string out = "run-" + std::to_string(k++);
    const auto r = run(bin("orchestrate") + " ab --device cpu --baseline " + bin("isobench-worker") + " --candidate " +
                           bin("isobench-worker") + " --format none " + c.extra + " --out " + s.path(out) + " " +
                           sweep(c.samples, c.instances),
                       s);
    CAPTURE(c.extra);
    CAPTURE(c.samples);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    const auto plan = read_json(s.path(out + "/plan.json"));
    if (c.looks.empty()) {
      CHECK(!plan.contains("sequential"));
      CHECK(samples_of(s, out) == static_cast<std::size_t>(2 * c.samples * c.instances));
    } else {
      REQUIRE(plan.contains("sequential"));
      CHECK(plan["sequential"]["looks"] == nlohmann::json(c.looks));
    }
    if (!c.note.empty()) CHECK_MESSAGE(r.err.find(c.note) != std::string::npos, r.err);
  }
  // plan.json keeps the futility level: ab's default, and the one asked for.
  CHECK(read_json(s.path("run-0/plan.json"))["sequential"]["futility"] == 0.01);
  CHECK(read_json(s.path("run-" + std::to_string(k - 1) + "/plan.json"))["sequential"]["futility"] == 0.0);
}

namespace {

// Every journal line in order, and where the first look stands.
struct JournalOrder {
  std::vector<nlohmann::json> events;  // every line, in order
  std::size_t first_look = 0;          // the index of the first "look" line
};

JournalOrder journal_order(const std::string& path) {
  JournalOrder order;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) order.events.push_back(nlohmann::json::parse(line));
  for (std::size_t i = 0; i < order.events.size(); ++i)
    if (order.events[i].value("type", "sample") == "look") {
      order.first_look = i;
      break;
    }
  return order;
}

// The serials of the workers started before the run log's first line of `tag`.
std::set<std::uint64_t> serials_started_before(const std::string& log, const std::string& tag) {
  std::set<std::uint64_t> serials;
  for (const auto& line : lines(log)) {
    if (line.find("[" + tag + "]") != std::string::npos) break;
    const auto at = line.find("[worker-start] worker ");
    if (at != std::string::npos) serials.insert(std::stoull(line.substr(at + 22)));
  }
  return serials;
}

// What holds of a run whose pre-start reached into the next look, whatever each look decided: no
// sample of a later look is taken before the look that decided to take it, no slot twice, no
// dropped worker measured, no failure, the measuring phases one at a time, the run complete.
// Returns the serials of the workers that measured samples of the second look on.
std::set<std::uint64_t> check_next_call_run(const Scratch& s, int first_look_n) {
  const auto order = journal_order(s.path("run/samples.jsonl"));
  CHECK(order.first_look > 0);
  std::set<std::uint64_t> measured_after_look, measured;
  std::set<std::uint32_t> slots;
  for (std::size_t i = 0; i < order.events.size(); ++i) {
    const auto& e = order.events[i];
    if (e.value("type", "sample") != "sample") continue;
    CHECK_MESSAGE(slots.insert(e["slot"].get<std::uint32_t>()).second, "a slot measured twice");
    measured.insert(e["worker_serial"].get<std::uint64_t>());
    if (e["sample"].get<int>() >= first_look_n) {
      CHECK(i > order.first_look);
      measured_after_look.insert(e["worker_serial"].get<std::uint64_t>());
    }
  }
  for (const auto& d : read_jsonl(s.path("run/samples.jsonl"), "worker_dropped"))
    CHECK(measured.count(d["serial"].get<std::uint64_t>()) == 0);
  CHECK(read_jsonl(s.path("run/samples.jsonl"), "worker_failure").empty());
  CHECK(slurp(s.path("run/log.txt")).find("[worker-teardown]") == std::string::npos);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> phases;
  for (const auto& w : read_jsonl(s.path("run/samples.jsonl"), "worker"))
    if (w["what"] == "measure") phases.push_back({w["measure_begin_ns"], w["measure_end_ns"]});
  std::sort(phases.begin(), phases.end());
  for (std::size_t i = 1; i < phases.size(); ++i) CHECK(phases[i].first >= phases[i - 1].second);
  CHECK(read_json(s.path("run/run.json"))["status"] == "complete");
  return measured_after_look;
}

}  // namespace

TEST_CASE("ab --until-verdict with pre-start: the next look's first workers start before the look, wait for it, and "
          "are taken or dropped; calibration starts the first measuring ones") {
  const char* sweep_text = R"(name: seq
settings: {warmup: 2, statistic: min, seed: 4, per: batch}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [100, 200]}
)";
  for (const std::string options : {"--prestart 1", "--prestart 1 --setup-batch 3", "--prestart 1 --setup-batch 4"}) {
    CAPTURE(options);
    Scratch s("seq-next-call");
    const auto sweep = s.write("seq.yaml", sweep_text);
    const auto r = run(bin("orchestrate") + " ab --device cpu --quiet --baseline " + bin("isobench-worker") +
                           " --candidate " + bin("isobench-worker-slow10") + " --until-verdict --max-samples 64 " +
                           options + " --format json --out " + s.path("run") + " " + sweep,
                       s);
    CHECK_MESSAGE(r.exit_code == 1, r.err);
    const auto v = verdicts(nlohmann::json::parse(r.out));
    REQUIRE(v.size() == 2);
    for (const auto& [id, verdict] : v) CHECK_MESSAGE(verdict == "SLOWER", id);
    const std::string log = s.path("run/log.txt");
    // Batches of 3 take the first call's 16 workers, and the separation look's 18, in 6 batches:
    // the separation look (9 per side) is measured in the first look's call. Batches of 4 take 16
    // in 4 and 18 in 5: it is a call of its own, as without batches.
    const bool merged = options.find("--setup-batch 3") != std::string::npos;
    const auto after_look = check_next_call_run(s, merged ? 9 : 8);
    // At 8 per side no instance can stop (see the first case): the next look's jobs are those
    // started before look 1, and taken. Merged, both instances may stop at 9 per side, in the
    // first call: then nothing is measured after it.
    const auto looks = read_jsonl(s.path("run/samples.jsonl"), "look");
    REQUIRE(looks.size() >= 2);
    CHECK(looks[0]["call"] == 0);
    CHECK(looks[1]["n"] == 9);
    CHECK(looks[1]["call"] == (merged ? 0 : 1));
    if (merged && after_look.empty()) {
      CHECK(looks.size() == 2);
      CHECK(looks[0]["stopped"].size() + looks[1]["stopped"].size() == 2);
    } else {
      REQUIRE(!after_look.empty());
      CHECK_MESSAGE(serials_started_before(log, "look").count(*after_look.begin()) == 1,
                    "the first worker of the next call was started before the look: " << slurp(log));
    }
    // Workers started for a look that never came (the last one stopped both instances) are
    // dropped: killed, never measured, journaled as dropped and their exits followed.
    CHECK(!read_jsonl(s.path("run/samples.jsonl"), "worker_dropped").empty());
    // The first measuring worker was started behind the calibration worker, before its counts.
    CHECK(serials_started_before(log, "calibrated").count(1) == 1);
    const auto again = run(bin("orchestrate") + " compare --json " + s.path("run"), s);
    CHECK(again.exit_code == 1);
    CHECK(verdicts(nlohmann::json::parse(again.out)) == v);
  }
}

namespace {

// The call each measuring worker's samples belong to (0: the first; the calls' ends from the
// journal's look events, a call's looks naming its first as "call"), and one past the last call
// for the workers that were dropped.
std::map<std::uint64_t, std::size_t> look_of_workers(const Scratch& s) {
  std::vector<std::uint32_t> ends;
  std::optional<std::uint64_t> call;
  for (const auto& l : read_jsonl(s.path("run/samples.jsonl"), "look")) {
    if (call == l["call"].get<std::uint64_t>()) ends.pop_back();  // a look measured in the same call
    call = l["call"].get<std::uint64_t>();
    ends.push_back(l["n"].get<std::uint32_t>());
  }
  std::map<std::uint64_t, std::size_t> look;
  for (const auto& x : read_jsonl(s.path("run/samples.jsonl"))) {
    const auto round = x["round"].get<std::uint32_t>();
    const auto k = static_cast<std::size_t>(std::upper_bound(ends.begin(), ends.end(), round) - ends.begin());
    look[x["worker_serial"].get<std::uint64_t>()] = k;
  }
  for (const auto& d : read_jsonl(s.path("run/samples.jsonl"), "worker_dropped"))
    look[d["serial"].get<std::uint64_t>()] = ends.size();
  return look;
}

}  // namespace

TEST_CASE("ab --until-verdict with set-up batches: the next look's workers make their contexts one at a time, only "
          "once every worker of the look is released") {
  // 18 workers to the first call (the looks at 8 and 9 per side, merged: 6 batches either way) in
  // batches of 3; the next look's workers would make their contexts beside the batch before the
  // call's last if they rode along with the call's next batch; and the last look's next batch is
  // dropped.
  Scratch s("seq-next-call-batches");
  const auto sweep = s.write("seq.yaml", R"(name: seq
settings: {warmup: 2, statistic: min, seed: 4, per: batch}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [100, 200]}
)");
  const auto r = run(bin("orchestrate") + " ab --device cpu --quiet --baseline " + bin("isobench-worker") +
                         " --candidate " + bin("isobench-worker-slow10") +
                         " --until-verdict --max-samples 64 --prestart 1 --setup-batch 3 --format json --out " +
                         s.path("run") + " " + sweep,
                     s);
  CHECK_MESSAGE(r.exit_code == 1, r.err);
  check_next_call_run(s, 9);
  const auto look = look_of_workers(s);
  struct Context {
    std::uint64_t serial, permit, ready;
    std::size_t look;
  };
  std::vector<Context> contexts;
  std::map<std::size_t, std::uint64_t> last_release, last_measured;  // by look
  for (const auto& w : read_jsonl(s.path("run/samples.jsonl"), "worker")) {
    if (w["what"] != "measure") continue;
    const auto serial = w["serial"].get<std::uint64_t>();
    REQUIRE(look.count(serial));
    const auto k = look.at(serial);
    last_release[k] = std::max(last_release[k], w["released_ns"].get<std::uint64_t>());
    last_measured[k] = std::max(last_measured[k], w["measure_end_ns"].get<std::uint64_t>());
    contexts.push_back({serial, w["permit_ns"], w["device_ready_ns"], k});
  }
  for (const auto& d : read_jsonl(s.path("run/samples.jsonl"), "worker_dropped"))
    contexts.push_back({d["serial"], d["permit_ns"], d["device_ready_ns"], look.at(d["serial"])});
  // A worker of a later look whose context was permitted before the look before it had measured
  // was started for the next look: its context came once that look's last batch was released,
  // and no other context was being made from its permit to its device's readiness.
  std::size_t early = 0;
  for (const auto& c : contexts) {
    if (c.look == 0 || c.permit == 0 || c.permit >= last_measured[c.look - 1]) continue;
    ++early;
    CAPTURE(c.serial);
    CHECK(c.permit >= last_release[c.look - 1]);
    for (const auto& o : contexts)
      if (o.serial != c.serial && o.permit != 0)
        CHECK_MESSAGE((o.ready < c.permit || c.ready < o.permit), "beside the context of worker " << o.serial);
  }
  CHECK(early > 0);  // pre-start reached into the next looks
  // And none of them, nor any other context, beside a timed sample (the context gate).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> made;
  for (const auto& w : read_jsonl(s.path("run/samples.jsonl"), "worker"))
    made.push_back({w["context_begin_ns"], w["device_ready_ns"]});
  for (const auto& d : read_jsonl(s.path("run/samples.jsonl"), "worker_dropped")) {
    if (d["context_begin_ns"].get<std::uint64_t>() == 0) continue;
    const auto ready = d["device_ready_ns"].get<std::uint64_t>();  // 0: killed while making it
    made.push_back({d["context_begin_ns"], ready != 0 ? ready : d["dropped_ns"].get<std::uint64_t>()});
  }
  for (const auto& x : read_jsonl(s.path("run/samples.jsonl")))
    for (const auto& [begin, ready] : made)
      CHECK_MESSAGE((ready < x["begin_ns"].get<std::uint64_t>() || x["end_ns"].get<std::uint64_t>() < begin),
                    "sample " << x["slot"] << " beside a context");
}

TEST_CASE("ab --until-verdict with pre-start, Python sides forked from zygotes: instances that stop at different looks "
          "drop the workers started for the jobs they would have had, and nothing else changes") {
  // The same module on both sides, timed on the CPU: instances stop SAME (or run out UNCERTAIN) at
  // looks of their own, so a look that stops one of them finds the next look's workers started
  // for jobs that still hold it.
  Scratch s("seq-next-call-python");
  for (const char* side : {"a", "b"}) {
    std::filesystem::create_directories(s.path(side));
    s.write(std::string(side) + "/nextmod.py",
            "import time\n"
            "def spin(us, seed, device, stream):\n"
            "    def launch():\n"
            "        end = time.perf_counter() + us * 1e-6\n"
            "        while time.perf_counter() < end:\n"
            "            pass\n"
            "    return launch\n");
  }
  const auto sweep = s.write("sweep.yaml", R"(settings: {samples: 24, inner: 20, statistic: min, seed: 5}
benchmarks:
  - python: nextmod
    function: spin
    device: cpu
    axes: {us: [50, 100, 200]}
)");
  const auto r = run(bin("orchestrate") + " ab --device cpu --quiet --format json --prestart 1 --zygotes per-run " +
                         "--baseline-pythonpath " + s.path("a") + " --candidate-pythonpath " + s.path("b") +
                         " --out " + s.path("run") + " " + sweep,
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto v = verdicts(nlohmann::json::parse(r.out));
  for (const auto& [id, verdict] : v) CHECK_MESSAGE((verdict == "SAME" || verdict == "UNCERTAIN"), id, verdict);
  check_next_call_run(s, 8);
  CHECK(!read_jsonl(s.path("run/samples.jsonl"), "worker_dropped").empty());
  const auto again = run(bin("orchestrate") + " compare --json " + s.path("run"), s);
  CHECK(verdicts(nlohmann::json::parse(again.out)) == v);
}
