#include "orchestrator/history/history_store.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "orchestrator/commands/history_command.hpp"

#include "orchestrator/history/history_schema.hpp"
#include "orchestrator/history/series_changes.hpp"
#include "tests/orchestrator/temp_dir.hpp"

using namespace isobench::orchestrator::history;
using isobench::testing::TempDir;

namespace {

RunEntry entry(const std::string& uid, const std::string& started, std::vector<double> samples,
               const std::string& machine = "CPU X on host") {
  RunEntry e;
  e.uid = uid;
  e.content_sha256 = "c-" + uid + "-" + std::to_string(samples.size());
  e.dir = "/runs/" + uid;
  e.label = "label-" + uid;
  e.started = started;
  e.status = "complete";
  e.source = "isobench";
  e.environment = "{}";
  e.machine.key = machine;
  e.series.push_back({"k[n=1]", 0, R"({"id":"k[n=1]"})", samples});
  e.series.push_back({"k[n=2]", 0, R"({"id":"k[n=2]"})", {2.0, 2.5, 3.0}});
  return e;
}

}  // namespace

TEST_SUITE("history_store") {
  TEST_CASE("runs are added once, listed, and their series read back with every sample") {
    TempDir tmp("history");
    const std::string file = tmp / "sub/dir/history.sqlite";
    {
      HistoryStore store(file, Access::add);  // creates the folders too
      const auto outcomes = store.add({entry("a", "2026-12-01T02:00:00.000Z", {1.0, 3.0, 2.0}),
                                       entry("b", "2026-11-30T02:00:00.000Z", {4.0, 5.0})});
      CHECK(outcomes == std::vector<AddOutcome>{AddOutcome::added, AddOutcome::added});
      CHECK(store.add({entry("a", "2026-12-01T02:00:00.000Z", {1.0, 3.0, 2.0})}) ==
            std::vector<AddOutcome>{AddOutcome::unchanged});
    }
    HistoryStore store(file, Access::read);
    const auto runs = store.runs();
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].dir == "/runs/b");  // oldest first
    CHECK(runs[0].instances == 2);
    CHECK(runs[0].samples == 5);
    CHECK(runs[1].label == "label-a");
    const auto series = store.series("k[n=1]", /*with_samples=*/true);
    REQUIRE(series.size() == 1);
    REQUIRE(series[0].points.size() == 2);
    CHECK(series[0].points[0].median == 4.5);
    CHECK(series[0].points[1].samples == std::vector<double>{1.0, 3.0, 2.0});  // journal order
    CHECK(series[0].points[1].median == 2.0);
    CHECK(store.series("", false).size() == 2);
    CHECK(store.series("nothing", false).empty());
  }

  TEST_CASE("a run with new samples since it was added replaces its old ones") {
    TempDir tmp("history");
    HistoryStore store(tmp / "h.sqlite", Access::add);
    store.add({entry("a", "2026-12-01T02:00:00.000Z", {1.0, 2.0})});
    CHECK(store.add({entry("a", "2026-12-01T02:00:00.000Z", {1.0, 2.0, 3.0})}) ==
          std::vector<AddOutcome>{AddOutcome::updated});
    const auto runs = store.runs();
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].samples == 6);
  }

  TEST_CASE("one bad run in an add stores none of them") {
    TempDir tmp("history");
    HistoryStore store(tmp / "h.sqlite", Access::add);
    RunEntry bad = entry("bad", "2026-12-02T02:00:00.000Z", {1.0});
    bad.series.push_back(bad.series.front());  // the same instance and side twice: refused by the schema
    CHECK_THROWS_AS(store.add({entry("good", "2026-12-01T02:00:00.000Z", {1.0}), bad}), SqliteError);
    CHECK(store.runs().empty());
  }

  TEST_CASE("machines keep their series apart") {
    TempDir tmp("history");
    HistoryStore store(tmp / "h.sqlite", Access::add);
    store.add({entry("a", "2026-12-01T02:00:00.000Z", {1.0}, "NVIDIA H200 GPU-1, driver 570, CUDA 12.8"),
               entry("b", "2026-12-02T02:00:00.000Z", {1.0}, "NVIDIA H200 GPU-2, driver 570, CUDA 12.8")});
    CHECK(store.series("k[n=1]", false).size() == 2);
  }

  TEST_CASE("a file of schema version 1 is migrated: medians computed from the stored samples") {
    TempDir tmp("history");
    const std::string file = tmp / "v1.sqlite";
    {
      Database db(file, OpenMode::create);
      db.exec(schema_sql(1));
      db.exec(R"sql(
        INSERT INTO machines VALUES (1, 'CPU X on host', '', '', '', '', 'CPU X', 'host');
        INSERT INTO runs VALUES (1, 'u1', 'c1', '/runs/old', 'v1', '2026-11-01T02:00:00.000Z', 'complete', 1,
                                 'isobench', 1, '2026-11-01T03:00:00.000Z', '{}');
        INSERT INTO series VALUES (1, 1, 'k[n=1]', 0, '{}');
        INSERT INTO samples VALUES (1, 0, 3.0), (1, 1, 1.0), (1, 2, 2.0), (1, 3, 10.0);
        PRAGMA user_version = 1;)sql");
    }
    HistoryStore store(file, Access::add);
    {
      Database db(file, OpenMode::write);
      CHECK(schema_version(db) == kHistorySchemaVersion);
    }
    const auto series = store.series("k[n=1]", true);
    REQUIRE(series.size() == 1);
    CHECK(series[0].points[0].median == 2.5);
    CHECK(series[0].points[0].samples.size() == 4);
    store.add({entry("new", "2026-12-01T02:00:00.000Z", {5.0})});
    CHECK(store.runs().size() == 2);
  }

  TEST_CASE("runs measured with other inner counts or sample-changing settings are series of their own") {
    TempDir tmp("history");
    HistoryStore store(tmp / "h.sqlite", Access::add);
    auto with_plan = [](RunEntry e, const std::string& plan) {
      e.series[0].plan = plan;
      return e;
    };
    const std::string inner2 = R"({"id":"k[n=1]","inner":2,"timer":"graph"})";
    store.add({with_plan(entry("a", "2026-12-01T02:00:00.000Z", {1.0}), inner2),
               with_plan(entry("b", "2026-12-02T02:00:00.000Z", {2.0}), R"({"id":"k[n=1]","inner":4,"timer":"graph"})"),
               with_plan(entry("c", "2026-12-03T02:00:00.000Z", {1.1}), inner2),
               with_plan(entry("d", "2026-12-04T02:00:00.000Z", {1.2}), R"({"id":"k[n=1]","inner":2,"timer":"events"})")});
    const auto series = store.series("k[n=1]", false);
    REQUIRE(series.size() == 3);
    CHECK(series[0].settings == "inner 2, timer graph");
    REQUIRE(series[0].points.size() == 2);  // runs a and c: measured alike, whatever ran between them
    CHECK(series[0].points[1].dir == "/runs/c");
    CHECK(series[1].settings == "inner 4, timer graph");
    CHECK(series[2].settings == "inner 2, timer events");
  }

  TEST_CASE("reading a file with no schema yet finds no runs and writes nothing into it; another database is refused") {
    TempDir tmp("history");
    const std::string empty = tmp / "empty.sqlite";
    std::ofstream{empty};
    {
      HistoryStore store(empty, Access::read);
      CHECK(store.runs().empty());
      CHECK(store.series("", false).empty());
    }
    CHECK(std::filesystem::file_size(empty) == 0);
    const std::string foreign = tmp / "foreign.sqlite";
    Database(foreign, OpenMode::create).exec("CREATE TABLE notes (text TEXT)");
    CHECK_THROWS_WITH_AS(HistoryStore(foreign, Access::read), doctest::Contains("not an isobench history"), SqliteError);
  }

  TEST_CASE("a newer schema, a missing file and a file that is not a history are refused by name") {
    TempDir tmp("history");
    const std::string newer = tmp / "newer.sqlite";
    {
      Database db(newer, OpenMode::create);
      db.exec("PRAGMA user_version = " + std::to_string(kHistorySchemaVersion + 1));
    }
    CHECK_THROWS_WITH_AS(HistoryStore(newer, Access::read), doctest::Contains("newer than this orchestrate knows"), SqliteError);
    CHECK_THROWS_WITH_AS(HistoryStore(tmp / "missing.sqlite", Access::read), doctest::Contains("no history there"),
                         SqliteError);
    const std::string text = tmp / "text.sqlite";
    std::ofstream(text) << "this is not a database, but long enough to have a header of a hundred bytes or so: "
                           "................................................................";
    CHECK_THROWS_WITH_AS(HistoryStore(text, Access::read), doctest::Contains("text.sqlite"), SqliteError);
  }
}

