// The Triton IR of an instance, side against side: compare's TTGIR line (ttgir_differences) and
// `orchestrate ir-diff` (compare/ir_diff.hpp) on run directories laid out as a run leaves them:
// instance folders written as python/isobench/triton_ir.py writes them, artifacts.json by the
// orchestrator's own archive_artifacts.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ipc/artifact_folder.hpp"
#include "orchestrator/artifacts.hpp"
#include "orchestrator/compare/artifact_diff.hpp"
#include "orchestrator/compare/ir_diff.hpp"
#include "orchestrator/errors.hpp"
#include "temp_dir.hpp"

using namespace isobench::orchestrator;
using isobench::testing::TempDir;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kSoftmax = "triton_softmax[rows=4096,cols=4096,dtype=bf16]";
const std::string kNorm = "triton_layer_norm[rows=4096,hidden=4096,dtype=bf16]";

// One side's IR of an instance: two launches; `fusion` changes the softmax's TTGIR and both PTX.
void write_instance(const TempDir& run, int side, const std::string& id, bool fusion) {
  const std::string base = "artifacts/side-" + std::to_string(side) + "/" + isobench::ipc::artifact_folder_name(id) + "/triton/";
  json launches = json::array();
  const std::vector<std::string> names = {"softmax_kernel", "norm_kernel"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    const std::string dir = std::to_string(i) + "-" + n + "/";
    const bool changed = !fusion && n == "softmax_kernel";
    run.write(base + dir + n + ".ttir", "tt.func @" + n + "() {\n  tt.return\n}\n");
    run.write(base + dir + n + ".ttgir", "#blocked = #ttg.blocked<{}>\ntt.func @" + n + "() {\n" +
                                             std::string(changed ? "  %0 = arith.mulf %a, %b\n  %1 = arith.addf %0, %c\n"
                                                                 : "  %0 = math.fma %a, %b, %c\n") +
                                             "  tt.return\n}\n");
    run.write(base + dir + n + ".ptx", std::string(fusion ? "fma.rn.f32" : "mul.rn.f32\nadd.rn.f32") + "\n");
    launches.push_back({{"order", i},
                        {"name", n},
                        {"hash", (fusion ? "aa" : "bb") + std::to_string(i)},
                        {"num_warps", 4},
                        {"enable_fp_fusion", fusion},
                        {"files", {dir + n + ".ttir", dir + n + ".ttgir", dir + n + ".ptx"}}});
  }
  run.write(base + "kernels.json", json{{"schema_version", 1}, {"launches", launches}}.dump(1));
}

// An A/B run directory: both instances on both sides, the candidate without FP fusion for the
// softmax only when `candidate_fusion` is false; artifacts.json archived as a run archives it.
void make_run(const TempDir& run, bool candidate_fusion) {
  for (int side = 0; side < 2; ++side) {
    write_instance(run, side, kSoftmax, side == 0 || candidate_fusion);
    write_instance(run, side, kNorm, true);
  }
  const auto archive = archive_artifacts(run.path() / "artifacts", {kSoftmax, kNorm}, 2);
  run.write("artifacts.json", archive.document.dump(1));
}

ArtifactSide side_of(const TempDir& run, std::uint32_t side) {
  return artifact_side_from_json(json::parse(std::ifstream(run / "artifacts.json")), side, "artifacts.json");
}

}  // namespace

TEST_CASE("compare names the instances whose TTGIR differs, and only those") {
  TempDir run("ir_diff");
  make_run(run, /*candidate_fusion=*/false);
  const auto comparison = compare_artifacts(side_of(run, 0), side_of(run, 1), {kSoftmax, kNorm});
  CHECK(ttgir_differences(comparison) == std::vector<std::string>{kSoftmax});
  std::ostringstream text;
  print_artifact_changes(comparison, false, text);
  CHECK(text.str().find("TTGIR differs for 1 instance: " + kSoftmax +
                        " (orchestrate ir-diff RUN INSTANCE prints the difference)") != std::string::npos);
  CHECK(artifact_changes_json(comparison)["ttgir_differ"] == json::array({kSoftmax}));

  TempDir same("ir_diff_same");
  make_run(same, /*candidate_fusion=*/true);
  const auto aa = compare_artifacts(side_of(same, 0), side_of(same, 1), {kSoftmax, kNorm});
  CHECK(ttgir_differences(aa).empty());
  std::ostringstream aa_text;
  print_artifact_changes(aa, false, aa_text);
  CHECK(aa_text.str().find("TTGIR") == std::string::npos);
}

