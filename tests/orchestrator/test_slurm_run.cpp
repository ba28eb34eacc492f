// slurm.json: its shards must partition the run's instances, and it survives its JSON; array
// indices are written as sbatch's --array takes them.
#include <doctest/doctest.h>

#include <stdexcept>

#include "orchestrator/slurm/slurm_run.hpp"

using namespace isobench::orchestrator;
using nlohmann::json;

TEST_CASE("slurm.json round-trips, and shards that do not partition the plan are refused") {
  SlurmRun run;
  run.shards = deal_shards(5, 2);
  run.max_running = 3;
  run.task_options = {{"retries", 2}};
  run.submissions.push_back({"1234", "0-1%3", {0, 1}, {}, "2026-12-01T09:00:00.000Z"});
  run.submissions.push_back({"1240", "1", {1}, {"--time=1:00:00"}, "2026-12-01T09:10:00.000Z"});
  const json j = run.to_json();
  CHECK(j["shards"][1]["dir"] == "shards/0001");
  const SlurmRun back = SlurmRun::from_json(json::parse(j.dump()), 5);
  CHECK(back.to_json() == j);
  CHECK(back.submissions[1].sbatch_args == std::vector<std::string>{"--time=1:00:00"});

  CHECK_THROWS_AS(SlurmRun::from_json(j, 6), std::runtime_error);  // an instance dealt to no shard
  CHECK_THROWS_AS(SlurmRun::from_json(j, 4), std::runtime_error);  // one beyond the plan
  json twice = j;
  twice["shards"][1]["instances"].push_back(0);
  CHECK_THROWS_AS(SlurmRun::from_json(twice, 5), std::runtime_error);
  json empty = j;
  empty["shards"][1]["instances"] = json::array();
  CHECK_THROWS_AS(SlurmRun::from_json(empty, 2), std::runtime_error);
  json misnumbered = j;
  misnumbered["shards"][1]["index"] = 7;
  CHECK_THROWS_AS(SlurmRun::from_json(misnumbered, 5), std::runtime_error);
}

TEST_CASE("array indices are written as ranges") {
  CHECK(array_ranges({0, 1, 2, 3}) == "0-3");
  CHECK(array_ranges({3}) == "3");
  CHECK(array_ranges({0, 2, 3, 4, 9, 11, 12}) == "0,2-4,9,11-12");
  CHECK(array_ranges({}) == "");
}
