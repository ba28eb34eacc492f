// Artifacts through the real orchestrate and workers (CPU backend): per-instance folders handed
// to plugins and commands, archived with their hashes in artifacts.json, and listed by compare
// when they differ. Few samples: these check files, not timing verdicts.

#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>

#include "harness.hpp"
#include "ipc/artifact_folder.hpp"
#include "orchestrator/sha256.hpp"

using namespace isobench::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string lib(const std::string& name) { return binary_dir() + "/lib/" + name; }

const char* const kIds[] = {"example_stencil[n=1024,steps=20]", "example_stencil[n=2048,steps=20]"};

std::string plugin_sweep(const std::string& plugin) {
  return "name: artifacts\n"
         "settings: {samples: 3, warmup: 1, inner: 2, seed: 4, per: batch}\n"
         "benchmarks:\n"
         "  - plugin: " + plugin + "\n"
         "    kernel: example_stencil\n"
         "    axes: {n: [1024, 2048], steps: 20}\n";
}

Result plugin_ab(const Scratch& s, const std::string& candidate, const std::string& extra = "") {
  const auto sweep = s.write("ab.yaml", plugin_sweep(lib("libisobench_example_cpu.so")));
  return run(bin("orchestrate") + " ab --device cpu --quiet --fail-on never --baseline " + lib("libisobench_example_cpu.so") +
                 " --candidate " + lib(candidate) + " --out " + s.path("run") + " " + extra + " " + sweep,
             s);
}

}  // namespace

TEST_CASE("an A/B run of two plugin builds archives both sides' artifacts; compare lists the one that differs") {
  Scratch s("artifacts-ab");
  const auto r = plugin_ab(s, "libisobench_example_cpu_slow10.so");
  REQUIRE_MESSAGE((r.exit_code == 0 || r.exit_code == 1), r.err);  // 3 samples: the verdict is not the point
  CHECK_MESSAGE(r.out.find("stencil.config.txt differs") != std::string::npos, r.out);

  const auto archive = read_json(s.path("run/artifacts.json"));
  CHECK(archive["schema_version"] == 1);
  REQUIRE(archive["sides"].size() == 2);
  for (int side = 0; side < 2; ++side) {
    CAPTURE(side);
    CHECK(archive["sides"][side]["side"] == side);
    for (const char* id : kIds) {
      CAPTURE(id);
      const json& entry = archive["sides"][side]["instances"][id];
      const std::string folder = "artifacts/side-" + std::to_string(side) + "/" + isobench::ipc::artifact_folder_name(id);
      CHECK(entry["folder"] == folder);
      REQUIRE(entry["files"].size() == 1);
      const json& file = entry["files"][0];
      CHECK(file["path"] == "stencil.config.txt");
      // The file stays in the run directory, and its recorded size and hash are its own.
      const std::string on_disk = s.path("run/" + folder + "/stencil.config.txt");
      const std::string text = slurp(on_disk);
      CHECK(file["bytes"] == text.size());
      CHECK(file["sha256"] == isobench::orchestrator::sha256_file_hex(on_disk));
      CHECK(text.find(side == 0 ? "slowdown_pct 0\n" : "slowdown_pct 10\n") != std::string::npos);
    }
  }

  const auto cmp = run(bin("orchestrate") + " compare --json " + s.path("run"), s);
  const auto j = json::parse(cmp.out);
  REQUIRE(j.contains("artifacts"));
  CHECK(j["artifacts"]["files_a"] == 2);
  CHECK(j["artifacts"]["files_b"] == 2);
  REQUIRE(j["artifacts"]["differ"].size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const json& d = j["artifacts"]["differ"][i];
    CHECK(d["instance"] == kIds[i]);
    CHECK(d["path"] == "stencil.config.txt");
    CHECK(d["difference"] == "content");
    CHECK(d["a"]["sha256"] == archive["sides"][0]["instances"][kIds[i]]["files"][0]["sha256"]);
    CHECK(d["b"]["sha256"] == archive["sides"][1]["instances"][kIds[i]]["files"][0]["sha256"]);
  }
  // The listing explains; it does not judge: without artifacts.json the verdicts are the same.
  fs::rename(s.path("run/artifacts.json"), s.path("artifacts.json.kept"));
  const auto bare = json::parse(run(bin("orchestrate") + " compare --json " + s.path("run"), s).out);
  CHECK(!bare.contains("artifacts"));
  CHECK(verdicts(bare) == verdicts(j));
  CHECK(cmp.exit_code == run(bin("orchestrate") + " compare --json " + s.path("run"), s).exit_code);

  SUBCASE("the CSV gets one more column, still one table") {
    fs::rename(s.path("artifacts.json.kept"), s.path("run/artifacts.json"));
    const auto csv = run(bin("orchestrate") + " compare --csv " + s.path("run"), s).out;
    CHECK_MESSAGE(csv.find(",verdict,artifacts differ\n") != std::string::npos, csv);
    CHECK_MESSAGE(csv.find(",stencil.config.txt\n") != std::string::npos, csv);
  }
}

TEST_CASE("identical plugin builds: the artifacts are archived on both sides and none differs") {
  Scratch s("artifacts-same");
  const auto r = plugin_ab(s, "libisobench_example_cpu.so");
  REQUIRE_MESSAGE((r.exit_code == 0 || r.exit_code == 1), r.err);
  CHECK_MESSAGE(r.out.find("artifacts: none differ (2 archived in A, 2 in B)") != std::string::npos, r.out);
  const auto j = json::parse(run(bin("orchestrate") + " compare --json " + s.path("run"), s).out);
  REQUIRE(j.contains("artifacts"));
  CHECK(j["artifacts"]["files_a"] == 2);
  CHECK(j["artifacts"]["files_b"] == 2);
  CHECK(j["artifacts"]["differ"].empty());
}

