// Artifacts: SHA-256, the scan of an instance folder, artifacts.json, and compare's listing of
// the artifacts that differ.

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ipc/artifact_folder.hpp"
#include "orchestrator/artifacts.hpp"
#include "orchestrator/compare/artifact_diff.hpp"
#include "orchestrator/commands/compare_command.hpp"
#include "orchestrator/sha256.hpp"
#include "temp_dir.hpp"

using namespace isobench::orchestrator;
using isobench::testing::TempDir;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const ArtifactFile* find(const std::vector<ArtifactFile>& files, const std::string& path) {
  for (const auto& f : files)
    if (f.path == path) return &f;
  return nullptr;
}

}  // namespace

TEST_CASE("SHA-256 gives the FIPS 180-2 test vectors") {
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const std::string million(1000000, 'a');
  const std::string million_digest = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
  CHECK(sha256_hex(million) == million_digest);
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

  SUBCASE("fed in pieces of every size around the 64-byte block, the digest is the same") {
    for (std::size_t piece : {1u, 3u, 55u, 56u, 63u, 64u, 65u, 1000u, 65537u}) {
      CAPTURE(piece);
      Sha256 h;
      for (std::size_t at = 0; at < million.size(); at += piece) h.update(million.data() + at, std::min(piece, million.size() - at));
      CHECK(h.finish_hex() == million_digest);
    }
  }
  SUBCASE("a file is hashed streaming, and a symbolic link is refused, not followed") {
    TempDir dir;
    const auto file = dir.write("a.txt", million);
    CHECK(sha256_file_hex(file.string()) == million_digest);
    fs::create_symlink(file, dir.path() / "link");
    CHECK_THROWS_WITH_AS(sha256_file_hex((dir.path() / "link").string()), doctest::Contains("cannot open"),
                         std::runtime_error);
  }
}

TEST_CASE("an instance folder is listed with sizes and hashes; links, FIFOs and large files are not followed or hashed") {
  TempDir dir;
  const fs::path folder = dir.path() / "inst";
  dir.write("inst/ir.ll", "define void @k() { ret void }\n");
  dir.write("inst/sub/decision.json", "{\"tile\": 128}");
  dir.write("inst/big.bin", std::string(100, 'x'));
  dir.write("outside.txt", "secret");
  fs::create_symlink("ir.ll", folder / "inside_link");
  fs::create_symlink("../outside.txt", folder / "outside_link");
  fs::create_symlink(dir.path(), folder / "sub/dir_link");  // a directory outside: not descended into
  REQUIRE(::mkfifo((folder / "pipe").c_str(), 0600) == 0);

  const auto files = scan_artifact_folder(folder, /*max_bytes=*/64);
  std::vector<std::string> paths;
  for (const auto& f : files) paths.push_back(f.path);
  CHECK(paths == std::vector<std::string>{"big.bin", "inside_link", "ir.ll", "outside_link", "pipe",
                                          "sub/decision.json", "sub/dir_link"});
  const auto* ir = find(files, "ir.ll");
  REQUIRE(ir);
  CHECK(ir->bytes == 30);
  CHECK(ir->sha256 == sha256_hex("define void @k() { ret void }\n"));
  CHECK(ir->skipped.empty());
  CHECK(find(files, "sub/decision.json")->sha256 == sha256_hex("{\"tile\": 128}"));
  const auto* big = find(files, "big.bin");
  CHECK(big->bytes == 100);
  CHECK(big->sha256.empty());
  CHECK(big->skipped.find("not hashed") != std::string::npos);
  const auto* inside = find(files, "inside_link");
  CHECK(inside->symlink == "ir.ll");
  CHECK(inside->skipped.empty());
  CHECK(inside->sha256.empty());
  const auto* outside = find(files, "outside_link");
  CHECK(outside->symlink == "../outside.txt");
  CHECK(outside->skipped.find("outside") != std::string::npos);
  CHECK(find(files, "sub/dir_link")->skipped.find("outside") != std::string::npos);
  CHECK(find(files, "pipe")->skipped == "not a regular file");
  CHECK(scan_artifact_folder(dir.path() / "missing").empty());
}

