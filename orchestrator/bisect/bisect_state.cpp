#include "orchestrator/bisect/bisect_state.hpp"

#include <stdexcept>

#include "orchestrator/json_errors.hpp"

namespace isobench::orchestrator {

namespace {

constexpr const char* kArtifactKinds[] = {"worker", "plugin", "python_path"};

stats::Verdict parse_verdict(const std::string& text) {
  for (const auto v : {stats::Verdict::slower, stats::Verdict::faster, stats::Verdict::same, stats::Verdict::uncertain})
    if (stats::to_string(v) == text) return v;
  throw std::runtime_error("verdict: " + text + " is none of SLOWER, FASTER, SAME, UNCERTAIN");
}

BuildArtifact parse_artifact_kind(const std::string& text) {
  for (std::size_t i = 0; i < std::size(kArtifactKinds); ++i)
    if (text == kArtifactKinds[i]) return static_cast<BuildArtifact>(i);
  throw std::runtime_error("artifact_kind: " + text + " is none of worker, plugin, python_path");
}

}  // namespace

nlohmann::json BisectState::to_json() const {
  nlohmann::json builds_json = nlohmann::json::object();
  for (const auto& [commit, b] : builds) builds_json[commit] = {{"built", b.built}, {"problem", b.problem}};
  nlohmann::json steps_json = nlohmann::json::array();
  for (const auto& s : steps) {
    nlohmann::json verdicts_json = nlohmann::json::object();
    for (const auto& [id, v] : s.verdicts) verdicts_json[id] = std::string(stats::to_string(v));
    steps_json.push_back({{"commit", range.commits[s.commit]}, {"index", s.commit}, {"instances", s.instances},
                          {"run_dir", s.run_dir}, {"done", s.done}, {"verdicts", verdicts_json}});
  }
  return {{"schema_version", kBisectSchemaVersion},
          {"repo", range.repo},
          {"commits", range.commits},
          {"subjects", range.subjects},
          {"good", good_rev},
          {"bad", bad_rev},
          {"build_command", build_command},
          {"artifact_kind", kArtifactKinds[static_cast<int>(artifact_kind)]},
          {"artifact", artifact},
          {"sweep", sweep},
          {"python", python},
          {"instances", instances},
          {"device", device},
          {"overrides", overrides},
          {"max_samples", max_samples ? nlohmann::json(*max_samples) : nlohmann::json()},
          {"alpha", budget.alpha},
          {"confidence", budget.confidence},
          {"tests_per_instance", budget.tests},
          {"threshold", threshold},
          {"command_line", command_line},
          {"builds", builds_json},
          {"steps", steps_json}};
}

BisectState BisectState::from_json(const nlohmann::json& j) {
  BisectState s;
  try {
    if (j.value("schema_version", 0) != kBisectSchemaVersion)
      throw std::runtime_error("schema_version: not " + std::to_string(kBisectSchemaVersion) +
                               " (a bisection of another isobench version)");
    s.range.repo = j.at("repo").get<std::string>();
    s.range.commits = j.at("commits").get<std::vector<std::string>>();
    s.range.subjects = j.at("subjects").get<std::vector<std::string>>();
    if (s.range.commits.size() < 2 || s.range.subjects.size() != s.range.commits.size())
      throw std::runtime_error("commits: fewer than two, or not one subject each");
    s.good_rev = j.at("good").get<std::string>();
    s.bad_rev = j.at("bad").get<std::string>();
    s.build_command = j.at("build_command").get<std::string>();
    s.artifact_kind = parse_artifact_kind(j.at("artifact_kind").get<std::string>());
    s.artifact = j.at("artifact").get<std::string>();
    s.sweep = j.at("sweep").get<std::string>();
    s.python = j.value("python", "");  // recorded since bisect --python; before it, python3
    s.instances = j.at("instances").get<std::vector<std::string>>();
    s.device = j.at("device").get<std::string>();
    s.overrides = j.at("overrides");
    if (!j.at("max_samples").is_null()) s.max_samples = j.at("max_samples").get<std::int64_t>();
    s.budget.alpha = j.at("alpha").get<double>();
    s.budget.confidence = j.at("confidence").get<double>();
    s.budget.tests = j.at("tests_per_instance").get<std::size_t>();
    s.budget.instances = s.instances.size();
    s.threshold = j.at("threshold").get<double>();
    s.command_line = j.at("command_line").get<std::vector<std::string>>();
    for (const auto& [commit, b] : j.at("builds").items())
      s.builds[commit] = {b.at("built").get<bool>(), b.at("problem").get<std::string>()};
    for (const auto& step : j.at("steps")) {
      BisectStep st;
      st.commit = step.at("index").get<std::size_t>();
      if (st.commit >= s.range.commits.size() || step.at("commit") != s.range.commits[st.commit])
        throw std::runtime_error("steps: index " + std::to_string(st.commit) + " does not name its commit");
      st.instances = step.at("instances").get<std::vector<std::string>>();
      st.run_dir = step.at("run_dir").get<std::string>();
      st.done = step.at("done").get<bool>();
      for (const auto& [id, v] : step.at("verdicts").items()) st.verdicts[id] = parse_verdict(v.get<std::string>());
      s.steps.push_back(std::move(st));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(json_error_text(e));
  }
  return s;
}

RangeWalk replay_walk(const BisectState& state) {
  RangeWalk walk(state.range.size(), state.instances);
  for (std::size_t i = 1; i < state.range.size(); ++i)
    if (const auto it = state.builds.find(state.range.commits[i]); it != state.builds.end() && !it->second.built)
      walk.skip(i);
  for (const auto& step : state.steps)
    if (step.done) walk.record(step.commit, step.verdicts);
  return walk;
}

}  // namespace isobench::orchestrator