TEST_CASE("two runs of different plugin builds: compare RUN_A RUN_B lists the differing artifact") {
  Scratch s("artifacts-two-runs");
  for (const std::string name : {"libisobench_example_cpu.so", "libisobench_example_cpu_slow10.so"}) {
    const auto sweep = s.write("sweep.yaml", plugin_sweep(lib(name)));
    const auto r = run(bin("orchestrate") + " --device cpu --quiet --format none --out " + s.path("run-" + name) +
                           " " + sweep,
                       s);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  }
  const auto cmp = run(bin("orchestrate") + " compare --json " + s.path("run-libisobench_example_cpu.so") + " " +
                           s.path("run-libisobench_example_cpu_slow10.so"),
                       s);
  const auto j = json::parse(cmp.out);
  REQUIRE(j.contains("artifacts"));
  REQUIRE(j["artifacts"]["differ"].size() == 2);
  CHECK(j["artifacts"]["differ"][0]["path"] == "stencil.config.txt");
  CHECK(j["artifacts"]["differ"][0]["difference"] == "content");
}

TEST_CASE("a run where nothing writes artifacts: artifacts.json without entries, no folders, compare unchanged") {
  Scratch s("artifacts-none");
  const auto sweep = s.write("spin.yaml",
                             "settings: {samples: 3, warmup: 1, inner: 2, seed: 3}\n"
                             "benchmarks:\n"
                             "  - kernel: cpu_spin\n"
                             "    axes: {microseconds: [5, 10]}\n");
  const auto r = run(bin("orchestrate") + " --device cpu --quiet --format none --out " + s.path("run") + " " + sweep, s);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto archive = read_json(s.path("run/artifacts.json"));
  REQUIRE(archive["sides"].size() == 1);
  CHECK(archive["sides"][0]["instances"].empty());
  // The workers made a folder per instance; empty ones are not kept.
  CHECK(!fs::exists(s.path("run/artifacts")));

  const std::string compare = bin("orchestrate") + " compare " + s.path("run") + " " + s.path("run");
  const auto with_archive = run(compare + " --json", s);
  const auto with_archive_text = run(compare, s);
  CHECK(!json::parse(with_archive.out).contains("artifacts"));
  CHECK(with_archive_text.out.find("\nartifacts") == std::string::npos);  // (the scratch path says "artifacts")
  fs::remove(s.path("run/artifacts.json"));
  CHECK(run(compare + " --json", s).out == with_archive.out);
  CHECK(run(compare, s).out == with_archive_text.out);
  CHECK(run(compare + " --csv", s).out.find("artifacts differ") == std::string::npos);
}

TEST_CASE("a command benchmark gets its instance's folder in ISOBENCH_ARTIFACT_DIR") {
  Scratch s("artifacts-command");
  // The program writes where it was told to write, and the documented example writes its own.
  s.write("where.sh",
          "printf %s \"$ISOBENCH_ARTIFACT_DIR\" > \"$ISOBENCH_ARTIFACT_DIR/where.txt\"\n"
          "echo '{\"isobench\": 1, \"value\": 0.001}'\n");
  const auto sweep = s.write("cmd.yaml",
                             "settings: {samples: 2, seed: 1}\n"
                             "benchmarks:\n"
                             "  - command: [sh, where.sh]\n"
                             "    name: where\n"
                             "    axes: {x: [1]}\n"
                             "  - command: [python3, " + source_dir() + "/examples/command/cpu_loop.py]\n"
                             "    name: py_loop\n"
                             "    axes: {iterations: [1000], repeats: 1}\n");
  const auto r = run(bin("orchestrate") + " --device cpu --quiet --format none --out " + s.path("run") + " " + sweep, s);
  REQUIRE_MESSAGE(r.exit_code == 0, (r.err + slurp(s.path("run/workers.log"))));
  const std::string folder = "artifacts/side-0/" + isobench::ipc::artifact_folder_name("where[x=1]");
  CHECK(slurp(s.path("run/" + folder + "/where.txt")) ==
        fs::absolute(s.path("run/" + folder)).lexically_normal().string());
  const auto archive = read_json(s.path("run/artifacts.json"));
  const json& instances = archive["sides"][0]["instances"];
  CHECK(instances["where[x=1]"]["files"][0]["path"] == "where.txt");
  CHECK(instances["py_loop[iterations=1000,repeats=1]"]["files"][0]["path"] == "cpu_loop.config.txt");
}

TEST_CASE("--resume archives the artifacts again") {
  Scratch s("artifacts-resume");
  REQUIRE(plugin_ab(s, "libisobench_example_cpu_slow10.so").exit_code <= 1);
  // As if interrupted before any sample and before the archive was written.
  fs::remove_all(s.path("run/artifacts"));
  fs::remove(s.path("run/artifacts.json"));
  s.write("run/samples.jsonl", "");
  auto info = read_json(s.path("run/run.json"));
  info["status"] = "interrupted";
  s.write("run/run.json", info.dump());
  const auto r = run(bin("orchestrate") + " --resume " + s.path("run") + " --quiet --format json", s);
  REQUIRE_MESSAGE((r.exit_code == 0 || r.exit_code == 1), r.err);
  const auto archive = read_json(s.path("run/artifacts.json"));
  CHECK(archive["sides"][0]["instances"].size() == 2);
  CHECK(archive["sides"][1]["instances"].size() == 2);
  CHECK(json::parse(r.out)["artifacts"]["differ"].size() == 2);
}
