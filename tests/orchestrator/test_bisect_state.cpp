// A bisection's record (orchestrator/bisect/bisect_state.hpp): what is written is read back the
// same, the walk replays from it, and damage is named by its field.

#include <doctest/doctest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "orchestrator/bisect/bisect_state.hpp"

using namespace isobench::orchestrator;
using isobench::stats::Verdict;

namespace {

BisectState sample_state() {
  BisectState s;
  s.range.repo = "/repo";
  for (int i = 0; i <= 8; ++i) {
    s.range.commits.push_back(std::string(39, 'a') + std::to_string(i));
    s.range.subjects.push_back("commit " + std::to_string(i));
  }
  s.good_rev = "v1";
  s.bad_rev = "HEAD";
  s.build_command = "make OUT={out}";
  s.artifact_kind = BuildArtifact::plugin;
  s.artifact = "lib/libk.so";
  s.sweep = "/sweep.yaml";
  s.python = "/venv/bin/python";
  s.instances = {"k[n=1]", "k[n=2]"};
  s.max_samples = 32;
  s.budget = {.alpha = 0.01, .confidence = 0.99, .tests = 4, .instances = 2};
  s.threshold = 0.05;
  s.command_line = {"orchestrate", "bisect"};
  s.builds[s.range.commits[0]] = {true, ""};
  s.builds[s.range.commits[8]] = {true, ""};
  s.builds[s.range.commits[4]] = {false, "`make` exited 2"};
  s.steps.push_back({.commit = 8, .instances = s.instances, .run_dir = "steps/00-x", .done = true,
                     .verdicts = {{"k[n=1]", Verdict::slower}, {"k[n=2]", Verdict::slower}}});
  s.steps.push_back({.commit = 5, .instances = s.instances, .run_dir = "steps/01-y", .done = true,
                     .verdicts = {{"k[n=1]", Verdict::slower}, {"k[n=2]", Verdict::same}}});
  s.steps.push_back({.commit = 2, .instances = {"k[n=1]"}, .run_dir = "steps/02-z", .done = false, .verdicts = {}});
  return s;
}

}  // namespace

TEST_CASE("bisect.json is read back as written") {
  const BisectState s = sample_state();
  const BisectState back = BisectState::from_json(nlohmann::json::parse(s.to_json().dump()));
  CHECK(back.to_json() == s.to_json());
  CHECK(back.range.commits == s.range.commits);
  CHECK(back.artifact_kind == BuildArtifact::plugin);
  CHECK(back.max_samples == 32);
  CHECK(back.python == "/venv/bin/python");
  CHECK(back.budget.instances == 2);  // M is the record's instances
  CHECK(back.builds.at(s.range.commits[4]).problem == "`make` exited 2");
  REQUIRE(back.steps.size() == 3);
  CHECK(back.steps[1].verdicts.at("k[n=2]") == Verdict::same);
  CHECK_FALSE(back.steps[2].done);
}

TEST_CASE("a bisect.json from before bisect --python reads as python3 from PATH") {
  nlohmann::json j = sample_state().to_json();
  j.erase("python");
  CHECK(BisectState::from_json(j).python.empty());
}

TEST_CASE("the walk replays from the record: skips, and the finished steps only") {
  const RangeWalk walk = replay_walk(sample_state());
  CHECK(walk.skipped() == std::set<std::size_t>{4});
  const auto& a = walk.instances()[0];
  const auto& b = walk.instances()[1];
  CHECK(a.state == InstanceState::walking);
  CHECK(a.good == 0);
  CHECK(a.bad == 5);
  CHECK(a.tests == 2);  // the unfinished step at commit 2 is not counted
  CHECK(b.good == 5);
  CHECK(b.bad == 8);
}

TEST_CASE("a damaged record is refused, naming what is wrong") {
  const auto refused = [](nlohmann::json j, const std::string& expected) {
    try {
      BisectState::from_json(j);
      return std::string("accepted");
    } catch (const std::runtime_error& e) {
      return std::string(e.what()).find(expected) != std::string::npos ? std::string() : std::string(e.what());
    }
  };
  auto j = sample_state().to_json();
  CHECK(refused(nlohmann::json::object(), "schema_version").empty());
  auto wrong_version = j;
  wrong_version["schema_version"] = 2;
  CHECK(refused(wrong_version, "schema_version").empty());
  auto no_build = j;
  no_build.erase("build_command");
  CHECK(refused(no_build, "build_command").empty());
  auto bad_verdict = j;
  bad_verdict["steps"][0]["verdicts"]["k[n=1]"] = "SLOWISH";
  CHECK(refused(bad_verdict, "SLOWISH").empty());
  auto bad_kind = j;
  bad_kind["artifact_kind"] = "binary";
  CHECK(refused(bad_kind, "artifact_kind").empty());
  auto wrong_commit = j;
  wrong_commit["steps"][1]["index"] = 6;
  CHECK(refused(wrong_commit, "does not name its commit").empty());
}
