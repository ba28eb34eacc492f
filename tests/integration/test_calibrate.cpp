// orchestrate calibrate end to end on the CPU backend: real A/A and slowdown runs in every
// isolation mode, the analysis, report and charts; resuming skips complete runs and finishes
// incomplete ones; bad input exits 2 with one line and leaves nothing behind.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "harness.hpp"

using namespace isobench::testing;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kModes = {"sequential", "interleave", "process", "process-sample", "ab"};

// `env`: variables before the command ("env -u X ").
Result calibrate(const Scratch& s, const std::string& args, const std::string& env = "") {
  // The small calibration docs/calibration.md shows, with its sweep file.
  const auto sweep = s.write("spin.yaml", slurp(source_dir() + "/configs/spin.yaml"));
  return run(
      env + bin("orchestrate") + " calibrate --device cpu --power-repetitions 50 --max-n 32 " + args + " " + sweep, s);
}

// Tags open and close in order (self-closing and <?...?> aside): enough to catch a broken writer.
bool well_formed(const std::string& xml) {
  std::vector<std::string> open;
  for (std::size_t i = xml.find('<'); i != std::string::npos; i = xml.find('<', i + 1)) {
    const std::size_t end = xml.find('>', i);
    if (end == std::string::npos) return false;
    const std::string tag = xml.substr(i + 1, end - i - 1);
    if (tag.empty() || tag[0] == '?' || tag.back() == '/') continue;
    const std::string name = tag.substr(tag[0] == '/' ? 1 : 0, tag.find_first_of(" \n", 0) - (tag[0] == '/' ? 1 : 0));
    if (tag[0] == '/') {
      if (open.empty() || open.back() != name) return false;
      open.pop_back();
    } else {
      open.push_back(name);
    }
  }
  return open.empty();
}

// A run's values of one instance and side, as calibration reads them from samples.jsonl.
std::vector<double> values_of(const std::string& run_dir, int instance, int side) {
  std::vector<double> v;
  for (const auto& x : read_jsonl(run_dir + "/samples.jsonl"))
    if (x["instance_index"] == instance && x.value("side", 0) == side) v.push_back(x["value"]);
  return v;
}

// The two-sided Brunner-Munzel p-value (the permutation test's, as calibration uses at these n) of two sets of values, as `orchestrate compare
// --samples` computes it from two files: the test calibration counts as a false positive.
double compare_p(const Scratch& s, const std::vector<double>& x, const std::vector<double>& y) {
  auto file = [&](const std::string& name, const std::vector<double>& values) {
    std::ostringstream text;
    text.precision(17);
    for (double v : values) text << v << "\n";
    return s.write(name, text.str());
  };
  const auto r = run(bin("orchestrate") + " compare --json --samples " + file("x.txt", x) + " " + file("y.txt", y), s);
  return nlohmann::json::parse(r.out)["brunner_munzel"]["permutation"]["two-sided"]["p_value"];
}

std::map<std::string, std::string> run_logs(const fs::path& dir) {
  std::map<std::string, std::string> logs;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename() == "log.txt") logs[e.path().string()] = slurp(e.path().string());
  return logs;
}

}  // namespace

