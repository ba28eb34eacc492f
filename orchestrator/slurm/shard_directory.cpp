#include "shard_directory.hpp"

#include <filesystem>

#include "slurm_run.hpp"

namespace isobench::orchestrator {

void write_shard_directory(const RunDirectory& run, const Plan& plan, const Shard& shard,
                           const std::vector<std::string>& command_line) {
  const auto dir = RunDirectory::create(run.file(shard_dir(shard.index)));
  dir.write_json("plan.json", shard_plan(plan, shard).to_json());
  dir.write_json("run.json",
                 {{"schema_version", kRunSchemaVersion},
                  {"sweep", plan.sweep_name},
                  {"status", "planned"},
                  {"planned", utc_timestamp()},
                  {"command_line", command_line},
                  {"resumed", nlohmann::json::array()},
                  {"shard", {{"index", shard.index},
                             {"of_run", std::filesystem::absolute(run.path()).lexically_normal().string()}}}});
}

}  // namespace isobench::orchestrator
