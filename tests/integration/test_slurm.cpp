// A sweep sharded over a real Slurm cluster: the one-host cluster scripts/slurm-cluster.sh
// starts (the ctest fixture `slurm` does), CPU kernels standing in for GPU ones. The merged run
// holds every planned sample exactly once and compare, history and report read it; an A/B run keeps both sides of an instance in one
// task; a task cancelled with scancel is resubmitted for its missing samples only, by --resume of
// the merged run; a shard another task holds is left alone; sbatch's refusal leaves nothing.
// Label `slurm`: the Release pass only (scripts/test.sh).

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "harness.hpp"

using namespace isobench::testing;
using nlohmann::json;

namespace {

// Two tasks at once on the test cluster's two CPUs (the script's default is two CPUs a task).
const std::string kSlurm = " --executor slurm --sbatch-option=--cpus-per-task=1 ";

std::string orchestrate() { return bin("orchestrate") + " --device cpu --quiet"; }

std::string hostname() {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return host;
}

// Every slot plan.json schedules, each once.
std::set<std::uint32_t> planned_slots(const std::string& run) {
  std::set<std::uint32_t> slots;
  const auto plan = read_json(run + "/plan.json");
  for (const auto& r : plan["schedule"]["runs"])
    for (const auto& t : r["tasks"]) CHECK(slots.insert(t[3].get<std::uint32_t>()).second);
  return slots;
}

// The merged run holds every planned sample exactly once, each on its own instance's slot, from
// the shard its instance was dealt to; returns the samples.
std::vector<json> check_merged(const std::string& run) {
  const auto plan = read_json(run + "/plan.json");
  const auto slurm = read_json(run + "/slurm.json");
  const auto samples = read_jsonl(run + "/samples.jsonl");
  const auto planned = planned_slots(run);
  const std::uint32_t n_samples = plan["schedule"]["samples"], n = plan["instances"].size();
  std::map<std::uint32_t, std::uint32_t> shard_of;
  for (const auto& s : slurm["shards"])
    for (const auto& i : s["instances"]) shard_of[i.get<std::uint32_t>()] = s["index"];
  std::set<std::uint32_t> slots;
  for (const auto& x : samples) {
    const std::uint32_t i = x.at("instance_index"), side = x.at("side");
    CHECK(slots.insert(x.at("slot").get<std::uint32_t>()).second);
    CHECK(x.at("slot") == side * n * n_samples + i * n_samples + x.at("sample").get<std::uint32_t>());
    CHECK(x.at("instance") == plan["instances"][i]["id"]);
    CHECK(x.at("shard") == shard_of.at(i));
    CHECK(x.value("host", "") == hostname());
  }
  CHECK(slots == planned);
  CHECK(read_json(run + "/run.json")["status"] == "complete");
  return samples;
}

std::string job_of(const std::string& run, std::size_t submission = 0) {
  return read_json(run + "/slurm.json")["submissions"][submission]["job_id"];
}

// Polls until `done()` or `seconds` pass; false on timeout.
template <class F>
bool eventually(F done, int seconds = 90) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

bool listed_by_squeue(const Scratch& s, const std::string& task) {
  const auto r = run("squeue --me --noheader --array --format=%i", s);
  return ("\n" + r.out).find("\n" + task + "\n") != std::string::npos;
}

std::vector<json> task_records(const std::string& shard) { return read_jsonl(shard + "/samples.jsonl", "slurm_task"); }

const char* kSweep = R"(name: slurm-cpu
settings: {samples: 4, warmup: 1, inner: 2, seed: 11, isolation: process, per: batch}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [20, 40, 60, 80, 100]}
  - kernel: cpu_copy
    axes: {bytes: [4096, 65536]}
)";

}  // namespace

