#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "orchestrator/compare/compare_inputs.hpp"
#include "orchestrator/commands/import_command.hpp"
#include "orchestrator/import/tool_readers.hpp"
#include "orchestrator/sample_journal.hpp"
#include "tests/orchestrator/temp_dir.hpp"

using namespace isobench::orchestrator;
using isobench::testing::TempDir;
using nlohmann::json;

namespace {

std::string data(const std::string& name) {
  const char* root = std::getenv("ISOBENCH_SOURCE_DIR");
  return std::string(root ? root : ".") + "/tests/data/import/" + name;
}

json load(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// Imports `file` into a fresh folder of `tmp`; returns the exit code, with stderr in `err`.
int import_file(const TempDir& tmp, const std::string& file, const std::string& out, std::string& err) {
  std::ostringstream o, e;
  const int rc = run_import({file, tmp / out, "auto", {"orchestrate", "import"}}, o, e);
  err = e.str();
  return rc;
}

}  // namespace

TEST_SUITE("import") {
  TEST_CASE("Google Benchmark with repetitions: each repetition a sample, read back by compare's reader") {
    TempDir tmp("import");
    std::string err;
    REQUIRE(import_file(tmp, data("google_benchmark.json"), "gb", err) == 0);
    std::ostringstream warnings;
    const Run run = read_run(tmp / "gb", warnings);
    CHECK(run.order == std::vector<std::string>{"BM_copy/4096", "BM_copy/1048576", "BM_sum"});
    const json file = load(data("google_benchmark.json"));
    std::vector<double> expected;
    for (const auto& b : file["benchmarks"])
      if (b["run_name"] == "BM_sum" && b["run_type"] == "iteration") expected.push_back(b["real_time"].get<double>() * 1e-9);
    REQUIRE(expected.size() == 5);
    REQUIRE(run.samples.at("BM_sum").size() == 5);
    for (std::size_t i = 0; i < 5; ++i) CHECK(run.samples.at("BM_sum")[i] == doctest::Approx(expected[i]).epsilon(1e-12));
    CHECK(run.plan.at("BM_copy/4096")["kernel"] == "BM_copy");
    CHECK(run.plan.at("BM_copy/4096")["imported_values"] == "samples");
    const auto journal = read_journal(tmp / "gb/samples.jsonl");
    CHECK(journal.samples.size() == 15);
    CHECK(journal.samples.front().values.flags == 0);
    const json info = load(tmp / "gb/run.json");
    CHECK(info["source"] == "google-benchmark");
    CHECK(info["started"].get<std::string>().size() == 24);
  }

  TEST_CASE("summary-only files give one value per instance, flagged summary") {
    TempDir tmp("import");
    std::string err;
    REQUIRE(import_file(tmp, data("google_benchmark_aggregates.json"), "agg", err) == 0);
    const auto agg = read_journal(tmp / "agg/samples.jsonl");
    REQUIRE(agg.samples.size() == 3);
    CHECK(agg.samples.front().values.flags == isobench::ipc::flag_summary);
    const json file = load(data("google_benchmark_aggregates.json"));
    for (const auto& b : file["benchmarks"])
      if (b["name"] == "BM_sum_median") CHECK(agg.samples.back().values.value_s == doctest::Approx(b["real_time"].get<double>() * 1e-9));
    REQUIRE(import_file(tmp, data("pytest_benchmark_summary.json"), "pys", err) == 0);
    const auto pys = read_journal(tmp / "pys/samples.jsonl");
    REQUIRE(pys.samples.size() == 3);
    CHECK(pys.samples.front().values.flags == isobench::ipc::flag_summary);
    CHECK(pys.samples.front().values.value_s == doctest::Approx(load(data("pytest_benchmark_summary.json"))["benchmarks"][0]["stats"]["median"].get<double>()));
    CHECK(load(tmp / "pys/plan.json")["instances"][0]["imported_values"] == "summary");
  }

  TEST_CASE("pytest-benchmark with --benchmark-save-data: each round a sample") {
    TempDir tmp("import");
    std::string err;
    REQUIRE(import_file(tmp, data("pytest_benchmark.json"), "py", err) == 0);
    std::ostringstream warnings;
    const Run run = read_run(tmp / "py", warnings);
    const json file = load(data("pytest_benchmark.json"));
    const std::string id = file["benchmarks"][0]["fullname"];
    CHECK(run.samples.at(id) == file["benchmarks"][0]["stats"]["data"].get<std::vector<double>>());
    CHECK(run.plan.at(id)["params"] == file["benchmarks"][0]["params"]);
    CHECK(load(tmp / "py/environment.json")["host"]["hostname"] == file["machine_info"]["node"]);
  }

  TEST_CASE("nvbench: sample times from the --jsonbin file, the mean where there is none") {
    TempDir tmp("import");
    std::string err;
    REQUIRE(import_file(tmp, data("nvbench.json"), "nv", err) == 0);
    std::ostringstream warnings;
    const Run run = read_run(tmp / "nv", warnings);
    CHECK(run.order == std::vector<std::string>{"copy[Elements=1048576]", "copy[Elements=16777216]"});
    CHECK(run.samples.at("copy[Elements=1048576]").size() == 40);
    CHECK(run.samples.at("copy[Elements=16777216]").size() == 1);
    CHECK(load(tmp / "nv/environment.json")["gpu"]["gpus"][0]["name"] == "NVIDIA H200");
  }

  TEST_CASE("malformed files: one line naming the file and the field, exit 2, nothing written") {
    TempDir tmp("import");
    json gb = load(data("google_benchmark.json"));
    json py = load(data("pytest_benchmark.json"));
    json nv = load(data("nvbench.json"));
    struct Case {
      std::string name, expected;
      json doc;
    };
    std::vector<Case> cases;
    auto with = [](json doc, auto&& change) { change(doc); return doc; };
    cases.push_back({"gb_time", "benchmarks[2].real_time: not a number", with(gb, [](json& d) { d["benchmarks"][2]["real_time"] = "fast"; })});
    cases.push_back({"gb_negative", "benchmarks[0].real_time: a time must be finite and positive", with(gb, [](json& d) { d["benchmarks"][0]["real_time"] = -1; })});
    cases.push_back({"gb_unit", "benchmarks[1].time_unit: not ns, us, ms or s", with(gb, [](json& d) { d["benchmarks"][1]["time_unit"] = "fortnight"; })});
    cases.push_back({"gb_date", "context.date: missing", with(gb, [](json& d) { d["context"].erase("date"); })});
    cases.push_back({"py_round", "benchmarks[1].stats.data[3]: not a positive time", with(py, [](json& d) { d["benchmarks"][1]["stats"]["data"][3] = 0; })});
    cases.push_back({"py_stats", "benchmarks[0].stats: missing", with(py, [](json& d) { d["benchmarks"][0].erase("stats"); })});
    cases.push_back({"nv_size", "summaries[2].data.size: ", with(nv, [](json& d) { d["benchmarks"][0]["states"][0]["summaries"][2]["data"][1]["value"] = "41"; })});
    cases.push_back({"nv_mean", "states[1].summaries[1].data[0].value: not a number", with(nv, [](json& d) { d["benchmarks"][0]["states"][1]["summaries"][1]["data"][0]["value"] = "x"; })});
    for (const auto& c : cases) {
      CAPTURE(c.name);
      // Beside the real file, so nvbench's relative --jsonbin path still resolves.
      const std::string file = c.name.rfind("nv", 0) == 0 ? data("broken-" + c.name + ".json") : (tmp / (c.name + ".json"));
      { std::ofstream(file) << c.doc.dump(); }
      std::string err;
      const int rc = import_file(tmp, file, c.name, err);
      if (c.name.rfind("nv", 0) == 0) std::filesystem::remove(file);
      CHECK(rc == 2);
      CHECK(err.find(file + ": ") != std::string::npos);
      CHECK(err.find(c.expected) != std::string::npos);
      CHECK(std::count(err.begin(), err.end(), '\n') == 1);
      CHECK(!std::filesystem::exists(tmp / c.name));
    }
    std::string err;
    CHECK(import_file(tmp, tmp.write("bad.json", "{\"benchmarks\": [").string(), "bad", err) == 2);
    CHECK(err.find("invalid JSON") != std::string::npos);
    CHECK(import_file(tmp, tmp.write("other.json", "{\"results\": []}").string(), "other", err) == 2);
    CHECK(err.find("not Google Benchmark, nvbench or pytest-benchmark JSON") != std::string::npos);
  }
}