TEST_CASE("calibrate: every mode, A/A pairs, a real slowdown, report and charts") {
  Scratch s("calibrate");
  const auto r = calibrate(s, "--runs 3 --modes sequential,interleave,process,process-sample,ab --real-slowdown 10 --out " +
                                  s.path("cal"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // Progress with an ETA for every run: 5 modes x 3 A/A runs + 4 modes x 3 slowdown runs.
  CHECK(r.err.find("27 runs, 0 already complete, 27 to run") != std::string::npos);
  CHECK(r.err.find("[27/27]") != std::string::npos);
  CHECK(r.err.find("ETA") != std::string::npos);
  CHECK(r.out.find("| ab |") != std::string::npos);
  // The sample count to plan with is on stdout, per mode, not only in report.md.
  CHECK(r.out.find("recommended samples per side for 90% power at a 5% slowdown (alpha 0.001)") != std::string::npos);
  for (const auto& mode : kModes) CHECK(r.out.find("\n  " + mode + ": ") != std::string::npos);

  const auto j = read_json(s.path("cal/calibration.json"));
  CHECK(j["schema_version"] == 1);
  CHECK(j["instances"] == 2);
  CHECK(j["runs_per_mode"] == 3);
  REQUIRE(j["modes"].size() == kModes.size());
  const std::map<std::string, std::size_t> workers_per_run = {
      {"sequential", 1}, {"interleave", 1}, {"process", 8}, {"process-sample", 16}, {"ab", 16}};
  for (std::size_t m = 0; m < kModes.size(); ++m) {
    const auto& mode = j["modes"][m];
    const bool ab = kModes[m] == "ab";
    CAPTURE(kModes[m]);
    CHECK(mode["mode"] == kModes[m]);
    CHECK(mode["skipped_comparisons"] == 0);
    // C(3,2) pairs x 2 instances across runs; 3 runs x 2 instances within ab runs: both 6.
    REQUIRE(mode["fpr"].size() == 3);
    for (const auto& cell : mode["fpr"]) {
      CHECK(cell["trials"] == 6);
      CHECK(cell["rate"].get<double>() == doctest::Approx(cell["hits"].get<double>() / 6));
      CHECK(cell["expected_hits"].get<double>() == doctest::Approx(cell["alpha"].get<double>() * 6));
      CHECK(cell["ci95"][0].get<double>() <= cell["rate"].get<double>());
      CHECK(cell["rate"].get<double>() <= cell["ci95"][1].get<double>());
    }
    CHECK(mode["fpr"][0]["alpha"] == 0.001);
    CHECK(mode["fpr"][2]["alpha"] == 0.05);
    // How many A/A pairs a mode flags depends on the machine; which ones it flags does not: every
    // pair of runs (ab: the two sides of each run) per instance, recounted from the run
    // directories through compare, at each alpha.
    std::vector<double> p_values;
    const std::string mode_dir = s.path("cal/" + kModes[m]);
    for (int instance = 0; instance < 2; ++instance)
      for (int i = 0; i < 3; ++i) {
        const std::string run_i = mode_dir + "/run-" + std::to_string(i);
        if (ab) p_values.push_back(compare_p(s, values_of(run_i, instance, 0), values_of(run_i, instance, 1)));
        for (int k = i + 1; k < 3 && !ab; ++k)
          p_values.push_back(compare_p(s, values_of(run_i, instance, 0),
                                       values_of(mode_dir + "/run-" + std::to_string(k), instance, 0)));
      }
    REQUIRE(p_values.size() == 6);
    for (const auto& cell : mode["fpr"]) {
      const double alpha = cell["alpha"];
      CHECK_MESSAGE(cell["hits"] == std::count_if(p_values.begin(), p_values.end(), [&](double p) { return p < alpha; }),
                    "alpha " << alpha);
    }
    REQUIRE(mode["fpr_by_family"].size() == 1);
    CHECK(mode["fpr_by_family"][0]["family"] == "cpu");
    // One family: its row counts the same comparisons as the mode's.
    CHECK(mode["fpr_by_family"][0]["by_alpha"] == mode["fpr"]);
    REQUIRE(mode["scaled_power"].size() == 5);
    CHECK(mode["scaled_power"][4]["delta"] == 0.1);
    CHECK(mode["scaled_power"][4]["by_alpha"][0]["trials"] == 12);  // both orientations
    if (ab) {
      CHECK(mode["real_power"].is_null());
    } else {
      REQUIRE(mode["real_power"].size() == 1);
      const auto& at05 = mode["real_power"][0]["by_alpha"][2];
      CHECK(at05["trials"] == 18);  // 3 slowed x 3 baseline runs x 2 instances
      // A real 10% slowdown separates 8 minima from 8 (p = 2/12870 < 0.05) in most pairs.
      CHECK_MESSAGE(at05["hits"].get<int>() >= 9, mode["real_power"].dump());
    }
    CHECK(mode["sample_size"]["instances"].size() == 2);
    CHECK(mode["sample_size"]["power_curve"].size() > 3);
    CHECK(mode["cost"]["runs"] == 3);
    CHECK(mode["cost"]["samples"] == (ab ? 96 : 48));
    CHECK(mode["cost"]["workers_started"] == 3 * workers_per_run.at(kModes[m]));
    CHECK(mode["cost"]["wall_seconds"].get<double>() > 0);

    // The run directories: complete, with the mode's isolation and the slowdown where asked.
    for (int k = 0; k < 3; ++k) {
      const std::string dir = s.path("cal/" + kModes[m] + "/run-" + std::to_string(k));
      CHECK(read_json(dir + "/run.json")["status"] == "complete");
      const auto plan = read_json(dir + "/plan.json");
      CHECK(plan["schedule"]["sides"] == (ab ? 2 : 1));
      CHECK(plan["instances"][0]["slowdown_pct"] == 0.0);
      if (kModes[m] == "process-sample") CHECK(plan["schedule"]["per"] == "sample");
      const std::string slow = s.path("cal/" + kModes[m] + "/slowdown-10/run-" + std::to_string(k));
      CHECK(fs::exists(slow) == !ab);
      if (!ab) CHECK(read_json(slow + "/plan.json")["instances"][0]["slowdown_pct"] == 10.0);
    }
    CHECK(read_json(s.path("cal/" + kModes[m] + "/run-0/plan.json"))["schedule"]["isolation"] ==
          (kModes[m] == "sequential" || kModes[m] == "interleave" ? kModes[m] : "process"));
  }

  const auto report = slurp(s.path("cal/report.md"));
  CHECK(report.find("## False-positive rate (A/A)") != std::string::npos);
  CHECK(report.find("## Cost") != std::string::npos);
  CHECK(report.find("## Reading") != std::string::npos);
  for (const auto& m : kModes) CHECK(report.find("| " + m + " | 6 |") != std::string::npos);

  const std::map<std::string, std::vector<std::string>> labels = {
      {"fpr.svg", {"False-positive rate", "false-positive rate (% of A/A comparisons)", "isolation mode", "legend"}},
      {"power_delta.svg", {"Power to detect a slowdown", "slowdown delta (%", "slowdowns detected (%", "legend"}},
      {"power_n.svg", {"Power vs samples per side", "samples per side n", "slowdowns detected (%", "legend"}}};
  for (const auto& [file, texts] : labels) {
    CAPTURE(file);
    const auto svg = slurp(s.path("cal/" + file));
    CHECK(svg.rfind("<?xml", 0) == 0);
    CHECK(svg.find("<svg xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos);
    CHECK(well_formed(svg));
    for (const auto& t : texts) CHECK_MESSAGE(svg.find(t) != std::string::npos, t);
    for (const auto& m : kModes) CHECK(svg.find(m) != std::string::npos);
  }
}

TEST_CASE("calibrate resumes: complete runs are skipped, an incomplete one is finished") {
  Scratch s("calibrate-resume");
  const std::string args = "--runs 2 --modes interleave,ab --out " + s.path("cal");
  auto r = calibrate(s, args);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto before = run_logs(s.path("cal"));
  REQUIRE(before.size() == 4);

  // The same command again: nothing runs, no worker starts, the analysis is written again.
  fs::remove(s.path("cal/report.md"));
  r = calibrate(s, args);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("4 runs, 4 already complete, 0 to run") != std::string::npos);
  CHECK(run_logs(s.path("cal")) == before);
  CHECK(fs::exists(s.path("cal/report.md")));

  // An interrupted run (journal cut after 3 samples) is resumed, not restarted; the others stay.
  const std::string cut = s.path("cal/interleave/run-1");
  {
    std::ifstream in(cut + "/samples.jsonl");
    std::string line, kept;
    for (int i = 0; i < 3 && std::getline(in, line); ++i) kept += line + "\n";
    in.close();
    std::ofstream(cut + "/samples.jsonl", std::ios::trunc) << kept;
    auto info = read_json(cut + "/run.json");
    info["status"] = "interrupted";
    std::ofstream(cut + "/run.json", std::ios::trunc) << info.dump(2);
  }
  r = run(bin("orchestrate") + " calibrate --resume " + s.path("cal"), s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("4 runs, 3 already complete, 1 to run") != std::string::npos);
  CHECK(read_json(cut + "/run.json")["status"] == "complete");
  CHECK(read_json(cut + "/run.json")["resumed"].size() == 1);
  CHECK(read_jsonl(cut + "/samples.jsonl").size() == 16);
  const auto after = run_logs(s.path("cal"));
  for (const auto& [path, text] : before)
    if (path.find("interleave/run-1") == std::string::npos) CHECK(after.at(path) == text);
  CHECK(read_json(s.path("cal/calibration.json"))["modes"][0]["fpr"][0]["trials"] == 2);
}

TEST_CASE("calibrate: workers that fail before their first sample stop it at the first run, said once") {
  // /bin/false is an executable, so it passes as a worker build, and exits 1 at once in every run:
  // what --resume would retry is what failed, so no retry is advised and no later run is started.
  Scratch s("calibrate-false-worker");
  const auto r = calibrate(s, "--runs 2 --modes sequential,process --worker /bin/false --out " + s.path("cal"));
  CHECK(r.exit_code == 3);
  std::vector<std::string> causes;
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);)
    if (line.find("exit code 1") != std::string::npos) causes.push_back(line);
  REQUIRE_MESSAGE(causes.size() == 1, r.err);
  CHECK(causes[0].find("failed before their first sample") != std::string::npos);
  CHECK(causes[0].find("sequential/run-0") != std::string::npos);
  CHECK(causes[0].find(s.path("cal/sequential/run-0/log.txt")) != std::string::npos);
  CHECK_MESSAGE(r.err.find("--resume") == std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("[1/4]") == std::string::npos, r.err);  // no progress line per failed run
  // The first run stopped it: the other three were never started.
  CHECK(fs::exists(s.path("cal/sequential/run-0/run.json")));
  CHECK(!fs::exists(s.path("cal/sequential/run-1")));
  CHECK(!fs::exists(s.path("cal/process")));
  CHECK(!fs::exists(s.path("cal/calibration.json")));
}

TEST_CASE("calibrate --resume measures with the build and settings it was started with; others are refused") {
  Scratch s("calibrate-resume-worker");
  // A build of its own path, so that the journal tells it from the default isobench-worker.
  const std::string mine = s.path("my-worker");
  fs::copy_file(bin("isobench-worker"), mine);
  fs::permissions(mine, fs::perms::owner_all, fs::perm_options::add);
  auto r = calibrate(s, "--quiet --runs 2 --modes sequential --worker " + mine + " --out " + s.path("cal"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // The calibration as Ctrl-C during its first run leaves it: the second run not started.
  const std::string second = s.path("cal/sequential/run-1");
  fs::remove_all(second);
  const std::string resume = bin("orchestrate") + " calibrate --quiet --resume " + s.path("cal") + " ";

  // Another build, or a setting a sample is measured by, named: one line naming both, nothing run.
  r = run(resume + "--worker " + bin("isobench-worker"), s);
  CHECK(bad_input_problem(r, {"--worker " + bin("isobench-worker"), mine}, second) == "");
  r = run(resume + "--samples 9", s);
  CHECK(bad_input_problem(r, {"--samples 9", "the sweep's samples"}, second) == "");
  r = run(resume + "--device cuda", s);
  CHECK(bad_input_problem(r, {"--device cuda", "--device cpu"}, second) == "");
  // An option that would plan other runs is not taken rather than ignored.
  r = run(resume + "--runs 3", s);
  CHECK(bad_input_problem(r, {"--runs is not taken"}, second) == "");
  // The same build named, or none: the run is measured with it.
  r = run(resume + "--device cpu --worker " + mine, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto workers = read_jsonl(second + "/samples.jsonl", "worker");
  REQUIRE(!workers.empty());
  for (const auto& w : workers) CHECK_MESSAGE(w.value("executable", "") == mine, w.dump());

  // The recorded build gone: refused naming it before anything runs.
  fs::remove_all(second);
  fs::remove(mine);
  r = run(resume, s);
  CHECK(bad_input_problem(r, {"the calibration's worker build", mine}, second) == "");

  // A calibration started without --worker records the default build by its path.
  r = calibrate(s, "--quiet --runs 2 --modes sequential --out " + s.path("default"));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(fs::equivalent(read_json(s.path("default/experiment.json"))["measurement"]["worker"].get<std::string>(),
                       bin("isobench-worker")));
}

TEST_CASE("calibrate measures in the environment it began in, and a calibration over it only grows") {
  Scratch s("calibrate-environment");
  const std::string unset = "env -u CUBLAS_WORKSPACE_CONFIG ", other = "env CUBLAS_WORKSPACE_CONFIG=:4096:8 ";
  auto r = calibrate(s, "--quiet --runs 2 --modes sequential --out " + s.path("cal"), unset);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  // Recorded as a run's plan.json records it: the names looked at, and those set.
  const auto recorded = read_json(s.path("cal/experiment.json"))["environment_variables"];
  const auto considered = recorded["considered"].get<std::vector<std::string>>();
  CHECK(std::count(considered.begin(), considered.end(), "CUBLAS_*") == 1);
  CHECK(!recorded["values"].contains("CUBLAS_WORKSPACE_CONFIG"));
  // The calibration as Ctrl-C during its first run leaves it: the second run not started.
  const std::string second = s.path("cal/sequential/run-1");
  fs::remove_all(second);
  const std::string experiment = slurp(s.path("cal/experiment.json"));

  // A variable that decides what a sample measures, set otherwise: refused in one line naming it
  // and both values, by --resume and by --out over it, nothing run.
  const std::string resume = bin("orchestrate") + " calibrate --quiet --resume " + s.path("cal");
  r = run(other + resume, s);
  CHECK(bad_input_problem(r,
                          {"--resume " + s.path("cal") +
                           ": CUBLAS_WORKSPACE_CONFIG=:4096:8 here, the calibration was "
                           "started without it; a resumed calibration measures in the environment it began with"},
                          second) == "");
  r = calibrate(s, "--quiet --runs 2 --modes sequential --out " + s.path("cal"), other);
  CHECK(bad_input_problem(r,
                          {s.path("cal") + " holds a calibration measured in another environment: "
                                           "CUBLAS_WORKSPACE_CONFIG=:4096:8 here"},
                          second) == "");
  // Fewer modes (or runs) than it holds would leave its runs out of its analysis and resumes.
  r = calibrate(s, "--quiet --runs 2 --modes process --out " + s.path("cal"), unset);
  CHECK(bad_input_problem(r,
                          {s.path("cal") + " holds a calibration of --modes sequential (this one: --modes process): "
                                           "a calibration only grows"},
                          second) == "");
  CHECK(!fs::exists(s.path("cal/process")));
  CHECK(slurp(s.path("cal/experiment.json")) == experiment);
  // In its own environment it is finished.
  r = run(unset + resume, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(read_json(second + "/run.json")["status"] == "complete");
}

TEST_CASE("calibrate --out over a calibration: analysis settings given are taken and said, left out kept") {
  Scratch s("calibrate-analysis-over");
  const std::string args = "--quiet --runs 2 --modes sequential --out " + s.path("cal");
  auto r = calibrate(s, args + " --target-power 80 --worker-timeout 60");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto experiment = [&] { return read_json(s.path("cal/experiment.json")); };
  CHECK(experiment()["analysis"]["target_power"] == 0.8);
  // The same sweep again without them (to add runs, say): what the calibration chose stays, not
  // the defaults, and nothing is said.
  r = calibrate(s, args);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(experiment()["analysis"]["target_power"] == 0.8);
  CHECK(experiment()["worker_timeout_s"] == 60.0);
  CHECK_MESSAGE(r.err.find("analysed again") == std::string::npos, r.err);
  // Given otherwise: its runs are read again with them, and stderr says which changed.
  const std::string journal = slurp(s.path("cal/sequential/run-0/samples.jsonl"));
  r = calibrate(s, args + " --target-power 70 --target-delta 10");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(experiment()["analysis"]["target_power"] == 0.7);
  CHECK(experiment()["analysis"]["target_delta"] == 0.1);
  CHECK_MESSAGE(
      r.err.find(s.path("cal") + " is analysed again with --target-power 70 (was 80), --target-delta 10 (was 5)") !=
          std::string::npos,
      r.err);
  CHECK(slurp(s.path("cal/sequential/run-0/samples.jsonl")) == journal);
  // --prestart decides how samples are taken: another is refused, as a measurement setting is.
  const std::string before = slurp(s.path("cal/experiment.json"));
  r = calibrate(s, args + " --prestart 1");
  CHECK(bad_input_problem(r,
                          {s.path("cal") + " holds a calibration measured with the default pre-start (this one: "
                                           "--prestart 1)"},
                          s.path("none")) == "");
  CHECK(slurp(s.path("cal/experiment.json")) == before);
}

TEST_CASE("calibrate: bad input exits 2 with one line and leaves no directory") {
  Scratch s("calibrate-bad");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--modes sequential,fastest", "unknown mode 'fastest'"},
      {"--runs 1", "--runs must be at least 2"},
      {"--real-slowdown 0", "--real-slowdown must be a positive"},
      {"--modes process,process", "given twice"},
      {"--target-power 100", "--target-power"},
      {"--samples 1", "--samples"},
      {"--samples 4", "with 4 samples per side no instance can be SLOWER or FASTER at alpha 0.001"},
  };
  for (const auto& [args, message] : cases) {
    CAPTURE(args);
    const auto r = calibrate(s, args + " --out " + s.path("bad"));
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.err.find(message) != std::string::npos, r.err);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(!fs::exists(s.path("bad")));
  }
  auto r = run(bin("orchestrate") + " calibrate --resume " + s.path("nowhere"), s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("not a calibration directory") != std::string::npos);
  r = run(bin("orchestrate") + " calibrate --device cpu", s);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("give a sweep file") != std::string::npos);
  const auto broken = s.write("broken.yaml", "benchmarks:\n  - kernel: no_such_kernel\n");
  r = run(bin("orchestrate") + " calibrate --device cpu --out " + s.path("bad") + " " + broken, s);
  CHECK(r.exit_code == 2);
  CHECK(!fs::exists(s.path("bad")));

  // An existing calibration directory measured with other settings is not mixed with new runs.
  REQUIRE(calibrate(s, "--runs 2 --modes sequential --out " + s.path("cal")).exit_code == 0);
  r = calibrate(s, "--runs 2 --modes sequential --samples 9 --out " + s.path("cal"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("other measurement settings") != std::string::npos);
}

TEST_CASE("calibrate --variants: a row per mode and variant, run directories per variant, resumable") {
  Scratch s("calibrate-variants");
  const std::string args = "--runs 2 --modes sequential --variants baseline,idle_gap_ms=5 --out " + s.path("cal");
  auto r = calibrate(s, args);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("4 runs, 0 already complete, 4 to run") != std::string::npos);
  // The variants take turns run by run.
  CHECK(r.err.find("[1/4] sequential/run-0") != std::string::npos);
  CHECK(r.err.find("[2/4] sequential/idle_gap_ms=5/run-0") != std::string::npos);

  const auto j = read_json(s.path("cal/calibration.json"));
  CHECK(j["variants"] == nlohmann::json({"baseline", "idle_gap_ms=5"}));
  REQUIRE(j["modes"].size() == 2);
  CHECK(j["modes"][0]["mode"] == "sequential");
  CHECK(j["modes"][0]["variant"] == "baseline");
  CHECK(j["modes"][1]["mode"] == "sequential");
  CHECK(j["modes"][1]["variant"] == "idle_gap_ms=5");
  for (const auto& row : j["modes"]) {
    CHECK(row["fpr"][0]["trials"] == 2);  // C(2,2) pairs x 2 instances
    CHECK(row["cost"]["runs"] == 2);
  }
  // The baseline keeps the layout of a calibration without variants; a variant adds its folder.
  for (int k = 0; k < 2; ++k) {
    const auto base = read_json(s.path("cal/sequential/run-" + std::to_string(k) + "/plan.json"));
    const auto gap = read_json(s.path("cal/sequential/idle_gap_ms=5/run-" + std::to_string(k) + "/plan.json"));
    CHECK(base["instances"][0]["idle_gap_ms"] == 0.0);
    CHECK(gap["instances"][0]["idle_gap_ms"] == 5.0);
  }
  // The pause comes before every sample: 2 runs x 2 instances x 8 samples x 5 ms at least.
  CHECK(j["modes"][1]["cost"]["wall_seconds"].get<double>() >= 2 * 2 * 8 * 0.005);

  const auto report = slurp(s.path("cal/report.md"));
  CHECK(report.find("| mode | variant | comparisons |") != std::string::npos);
  CHECK(report.find("| sequential | baseline | 2 |") != std::string::npos);
  CHECK(report.find("| sequential | idle_gap_ms=5 | 2 |") != std::string::npos);
  CHECK(report.find("Variants of `sequential`") != std::string::npos);
  CHECK(r.out.find("| sequential | idle_gap_ms=5 | 2 |") != std::string::npos);
  const auto svg = slurp(s.path("cal/fpr.svg"));
  CHECK(well_formed(svg));
  CHECK(svg.find("sequential/idle_gap_ms=5") != std::string::npos);

  // --resume reads the variants back: nothing left to run.
  r = run(bin("orchestrate") + " calibrate --resume " + s.path("cal"), s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.err.find("4 runs, 4 already complete, 0 to run") != std::string::npos);
  CHECK(read_json(s.path("cal/calibration.json"))["modes"].size() == 2);

  // Bad variant text: one line, exit 2, nothing created.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--variants baseline,idle_gap", "--variants: idle_gap: unknown measure 'idle_gap'"},
      {"--variants rotate_buffers=0", "rotate_buffers must be an integer >= 1"},
      {"--variants idle_gap_ms=-5", "idle_gap_ms must be a number from 0 to 60000"},
      {"--variants idle_gap_ms", "idle_gap_ms needs a value"},
      {"--variants realloc,realloc=true", "given twice"},
  };
  for (const auto& [variant_args, message] : bad) {
    CAPTURE(variant_args);
    r = calibrate(s, variant_args + " --runs 2 --modes sequential --out " + s.path("bad"));
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.err.find(message) != std::string::npos, r.err);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(!fs::exists(s.path("bad")));
  }
}

TEST_CASE("calibrate: paths in the sweep are relative to its folder, as in a plain run") {
  // A command benchmark whose program is named relative to the sweep's folder: the runs read the
  // sweep the user gave (its text unchanged), not the copy in the calibration directory.
  Scratch s("calibrate-relative");
  std::filesystem::create_directories(s.path("suite"));
  s.write("suite/spin.sh", "#!/bin/sh\necho \"{\\\"isobench\\\": 1, \\\"value\\\": 0.00$$}\"\n");  // a value per process
  std::filesystem::permissions(s.path("suite/spin.sh"), std::filesystem::perms::owner_all);
  s.write("suite/sweep.yaml", "name: relative\nsettings: {samples: 8, warmup: 1}\n"
                              "benchmarks:\n  - command: [./spin.sh]\n    name: spin_sh\n");
  const auto r = run(bin("orchestrate") + " calibrate --device cpu --quiet --runs 2 --modes process --power-repetitions 20 "
                     "--max-n 16 --out " + s.path("cal") + " " + s.path("suite/sweep.yaml"), s);
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(std::filesystem::exists(s.path("cal/calibration.json")));
}