TEST_CASE("artifacts.json: per side, per instance with files; empty folders are removed") {
  TempDir dir;
  const fs::path root = dir.path() / "artifacts";
  const std::string wrote = "k[n=1]", silent = "k[n=2]", absent = "k[n=3]";
  dir.write("artifacts/side-0/" + isobench::ipc::artifact_folder_name(wrote) + "/out.txt", "zero");
  dir.write("artifacts/side-1/" + isobench::ipc::artifact_folder_name(wrote) + "/out.txt", "one");
  dir.write("artifacts/side-1/" + isobench::ipc::artifact_folder_name(wrote) + "/big.bin", std::string(10, 'b'));
  fs::create_directories(root / "side-0" / isobench::ipc::artifact_folder_name(silent));
  fs::create_directories(root / "side-1" / isobench::ipc::artifact_folder_name(silent));

  const auto archive = archive_artifacts(root, {wrote, silent, absent}, 2, /*max_bytes=*/5);
  const json& doc = archive.document;
  CHECK(doc["schema_version"] == kArtifactsSchemaVersion);
  CHECK(doc["max_file_bytes"] == 5);
  REQUIRE(doc["sides"].size() == 2);
  CHECK(doc["sides"][0]["side"] == 0);
  CHECK(doc["sides"][0]["instances"].size() == 1);
  const json& zero = doc["sides"][0]["instances"][wrote];
  CHECK(zero["folder"] == "artifacts/side-0/" + isobench::ipc::artifact_folder_name(wrote));
  CHECK(zero["files"] == json::array({{{"path", "out.txt"}, {"bytes", 4}, {"sha256", sha256_hex("zero")}}}));
  CHECK(doc["sides"][1]["instances"][wrote]["files"].size() == 2);
  CHECK(!fs::exists(root / "side-0" / isobench::ipc::artifact_folder_name(silent)));
  CHECK(fs::exists(root / "side-0" / isobench::ipc::artifact_folder_name(wrote) / "out.txt"));
  REQUIRE(archive.notes.size() == 1);  // big.bin, over the cap
  CHECK(archive.notes[0].find("big.bin") != std::string::npos);

  const auto side1 = artifact_side_from_json(doc, 1, "artifacts.json");
  REQUIRE(side1.count(wrote));
  CHECK(side1.at(wrote).size() == 2);
  CHECK(side1.at(wrote)[0].path == "big.bin");
  CHECK(side1.at(wrote)[0].sha256.empty());
  CHECK(side1.at(wrote)[1].sha256 == sha256_hex("one"));
  CHECK(artifact_side_from_json(doc, 2, "artifacts.json").empty());

  SUBCASE("a run where nothing wrote artifacts leaves no artifacts folder and no entries") {
    TempDir quiet;
    fs::create_directories(quiet.path() / "artifacts/side-0" / isobench::ipc::artifact_folder_name(silent));
    const auto none = archive_artifacts(quiet.path() / "artifacts", {silent}, 1);
    CHECK(none.document["sides"][0]["instances"].empty());
    CHECK(!fs::exists(quiet.path() / "artifacts"));
  }
  SUBCASE("a newer or malformed artifacts.json is refused, naming the file") {
    json newer = doc;
    newer["schema_version"] = kArtifactsSchemaVersion + 1;
    CHECK_THROWS_WITH_AS(artifact_side_from_json(newer, 0, "x/artifacts.json"),
                         doctest::Contains("x/artifacts.json: schema_version 2 is newer"), std::runtime_error);
    json broken = doc;
    broken["sides"][0]["instances"][wrote]["files"][0]["bytes"] = "four";
    CHECK_THROWS_WITH_AS(artifact_side_from_json(broken, 0, "x/artifacts.json"),
                         doctest::Contains("\"bytes\" is not a size"), std::runtime_error);
    json bad_hash = doc;
    bad_hash["sides"][0]["instances"][wrote]["files"][0]["sha256"] = "ABCDEF";
    CHECK_THROWS_WITH_AS(artifact_side_from_json(bad_hash, 0, "x/artifacts.json"),
                         doctest::Contains("\"sha256\" is not 64 lowercase hex digits"), std::runtime_error);
  }
}

