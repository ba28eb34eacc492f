// orchestrate history on a real SQLite file: runs added by two processes at once, a synthetic
// nightly series with a 3% step at run 17 of 30, a real run, and bad input.
#include <doctest/doctest.h>

#include <random>
#include <set>

#include "harness.hpp"
#include "nightly_runs.hpp"

using namespace isobench::testing;
using nlohmann::json;

namespace {

std::string orchestrate() { return bin("orchestrate"); }

}  // namespace

TEST_CASE("history: two writers at once, the step at run 17 of 30 and nowhere else, list, show, bad input") {
  Scratch s("history");
  std::mt19937_64 engine(2026);
  for (int night = 0; night < 30; ++night) write_run(s, "night" + std::to_string(night), night, engine);
  const std::string h = " --history " + s.path("h.sqlite");

  // Two writers, each adding its half one process at a time, and both adding night 0: their
  // transactions interleave on one file.
  std::string script;
  for (int w = 0; w < 2; ++w) {
    script += "(";
    for (int night = w; night < 30; night += 2)
      script += orchestrate() + " history add" + h + " --label w" + std::to_string(w) + " " +
                s.path("night" + std::to_string(night)) + " >/dev/null || echo FAILED; ";
    script += orchestrate() + " history add" + h + " " + s.path("night0") + " >/dev/null || echo FAILED) & ";
  }
  const Result writers = run("(" + script + "wait)", s);
  CHECK(writers.out.find("FAILED") == std::string::npos);
  CHECK(writers.err == "");

  const Result list = run(orchestrate() + " history list --json" + h, s);
  REQUIRE(list.exit_code == 0);
  const json runs = json::parse(list.out)["runs"];
  CHECK(runs.size() == 30);
  std::set<std::string> dirs;
  for (const auto& r : runs) {
    dirs.insert(r["dir"].get<std::string>());
    CHECK(r["samples"] == 16);
    CHECK(r["machine"] == "Test CPU on nightly-1");
  }
  CHECK(dirs.size() == 30);
  CHECK(runs[0]["started"] == "2026-11-01T02:00:00.000Z");  // oldest first

  const Result again = run(orchestrate() + " history add" + h + " " + s.path("night5"), s);
  CHECK(again.exit_code == 0);
  CHECK(again.out.find("already in the history, unchanged") != std::string::npos);

  const Result regressions = run(orchestrate() + " history regressions --json" + h, s);
  CHECK(regressions.exit_code == 1);
  const json r = json::parse(regressions.out);
  REQUIRE(r["series"].size() == 2);
  for (const auto& series : r["series"]) {
    CAPTURE(series.dump());
    CHECK(series["runs"] == 30);
    if (series["instance"] == "flat[n=1]") {
      CHECK(series["changes"].empty());
    } else {
      REQUIRE(series["changes"].size() == 1);
      const json& c = series["changes"][0];
      CHECK(c["run"] == 17);
      CHECK(c["after"]["started"] == "2026-11-17T02:00:00.000Z");
      CHECK(c["before"]["started"] == "2026-11-16T02:00:00.000Z");
      CHECK(c["verdict"] == "SLOWER");
      CHECK(c["hl_lo"].get<double>() > 1.02);
      CHECK(c["forward_change"].get<double>() == doctest::Approx(0.03).epsilon(0.3));
    }
  }
  const Result text = run(orchestrate() + " history regressions" + h, s);
  CHECK(text.exit_code == 1);
  CHECK(text.out.find("step[n=1] on Test CPU on nightly-1: run 17 (2026-11-17T02:00:00.000Z") != std::string::npos);
  CHECK(text.out.find("2 series, 1 change points, 1 SLOWER") != std::string::npos);
  // A floor above the step: the change is still listed, and is no regression.
  const Result floor = run(orchestrate() + " history regressions --threshold 0.05" + h, s);
  CHECK(floor.exit_code == 0);
  CHECK(floor.out.find("1 change points, 0 SLOWER") != std::string::npos);

  const Result show = run(orchestrate() + " history show 'step[n=1]' --json" + h, s);
  REQUIRE(show.exit_code == 0);
  const json shown = json::parse(show.out)["series"][0]["runs"];
  REQUIRE(shown.size() == 30);
  CHECK(shown[16].contains("change"));
  CHECK(shown[16]["samples"].size() == 8);
  CHECK(!shown[15].contains("change"));

  // Bad input: nothing stored, one line naming the file, exit 2.
  std::filesystem::create_directories(s.dir / "broken");
  std::filesystem::copy(s.dir / "night0/plan.json", s.dir / "broken/plan.json");
  std::filesystem::copy(s.dir / "night0/samples.jsonl", s.dir / "broken/samples.jsonl");
  write_run(s, "night30", 30, engine);
  const Result bad = run(orchestrate() + " history add" + h + " " + s.path("night30") + " " + s.path("broken"), s);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("broken: no run.json") != std::string::npos);
  CHECK(json::parse(run(orchestrate() + " history list --json" + h, s).out)["runs"].size() == 30);
  const Result unknown = run(orchestrate() + " history show 'nothing[n=1]'" + h, s);
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("no runs of instance \"nothing[n=1]\"") != std::string::npos);
  const Result missing = run(orchestrate() + " history list --history " + s.path("none.sqlite"), s);
  CHECK(missing.exit_code == 2);
  CHECK(!std::filesystem::exists(s.path("none.sqlite")));
  s.write("text.sqlite", std::string(200, 'x'));
  const Result foreign = run(orchestrate() + " history list --history " + s.path("text.sqlite"), s);
  CHECK(foreign.exit_code == 2);
  CHECK(foreign.err.find("text.sqlite") != std::string::npos);
}

