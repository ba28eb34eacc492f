// Merging a Slurm run's shards: every shard sample lands once on the run's own slot, tagged with
// the task that took it (the last slurm_task record before it), a slot journaled twice counts
// once, a sample taken on another GPU than its task named is reported, pinned inner counts and
// artifact folders come along, and a journal that names a slot its shard does not have is refused.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <set>

#include "orchestrator/sample_journal.hpp"
#include "orchestrator/run/sweep_plan.hpp"
#include "orchestrator/slurm/shard_directory.hpp"
#include "orchestrator/slurm/shard_merge.hpp"
#include "orchestrator/sweep.hpp"
#include "temp_dir.hpp"

using namespace isobench::orchestrator;
using isobench::testing::TempDir;
using nlohmann::json;

namespace {

constexpr std::uint32_t kSamples = 3;

struct SlurmRunFixture {
  TempDir tmp{"shard_merge"};
  Plan plan;
  SlurmRun slurm;
  RunDirectory run = RunDirectory::create((tmp.path() / "run").string());

  SlurmRunFixture() {
    const std::string text = "settings: {samples: 3, seed: 4}\nbenchmarks:\n  - kernel: cpu_spin\n"
                             "    axes: {microseconds: [10, 20, 30, 40, 50]}\n";
    plan = make_plan(parse_sweep(text, "merge.yaml"), isobench::kernels::Backend::cpu);
    slurm.shards = deal_shards(5, 2);  // shard 0: instances 0, 2, 4; shard 1: 1, 3
    run.write_json("plan.json", plan.to_json());
    run.write_json("run.json", {{"schema_version", 1}, {"status", "running"}});
    run.write_json(kSlurmFile, slurm.to_json());
    for (const auto& shard : slurm.shards) write_shard_directory(run, plan, shard, {"orchestrate"});
  }
  RunDirectory shard(std::uint32_t k) const { return RunDirectory::open(run.file(shard_dir(k))); }
};

json task(const std::string& job, std::size_t before, const char* gpu_uuid = nullptr) {
  return {{"type", "slurm_task"}, {"job", job},     {"host", "node-" + job},
          {"gpu_uuid", gpu_uuid ? json(gpu_uuid) : json()}, {"samples_before", before}};
}

// Sample `sample` of the shard's local instance `local`, as the shard's runner journals it.
SampleRecord sample(const Plan& shard_plan, std::uint32_t local, std::uint32_t sample, const std::string& gpu_uuid = "") {
  SampleRecord r;
  r.instance = shard_plan.instances[local].worker.id;
  r.instance_index = local;
  r.sample = r.round = sample;
  r.slot = local * kSamples + sample;
  r.values.value_s = 1e-5 * (local + 1) + 1e-7 * sample;
  r.values.inner = 2;
  r.worker_pid = 100 + sample;
  r.unix_time = 1.0;
  r.gpu_uuid = gpu_uuid;
  r.gpu_name = gpu_uuid.empty() ? "" : "NVIDIA H200";
  return r;
}

Plan plan_of(const RunDirectory& dir) { return Plan::from_json(dir.read_json("plan.json")); }

}  // namespace