TEST_CASE("ir-diff prints each launch's changed options and a unified diff of its stage") {
  TempDir run("ir_diff_print");
  make_run(run, /*candidate_fusion=*/false);
  std::ostringstream out, err;
  REQUIRE(run_ir_diff({{run.path().string()}, kSoftmax, "ttgir"}, out, err) == exit_ok);
  const std::string text = out.str();
  CHECK(err.str().empty());
  CHECK(text.find("== launch 0: softmax_kernel\n") != std::string::npos);
  CHECK(text.find("  enable_fp_fusion: true -> false\n") != std::string::npos);
  CHECK(text.find("  hash: aa0 -> bb0\n") != std::string::npos);
  CHECK(text.find("--- baseline/0-softmax_kernel/softmax_kernel.ttgir") != std::string::npos);
  CHECK(text.find("+++ candidate/0-softmax_kernel/softmax_kernel.ttgir") != std::string::npos);
  CHECK(text.find("\n-  %0 = math.fma %a, %b, %c\n") != std::string::npos);
  CHECK(text.find("\n+  %0 = arith.mulf %a, %b\n") != std::string::npos);
  const auto second = text.find("== launch 1: norm_kernel\n");
  REQUIRE(second != std::string::npos);
  CHECK(text.find("  enable_fp_fusion: true -> false\n  hash: aa1 -> bb1\n  TTGIR: identical\n", second) == second + 25);
  CHECK(text.find("TTGIR: 1 of 2 launches differ\n") != std::string::npos);

  std::ostringstream all;
  REQUIRE(run_ir_diff({{run.path().string()}, kSoftmax, "all"}, all, err) == exit_ok);
  CHECK(all.str().find("PTX: 2 of 2 launches differ\n") != std::string::npos);  // the fake PTX changes for both
  CHECK(all.str().find("TTIR: 0 of 2 launches differ\n") != std::string::npos);
  CHECK(all.str().find("SASS: not recorded on either side\n") != std::string::npos);
}

TEST_CASE("ir-diff of two runs compares side 0 of each") {
  TempDir a("ir_diff_a"), b("ir_diff_b");
  make_run(a, true);
  make_run(b, true);
  std::ostringstream out, err;
  REQUIRE(run_ir_diff({{a.path().string(), b.path().string()}, kNorm, "ttgir"}, out, err) == exit_ok);
  CHECK(out.str().find("TTGIR: 0 of 2 launches differ\n") != std::string::npos);
  CHECK(out.str().find(": A ") != std::string::npos);
}

TEST_CASE("ir-diff refuses what it cannot compare, with one line naming it") {
  TempDir run("ir_diff_bad");
  make_run(run, false);
  auto refused = [](const IrDiffRequest& r) {
    std::ostringstream out, err;
    CHECK(run_ir_diff(r, out, err) == exit_bad_input);
    CHECK(out.str().empty());
    const std::string e = err.str();
    CHECK(std::count(e.begin(), e.end(), '\n') == 1);
    return e;
  };
  CHECK(refused({{run.path().string()}, kSoftmax, "sass2"}).find("--stage sass2: expected ttir, ttgir, llir, ptx, sass or all") !=
        std::string::npos);
  const auto missing = refused({{run.path().string()}, "gemm[m=1]", "ttgir"});
  CHECK(missing.find("has no artifacts for instance gemm[m=1] (instances with Triton IR: ") != std::string::npos);
  TempDir empty("ir_diff_empty");
  CHECK(refused({{empty.path().string()}, kSoftmax, "ttgir"}).find("no artifacts.json") != std::string::npos);
  // An instance whose artifacts hold no Triton IR (a C++ kernel's SASS dump, say).
  TempDir other("ir_diff_other");
  for (int side = 0; side < 2; ++side)
    other.write("artifacts/side-" + std::to_string(side) + "/" + isobench::ipc::artifact_folder_name(kNorm) + "/dump.sass", "x");
  other.write("artifacts.json", archive_artifacts(other.path() / "artifacts", {kNorm}, 2).document.dump());
  CHECK(refused({{other.path().string()}, kNorm, "ttgir"}).find("has no Triton IR on side 0") != std::string::npos);
  // A damaged index.
  run.write("artifacts/side-1/" + isobench::ipc::artifact_folder_name(kNorm) + "/triton/kernels.json", "{\"launches\": 3}");
  CHECK(refused({{run.path().string()}, kNorm, "ttgir"}).find("kernels.json: launches: missing or not an array") !=
        std::string::npos);
}