TEST_CASE("compare_artifacts lists changed content and files on one side only, in id order, nothing else") {
  auto file = [](const std::string& path, const std::string& content) {
    ArtifactFile f;
    f.path = path;
    f.bytes = content.size();
    f.sha256 = sha256_hex(content);
    return f;
  };
  ArtifactSide a, b;
  a["k[n=2]"] = {file("config.txt", "steps 20"), file("same.txt", "x"), file("old.txt", "o")};
  b["k[n=2]"] = {file("config.txt", "steps 22"), file("same.txt", "x"), file("new.txt", "n")};
  a["k[n=1]"] = {file("same.txt", "x")};
  b["k[n=1]"] = {file("same.txt", "x")};
  b["k[n=3]"] = {file("only_b.txt", "b")};
  a["not[shared]"] = {file("ignored.txt", "i")};
  const auto c = compare_artifacts(a, b, {"k[n=1]", "k[n=2]", "k[n=3]"});
  CHECK(c.available);
  CHECK(c.shown());
  CHECK(c.files_a == 4);
  CHECK(c.files_b == 5);
  REQUIRE(c.changes.size() == 4);
  CHECK(c.changes[0].instance == "k[n=2]");
  CHECK(c.changes[0].path == "config.txt");
  CHECK(c.changes[0].kind == ArtifactChange::Kind::content);
  CHECK(c.changes[1].path == "new.txt");
  CHECK(c.changes[1].kind == ArtifactChange::Kind::only_b);
  CHECK(c.changes[2].path == "old.txt");
  CHECK(c.changes[2].kind == ArtifactChange::Kind::only_a);
  CHECK(c.changes[3].instance == "k[n=3]");
  CHECK(artifact_changes_cell(c, "k[n=2]") == "config.txt; new.txt (only in B); old.txt (only in A)");
  CHECK(artifact_changes_cell(c, "k[n=1]").empty());
  const json j = artifact_changes_json(c);
  CHECK(j["differ"][0]["difference"] == "content");
  CHECK(j["differ"][0]["a"]["sha256"] == sha256_hex("steps 20"));
  CHECK(j["differ"][0]["b"]["sha256"] == sha256_hex("steps 22"));
  CHECK(j["differ"][1]["a"].is_null());

  SUBCASE("files not hashed compare by link target and size") {
    ArtifactFile big_a, big_b;
    big_a.path = big_b.path = "big.bin";
    big_a.bytes = big_b.bytes = 1 << 30;
    big_a.skipped = big_b.skipped = "larger than 256 MiB: not hashed";
    CHECK(big_a.same_content(big_b));
    big_b.bytes += 1;
    CHECK(!big_a.same_content(big_b));
    CHECK(!big_a.same_content(file("big.bin", "small")));
  }
  SUBCASE("identical sides: available, nothing listed") {
    const auto same = compare_artifacts(a, a, {"k[n=1]", "k[n=2]"});
    CHECK(same.shown());
    CHECK(same.changes.empty());
    std::ostringstream text;
    print_artifact_changes(same, false, text);
    CHECK(text.str() == "artifacts: none differ (4 archived in A, 4 in B)\n");
  }
}