TEST_SUITE("series_changes") {
  InstanceSeries nightly(double step, unsigned seed) {
    std::mt19937_64 engine(seed);
    std::normal_distribution<double> z(0, 0.005);
    InstanceSeries s{"CPU X on host", "k[n=1]", 0, {}};
    for (int i = 0; i < 30; ++i)
      s.points.push_back({i, "/runs/" + std::to_string(i), "", "2026-11-" + std::to_string(10 + i),
                          1e-3 * (i >= 16 ? 1 + step : 1) * (1 + z(engine)), {}});
    return s;
  }

  TEST_CASE("a 3% slowdown at run 17 is one SLOWER change there; a 3% speed-up FASTER; none without") {
    const auto slower = find_changes(nightly(0.03, 1), {});
    REQUIRE(slower.size() == 1);
    CHECK(slower[0].point.index == 16);
    CHECK(slower[0].verdict == isobench::stats::Verdict::slower);
    CHECK(slower[0].ratio.lo > 1.02);
    CHECK(slower[0].ratio.ratio == doctest::Approx(1.03).epsilon(0.01));
    const auto faster = find_changes(nightly(-0.03, 2), {});
    REQUIRE(faster.size() == 1);
    CHECK(faster[0].verdict == isobench::stats::Verdict::faster);
    CHECK(find_changes(nightly(0, 3), {}).empty());
  }

  TEST_CASE("history regressions --junit/--summary: the series with a SLOWER change fails, the others pass") {
    TempDir dir("history_ci");
    std::mt19937_64 engine(7);
    std::normal_distribution<double> z(0, 0.005);
    std::vector<RunEntry> runs;
    for (int i = 0; i < 30; ++i) {
      std::vector<double> samples;
      for (int k = 0; k < 5; ++k) samples.push_back(1e-3 * (i >= 16 ? 1.03 : 1) * (1 + z(engine)));
      runs.push_back(entry("r" + std::to_string(i), "2026-11-" + std::to_string(10 + i) + "T00:00:00Z", samples));
    }
    isobench::orchestrator::HistoryOptions options;
    options.history = dir / "history.sqlite";
    HistoryStore(options.history, Access::add).add(runs);
    options.ci.junit = dir / "regressions.xml";
    options.ci.summary = dir / "regressions.md";
    std::ostringstream out, err;
    REQUIRE(isobench::orchestrator::run_history_regressions(options, out, err) == 1);
    std::stringstream xml, md;
    xml << std::ifstream(options.ci.junit).rdbuf();
    md << std::ifstream(options.ci.summary).rdbuf();
    CHECK(xml.str().find("tests=\"2\" failures=\"1\"") != std::string::npos);
    CHECK(xml.str().find("<testcase name=\"k[n=1]\" classname=\"isobench.history.CPU X on host\" time=\"0\">\n"
                         "      <failure type=\"SLOWER\" message=\"SLOWER: 30 runs on CPU X on host: run 17 (") !=
          std::string::npos);
    CHECK(xml.str().find("<system-out>no change: 30 runs on CPU X on host, no change point</system-out>") !=
          std::string::npos);
    CHECK(xml.str().find("<property name=\"k[n=1].hl_ratio\" value=\"1.0") != std::string::npos);
    CHECK(md.str().find("### isobench, orchestrate history regressions: regression\n") != std::string::npos);
    CHECK(md.str().find("| `k[n=1]` | **SLOWER** | CPU X on host | 30 | run 17 (") != std::string::npos);
    CHECK(md.str().find("<details><summary>1 more instance: 1 no change</summary>") != std::string::npos);
    CHECK(md.str().find(" -> exit 1\n") != std::string::npos);
  }

  TEST_CASE("a significant change inside the noise floor is not SLOWER") {
    const auto small = find_changes(nightly(0.01, 4), {});  // 1% at 0.5% noise: found, but below 2%
    REQUIRE(small.size() == 1);
    CHECK(small[0].verdict != isobench::stats::Verdict::slower);
  }
}