TEST_CASE("history: a real run and an imported one go in, and show lists their samples") {
  Scratch s("history-real");
  s.write("tiny.yaml", "name: tiny\nsettings: {samples: 4, warmup: 1, inner: 4, isolation: process, per: batch}\n"
                       "benchmarks:\n  - kernel: cpu_copy\n    axes: {bytes: [4096]}\n");
  REQUIRE(run(orchestrate() + " --quiet --out " + s.path("run") + " " + s.path("tiny.yaml"), s).exit_code == 0);
  REQUIRE(run(orchestrate() + " import --out " + s.path("gb") + " " + source_dir() + "/tests/data/import/google_benchmark.json", s)
              .exit_code == 0);
  const std::string h = " --history " + s.path("h.sqlite");
  const Result add = run(orchestrate() + " history add --label abc123" + h + " " + s.path("run") + " " + s.path("gb"), s);
  REQUIRE(add.exit_code == 0);
  CHECK(add.out.find(": added: ") != std::string::npos);
  const Result show = run(orchestrate() + " history show 'cpu_copy[bytes=4096]' --json" + h, s);
  REQUIRE(show.exit_code == 0);
  const json points = json::parse(show.out)["series"][0]["runs"];
  REQUIRE(points.size() == 1);
  CHECK(points[0]["label"] == "abc123");
  CHECK(points[0]["samples"].size() == 4);
  const Result gb = run(orchestrate() + " history show BM_sum" + h, s);
  CHECK(gb.exit_code == 0);
  CHECK(gb.out.find("n 5") != std::string::npos);
  CHECK(run(orchestrate() + " history regressions" + h, s).exit_code == 0);
  // A malformed import: one line, exit 2, no run directory.
  s.write("broken.json", R"({"context": {"date": "2026-12-01T00:00:00+00:00"}, "benchmarks": [{"name": "x", "real_time": "slow", "time_unit": "ns", "iterations": 1}]})");
  const Result broken = run(orchestrate() + " import --out " + s.path("broken") + " " + s.path("broken.json"), s);
  CHECK(broken.exit_code == 2);
  CHECK(broken.err == "import: " + s.path("broken.json") + ": benchmarks[0].real_time: not a number: \"slow\"\n");
  CHECK(!std::filesystem::exists(s.path("broken")));
}

TEST_CASE("history: two imports of one date and host are two runs; a run still running is refused; reading writes nothing") {
  Scratch s("history-identity");
  // A baseline and a 20% slower build, imported from one day's Google Benchmark results.
  const std::string data = source_dir() + "/tests/data/import/google_benchmark.json";
  json slower = json::parse(slurp(data));
  for (auto& b : slower["benchmarks"])
    if (b.contains("real_time")) b["real_time"] = b["real_time"].get<double>() * 1.2;
  const auto slower_file = s.write("slower.json", slower.dump());
  REQUIRE(run(orchestrate() + " import --out " + s.path("base") + " " + data, s).exit_code == 0);
  REQUIRE(run(orchestrate() + " import --out " + s.path("slow") + " " + slower_file, s).exit_code == 0);
  const std::string h = " --history " + s.path("h.sqlite");
  const Result add = run(orchestrate() + " history add" + h + " " + s.path("base") + " " + s.path("slow"), s);
  REQUIRE_MESSAGE(add.exit_code == 0, add.err);
  CHECK_MESSAGE(add.out.find(": updated") == std::string::npos, add.out);
  CHECK(json::parse(run(orchestrate() + " history list --json" + h, s).out)["runs"].size() == 2);

  // A run whose orchestrator is still measuring it (run.json: running) is not stored half-measured.
  std::filesystem::copy(s.path("base"), s.path("running"), std::filesystem::copy_options::recursive);
  json info = json::parse(slurp(s.path("running/run.json")));
  info["status"] = "running";
  s.write("running/run.json", info.dump());
  const Result running = run(orchestrate() + " history add" + h + " " + s.path("running"), s);
  CHECK(running.exit_code == 2);
  CHECK_MESSAGE(running.err.starts_with("history add: " + s.path("running/run.json") + ": status \"running\": the run is "
                                        "still being measured"),
                running.err);
  CHECK(std::count(running.err.begin(), running.err.end(), '\n') == 1);
  CHECK(json::parse(run(orchestrate() + " history list --json" + h, s).out)["runs"].size() == 2);

  // A history file not written yet stays as it is when list, regressions and report read it.
  s.write("empty.sqlite", "");
  const std::string e = " --history " + s.path("empty.sqlite");
  CHECK(run(orchestrate() + " history list" + e, s).exit_code == 0);
  CHECK(run(orchestrate() + " history regressions" + e, s).exit_code == 0);
  const Result report = run(orchestrate() + " report --out " + s.path("rep") + e, s);
  CHECK_MESSAGE(report.exit_code == 0, report.err);
  CHECK(std::filesystem::file_size(s.path("empty.sqlite")) == 0);
}