TEST_CASE("compare on an A/B run directory lists the artifacts that differ; without artifacts its output is as before") {
  TempDir dir;
  const fs::path run = dir.path() / "run";
  json plan = {{"schema_version", 1}, {"schedule", {{"sides", 2}}}, {"instances", json::array()}};
  std::string samples;
  const std::vector<std::string> ids = {"k[n=1]", "k[n=2]"};
  for (const auto& id : ids) {
    plan["instances"].push_back({{"id", id}, {"kernel", "k"}, {"params", json::object()}, {"inner", 1}});
    for (int side = 0; side < 2; ++side)
      for (int i = 0; i < 6; ++i)
        samples += json{{"type", "sample"}, {"instance", id}, {"side", side}, {"value", 1.0 + 0.01 * i}}.dump() + "\n";
  }
  dir.write("run/plan.json", plan.dump());
  dir.write("run/samples.jsonl", samples);
  auto compare = [&](Format format) {
    CompareOptions options;
    options.runs = {run.string()};
    options.format = format;
    std::ostringstream out, err;
    const int code = run_compare(options, out, err);
    CHECK_MESSAGE(code == 0, err.str());
    return out.str();
  };
  const std::string formats_before[] = {compare(Format::json), compare(Format::csv),
                                        compare(Format::markdown), compare(Format::table)};

  SUBCASE("artifacts.json without files: every output unchanged") {
    dir.write("run/artifacts.json",
              json{{"schema_version", 1},
                   {"sides", {{{"side", 0}, {"instances", json::object()}}, {{"side", 1}, {"instances", json::object()}}}}}
                  .dump());
    CHECK(compare(Format::json) == formats_before[0]);
    CHECK(compare(Format::csv) == formats_before[1]);
    CHECK(compare(Format::markdown) == formats_before[2]);
    CHECK(compare(Format::table) == formats_before[3]);
  }
  SUBCASE("a differing artifact is listed in every format; verdicts stay as they were") {
    auto entry = [](const std::string& content) {
      return json{{"files", {{{"path", "config.txt"}, {"bytes", content.size()}, {"sha256", sha256_hex(content)}}}}};
    };
    dir.write("run/artifacts.json",
              json{{"schema_version", 1},
                   {"sides",
                    {{{"side", 0}, {"instances", {{"k[n=1]", entry("a")}, {"k[n=2]", entry("same")}}}},
                     {{"side", 1}, {"instances", {{"k[n=1]", entry("b")}, {"k[n=2]", entry("same")}}}}}}}
                  .dump());
    const json j = json::parse(compare(Format::json));
    REQUIRE(j.contains("artifacts"));
    CHECK(j["artifacts"]["files_a"] == 2);
    REQUIRE(j["artifacts"]["differ"].size() == 1);
    CHECK(j["artifacts"]["differ"][0]["instance"] == "k[n=1]");
    CHECK(j["artifacts"]["differ"][0]["path"] == "config.txt");
    json without = j;
    without.erase("artifacts");
    CHECK(without == json::parse(formats_before[0]));

    std::istringstream csv(compare(Format::csv));
    std::string header, row1, row2;
    std::getline(csv, header);
    std::getline(csv, row1);
    std::getline(csv, row2);
    CHECK(header.ends_with(",verdict,artifacts differ"));
    CHECK(row1.starts_with("k[n=1],"));
    CHECK(row1.ends_with(",config.txt"));
    CHECK(row2.ends_with(","));  // k[n=2]: nothing differs, an empty cell
    CHECK(compare(Format::markdown).find("| k[n=1] | config.txt | differs |") != std::string::npos);
    const std::string text = compare(Format::table);
    // The listing comes after the table, before the outcome line that closes it (an UNCERTAIN
    // instance's note makes compare print one).
    const std::string& before = formats_before[3];
    const std::size_t outcome_at = std::min(before.rfind("outcome: "), before.size());
    CHECK(text == before.substr(0, outcome_at) +
                      "artifacts that differ (2 archived in A, 2 in B):\n  k[n=1]: config.txt differs\n" +
                      before.substr(outcome_at));
  }
  SUBCASE("a malformed artifacts.json is bad input, exit 2, naming the file") {
    dir.write("run/artifacts.json", "{not json");
    CompareOptions options;
    options.runs = {run.string()};
    std::ostringstream out, err;
    CHECK(run_compare(options, out, err) == 2);
    CHECK(err.str().find("artifacts.json: invalid JSON") != std::string::npos);
  }
}