TEST_CASE("shards merge into the run: each sample on its slot once, attributed to its task") {
  SlurmRunFixture f;
  const Plan p0 = plan_of(f.shard(0)), p1 = plan_of(f.shard(1));
  {
    // Shard 0: a task measured 4 samples and was cancelled; a second finished the other 5, one of
    // them on a GPU other than the one it named.
    SampleJournal j(f.shard(0).file("samples.jsonl"));
    j.append_event(task("7_0", 0));
    for (std::uint32_t s = 0; s < 3; ++s) j.append(sample(p0, 0, s));
    j.append(sample(p0, 1, 0));
    j.append_event({{"type", "worker_failure"}, {"reason", "killed by SIGTERM"}});
    j.append_event(task("9_0", 4, "GPU-aaaa"));
    j.append(sample(p0, 1, 1, "GPU-aaaa"));
    j.append(sample(p0, 1, 2, "GPU-bbbb"));
    for (std::uint32_t s = 0; s < 3; ++s) j.append(sample(p0, 2, s, "GPU-aaaa"));
    // Shard 1: 3 of its 6 samples, one slot journaled twice.
    SampleJournal k(f.shard(1).file("samples.jsonl"));
    k.append_event(task("7_1", 0));
    k.append(sample(p1, 0, 0));
    k.append(sample(p1, 0, 1));
    k.append(sample(p1, 0, 1));
    k.append(sample(p1, 1, 2));
  }
  // Shard 0 pinned an inner count and kept an artifact.
  Plan calibrated = p0;
  calibrated.instances[2].inner = 17;
  f.shard(0).write_json("plan.json", calibrated.to_json());
  f.shard(0).write_json("artifacts.json",
                        {{"schema_version", 1},
                         {"max_file_bytes", 268435456},
                         {"sides", {{{"side", 0},
                                     {"instances", {{p0.instances[1].worker.id,
                                                     {{"folder", "artifacts/side-0/x"}, {"files", json::array()}}}}}}}}});

  Plan plan = f.plan;
  const auto result = merge_shards(f.run, f.slurm, plan);
  CHECK(result.samples_expected == 15);
  CHECK(result.samples_recorded == 12);
  REQUIRE(result.shards.size() == 2);
  CHECK(result.shards[0].complete());
  CHECK(result.shards[1].samples_recorded == 3);
  CHECK(result.shards[1].status == "planned");
  CHECK(result.shards[0].tasks.size() == 2);
  REQUIRE(result.warnings.size() == 2);
  CHECK(result.warnings[0].find("9_0") != std::string::npos);  // shard 0's, then shard 1's
  CHECK(result.warnings[0].find("1 of its samples") != std::string::npos);
  CHECK(result.warnings[1].find("journaled before") != std::string::npos);

  const auto journal = read_journal(f.run.file("samples.jsonl"));
  REQUIRE(journal.samples.size() == 12);
  std::set<std::uint32_t> slots;
  for (const auto& s : journal.samples) {
    CHECK(slots.insert(s.slot).second);
    CHECK(s.slot == s.instance_index * kSamples + s.sample);
    CHECK(plan.instances[s.instance_index].worker.id == s.instance);
  }
  // The raw lines carry the shard and the task.
  std::map<std::string, std::size_t> by_job;
  std::size_t failures = 0;
  std::ifstream in(f.run.file("samples.jsonl"));
  for (std::string line; std::getline(in, line);) {
    const json j = json::parse(line);
    if (j.value("type", "") == "worker_failure") ++failures;
    if (j.value("type", "") != "sample") continue;
    ++by_job[j.at("slurm_job").get<std::string>()];
    CHECK(j.at("host") == "node-" + j.at("slurm_job").get<std::string>());
    CHECK(j.at("shard") == (j.at("instance_index").get<int>() % 2));
  }
  CHECK(by_job == std::map<std::string, std::size_t>{{"7_0", 4}, {"9_0", 5}, {"7_1", 3}});
  CHECK(failures == 1);

  CHECK(plan.instances[4].inner == 17);  // shard 0's instance 2
  CHECK(plan_of(f.run).instances[4].inner == 17);
  const json run_info = f.run.read_json("run.json");
  CHECK(run_info["status"] == "incomplete");
  CHECK(run_info["samples_recorded"] == 12);
  const json artifacts = f.run.read_json("artifacts.json");
  CHECK(artifacts["sides"][0]["instances"][p0.instances[1].worker.id]["folder"] == "shards/0000/artifacts/side-0/x");
  const json shards = f.run.read_json("shards.json");
  CHECK(shards["shards"][0]["instances_across_tasks"] == 1);  // instance 2 of the run: 7_0 and 9_0
  CHECK(shards["shards"][1]["duplicates_dropped"] == 1);
  CHECK(f.run.read_json("summary.json")["instances"].size() == 5);

  // Merging again gives the same run.
  const std::string first = read_journal(f.run.file("samples.jsonl")).samples.front().instance;
  Plan again = f.plan;
  CHECK(merge_shards(f.run, f.slurm, again).samples_recorded == 12);
  CHECK(read_journal(f.run.file("samples.jsonl")).samples.front().instance == first);
}

TEST_CASE("a complete set of shards makes a complete run") {
  SlurmRunFixture f;
  for (std::uint32_t k = 0; k < 2; ++k) {
    const Plan p = plan_of(f.shard(k));
    SampleJournal j(f.shard(k).file("samples.jsonl"));
    j.append_event(task("3_" + std::to_string(k), 0));
    for (std::uint32_t i = 0; i < p.instances.size(); ++i)
      for (std::uint32_t s = 0; s < kSamples; ++s) j.append(sample(p, i, s));
  }
  Plan plan = f.plan;
  const auto result = merge_shards(f.run, f.slurm, plan);
  CHECK(result.samples_recorded == 15);
  CHECK(result.warnings.empty());
  CHECK(f.run.read_json("run.json")["status"] == "complete");
}

TEST_CASE("a shard journal naming a slot its plan does not have is refused, naming the file") {
  SlurmRunFixture f;
  const Plan p1 = plan_of(f.shard(1));
  SampleRecord wrong = sample(p1, 0, 0);
  wrong.instance = f.plan.instances[0].worker.id;  // shard 0's instance
  SampleJournal(f.shard(1).file("samples.jsonl")).append(wrong);
  Plan plan = f.plan;
  try {
    merge_shards(f.run, f.slurm, plan);
    FAIL("merged a sample of another shard's instance");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("shards/0001/samples.jsonl: sample 1") != std::string::npos);
  }
}