TEST_CASE("a sweep of CPU kernels as a job array of shards merges into every planned sample, once") {
  Scratch s("slurm-sweep");
  const auto sweep = s.write("sweep.yaml", kSweep);
  const auto r = run(orchestrate() + kSlurm + "--shards 3 --max-running 2 --format json --out " + s.path("run") +
                         " " + sweep,
                     s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(json::parse(r.out)["instances"].size() == 7);  // the summary, as an ordinary run prints it
  const auto samples = check_merged(s.path("run"));
  CHECK(samples.size() == 7 * 4);

  const auto slurm = read_json(s.path("run/slurm.json"));
  REQUIRE(slurm["submissions"].size() == 1);
  CHECK(slurm["submissions"][0]["array"] == "0-2%2");
  const std::string job = job_of(s.path("run"));
  for (const auto& x : samples) CHECK(x.value("slurm_job", "") == job + "_" + std::to_string(x.at("shard").get<int>()));
  for (int k = 0; k < 3; ++k) {
    const auto tasks = task_records(s.path("run/shards/000" + std::to_string(k)));
    REQUIRE(tasks.size() == 1);
    CHECK(tasks[0]["array_job_id"] == job);
    CHECK(tasks[0]["array_task_id"] == std::to_string(k));
    CHECK(tasks[0]["host"] == hostname());
    CHECK(tasks[0]["gpu_uuid"].is_null());  // a CPU sweep names no GPU
    CHECK(std::filesystem::exists(s.path("run/slurm-logs/" + job + "_" + std::to_string(k) + ".out")));
  }
  const std::string script = slurp(s.path("run/job.sbatch"));
  CHECK(script.find("\n##SBATCH --gpus-per-task=1\n") != std::string::npos);
  CHECK(script.find("\n#SBATCH --gpus-per-task") == std::string::npos);
  CHECK(script.find("\n#SBATCH --cpus-per-task=1\n") != std::string::npos);

  // compare, history and report read the merged run like any other.
  const auto c = run(bin("orchestrate") + " compare --json " + s.path("run") + " " + s.path("run"), s);
  CHECK_MESSAGE(c.exit_code == 0, c.err);
  CHECK(json::parse(c.out)["instances"].size() == 7);
  const std::string history = " --history " + s.path("h.sqlite");
  const auto added = run(bin("orchestrate") + " history add --label slurm" + history + " " + s.path("run"), s);
  CHECK_MESSAGE(added.exit_code == 0, added.err);
  const auto shown = run(bin("orchestrate") + " history show 'cpu_spin[microseconds=40]' --json" + history, s);
  REQUIRE_MESSAGE(shown.exit_code == 0, shown.err);
  CHECK(json::parse(shown.out)["series"][0]["runs"][0]["samples"].size() == 4);
  const auto report = run(bin("orchestrate") + " report --out " + s.path("report") + " " + s.path("run"), s);
  CHECK_MESSAGE(report.exit_code == 0, report.err);
  CHECK(std::filesystem::exists(s.path("report/index.html")));
}

TEST_CASE("an A/B run merged from shards has both sides of every instance from one task") {
  Scratch s("slurm-ab");
  const auto sweep = s.write("sweep.yaml", kSweep);
  const std::string worker = bin("isobench-worker");
  const auto r = run(bin("orchestrate") + " ab --device cpu --quiet" + kSlurm + "--shards 2 --fail-on never --format json --baseline " +
                         worker + " --candidate " + worker + " --out " + s.path("run") + " " + sweep,
                     s);
  // 4 samples a side cannot reach alpha 0.001: ab refuses that n unless told --fail-on never.
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto verdicts = json::parse(r.out)["instances"];
  REQUIRE(verdicts.size() == 7);
  for (const auto& v : verdicts) {
    CHECK(v["n_a"] == 4);
    CHECK(v["n_b"] == 4);
  }
  const auto samples = check_merged(s.path("run"));
  CHECK(samples.size() == 7 * 4 * 2);
  std::map<std::string, std::set<std::string>> tasks;
  std::map<std::string, std::map<int, int>> per_side;
  for (const auto& x : samples) {
    tasks[x.at("instance")].insert(x.value("slurm_job", ""));
    ++per_side[x.at("instance")][x.at("side").get<int>()];
  }
  REQUIRE(tasks.size() == 7);
  for (const auto& [id, jobs] : tasks) {
    CAPTURE(id);
    CHECK(jobs.size() == 1);
    CHECK(per_side[id] == std::map<int, int>{{0, 4}, {1, 4}});
  }
}

TEST_CASE("a task cancelled with scancel is resubmitted for its missing samples only by --resume") {
  Scratch s("slurm-scancel");
  // Two shards of two instances, 30 samples each, a fresh worker and 40 ms idle per sample: each
  // task takes a few seconds, long enough to be cancelled in the middle.
  const auto sweep = s.write("sweep.yaml", R"(name: slurm-slow
settings: {samples: 30, warmup: 1, inner: 2, seed: 5, isolation: process, per: sample, idle_gap_ms: 40}
benchmarks:
  - kernel: cpu_spin
    axes: {microseconds: [50, 100, 150, 200]}
)");
  const std::string run_dir = s.path("run");
  const auto r = run(orchestrate() + kSlurm + "--shards 2 --no-wait --out " + run_dir + " " + sweep, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string job = job_of(run_dir), shard1 = run_dir + "/shards/0001";
  REQUIRE(eventually([&] {
    return std::filesystem::exists(shard1 + "/samples.jsonl") && samples_so_far(shard1 + "/samples.jsonl") >= 5;
  }));
  REQUIRE(run("scancel " + job + "_1", s).exit_code == 0);
  REQUIRE(eventually([&] { return !listed_by_squeue(s, job + "_1"); }));
  const auto kept = read_jsonl(shard1 + "/samples.jsonl");
  REQUIRE(kept.size() < 60);
  CHECK(read_json(shard1 + "/run.json")["status"] == "interrupted");  // SIGTERM: the run stopped in order

  // The merge says what is missing and exits 3; --resume submits shard 1 again, and only it.
  const auto merged = run(bin("orchestrate") + " slurm merge --format none " + run_dir, s);
  CHECK(merged.exit_code == 3);
  CHECK(merged.err.find("shard 1: " + std::to_string(kept.size()) + " of 60 samples") != std::string::npos);
  const auto resumed = run(orchestrate() + " --format none --resume " + run_dir, s);
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  const auto samples = check_merged(run_dir);
  CHECK(samples.size() == 120);

  const auto slurm = read_json(run_dir + "/slurm.json");
  REQUIRE(slurm["submissions"].size() == 2);
  CHECK(slurm["submissions"][1]["shards"] == json::array({1}));
  CHECK(task_records(run_dir + "/shards/0000").size() == 1);
  const auto tasks = task_records(shard1);
  REQUIRE(tasks.size() == 2);
  CHECK(tasks[1]["samples_before"] == kept.size());
  CHECK(tasks[1]["array_job_id"] == job_of(run_dir, 1));
  // Nothing measured twice: the second task took exactly the slots the first had not.
  const auto all = read_jsonl(shard1 + "/samples.jsonl");
  REQUIRE(all.size() == 60);
  std::set<std::uint32_t> first, second;
  for (std::size_t i = 0; i < all.size(); ++i)
    (i < kept.size() ? first : second).insert(all[i].at("slot").get<std::uint32_t>());
  CHECK(first.size() == kept.size());
  CHECK(second.size() == 60 - kept.size());
  for (const auto slot : first) CHECK_FALSE(second.count(slot));
  std::size_t by_second = 0;
  for (const auto& x : samples) by_second += x.value("slurm_job", "") == job_of(run_dir, 1) + "_1" ? 1 : 0;
  CHECK(by_second == 60 - kept.size());

  const auto again = run(bin("orchestrate") + " --resume " + run_dir, s);
  CHECK(again.exit_code == 0);
  CHECK(again.err.find("complete; nothing to resume") != std::string::npos);
  CHECK(read_jsonl(run_dir + "/samples.jsonl").size() == 120);
}

TEST_CASE("--resume while the run's tasks are still queued submits nothing more and waits for them") {
  Scratch s("slurm-queued");
  const auto sweep = s.write("sweep.yaml", kSweep);
  const std::string run_dir = s.path("run");
  REQUIRE(run(orchestrate() + kSlurm + "--shards 2 --no-wait --out " + run_dir + " " + sweep, s).exit_code == 0);
  const auto resumed = run(orchestrate() + " --format none --resume " + run_dir, s);
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  CHECK(read_json(run_dir + "/slurm.json")["submissions"].size() == 1);
  check_merged(run_dir);
  for (const char* shard : {"/shards/0000", "/shards/0001"}) CHECK(task_records(run_dir + shard).size() == 1);
}

TEST_CASE("a shard another task holds is left alone; a complete shard's task measures nothing") {
  Scratch s("slurm-lock");
  const auto sweep = s.write("sweep.yaml", kSweep);
  const std::string run_dir = s.path("run"), shard0 = run_dir + "/shards/0000";
  // Submitted held: no task starts until the test releases the array.
  REQUIRE(run(orchestrate() + kSlurm + "--sbatch-option=--hold --shards 2 --no-wait --out " + run_dir + " " + sweep, s)
              .exit_code == 0);
  const std::string job = job_of(run_dir);
  {
    const int fd = ::open((shard0 + "/task.lock").c_str(), O_RDWR | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::flock(fd, LOCK_EX) == 0);
    const auto held = run(orchestrate() + " slurm task --shard 0 " + run_dir, s);
    CHECK(held.exit_code == 0);
    CHECK(held.err.find("being measured by another task") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(shard0 + "/samples.jsonl"));
    ::close(fd);
  }
  // Shard 0 measured by hand, outside Slurm; then the array runs, and its task 0 finds nothing to do.
  const auto by_hand = run(orchestrate() + " slurm task --shard 0 " + run_dir, s);
  REQUIRE_MESSAGE(by_hand.exit_code == 0, by_hand.err);
  CHECK(read_json(shard0 + "/run.json")["status"] == "complete");
  REQUIRE(run("scontrol release " + job, s).exit_code == 0);
  const auto resumed = run(orchestrate() + " --format none --resume " + run_dir, s);
  REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
  CHECK(read_json(run_dir + "/slurm.json")["submissions"].size() == 1);
  const auto tasks = task_records(shard0);
  REQUIRE(tasks.size() == 1);  // the hand-run one; Slurm's task 0 found the shard complete
  CHECK(tasks[0]["job"].is_null());
  CHECK(slurp(run_dir + "/slurm-logs/" + job + "_0.out").find("is complete: nothing to measure") != std::string::npos);
  for (const auto& x : check_merged(run_dir))
    if (x.at("shard") == 0) CHECK_FALSE(x.contains("slurm_job"));
}

TEST_CASE("an array sbatch refuses is bad input: its words, exit 2, no run directory left") {
  Scratch s("slurm-refused");
  const auto sweep = s.write("sweep.yaml", kSweep);
  const auto r = run(orchestrate() + kSlurm + "--sbatch-option=--partition=no-such-partition --shards 2 --out " +
                         s.path("run") + " " + sweep,
                     s);
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.find("sbatch refused the job array") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("partition") != std::string::npos, r.err);
  CHECK_FALSE(std::filesystem::exists(s.path("run")));
}
