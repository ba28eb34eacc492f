// The Triton IR of an instance, side against side: compare's TTGIR line (ttgir_differences) and
// `orchestrate ir-diff` (compare/ir_diff.hpp) on run directories laid out as a run leaves them:
// instance folders written as python/isobench/triton_ir.py writes them, artifacts.json by the
// orchestrator's own archive_artifacts.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ipc/artifact_folder.hpp"
#include "orchestrator/artifacts.hpp"
#include "orchestrator/commands/ir_diff_command.hpp"
#include "orchestrator/compare/artifact_diff.hpp"
#include "orchestrator/compare/ir_diff.hpp"
#include "orchestrator/compare/ir_locations.hpp"
#include "orchestrator/errors.hpp"
#include "orchestrator/printers/ci_report.hpp"
#include "temp_dir.hpp"

using namespace isobench::orchestrator;
using isobench::testing::TempDir;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kSoftmax = "triton_softmax[rows=4096,cols=4096,dtype=bf16]";
const std::string kNorm = "triton_layer_norm[rows=4096,hidden=4096,dtype=bf16]";

// Where a side's kernels were compiled from: the file (its folder differs between two
// checkouts) and how many lines below its first place the kernels sit.
struct Source {
  std::string file = "/work/a/examples/python/triton_kernels.py";
  int shift = 0;
};

// MLIR as Triton writes it (docs/results/2026-12-01-h200-c: a TTGIR of 200 lines, shortened):
// #loc definitions naming the file, a loc(...) on every operation, argument and the module.
std::string ttgir_text(const std::string& n, bool changed, const Source& at) {
  const auto loc = [&at](int line, int col) {
    return "loc(\"" + at.file + "\":" + std::to_string(line + at.shift) + ":" + std::to_string(col) + ")";
  };
  return "#blocked = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>\n"
         "#loc = " + loc(47, 0) + "\n#loc1 = loc(unknown)\n#loc16 = " + loc(55, 18) + "\n"
         "#loc57 = loc(\"x_ptr\"(#loc))\n#loc78 = loc(\"mean\"(#loc16))\n"
         "module attributes {\"ttg.num-ctas\" = 1 : i32, \"ttg.num-warps\" = 8 : i32} {\n"
         "  tt.func public @" + n + "(%x_ptr: !tt.ptr<bf16> {tt.divisibility = 16 : i32} loc(\"x_ptr\"(#loc))) "
         "attributes {noinline = false} {\n"
         "    %cst = arith.constant dense<0.000000e+00> : tensor<4096xf32, #blocked> loc(#loc1)\n"
         "    %row = tt.get_program_id x : i32 loc(#loc2)\n" +
         std::string(changed ? "    %0 = arith.mulf %a, %b loc(#loc78)\n    %1 = arith.addf %0, %c loc(#loc78)\n"
                             : "    %0 = math.fma %a, %b, %c loc(#loc78)\n") +
         "    %buf = ttg.local_alloc : () -> !ttg.memdesc<4096xf32> loc(#loc3)\n"
         "    tt.return loc(#loc4)\n  } loc(#loc)\n} loc(#loc)\n"
         "#loc2 = " + loc(48, 24) + "\n#loc3 = " + loc(52, 35) + "\n#loc4 = " + loc(60, 4) + "\n"
         "#loc108 = loc(callsite(#loc1 at #loc78))\n";
}

// PTX with its line table: .file, .loc and a DWARF section naming the folder byte by byte.
std::string ptx_text(bool fusion, const Source& at) {
  std::string dir_bytes;
  for (char c : at.file) dir_bytes += ".b8 " + std::to_string(static_cast<int>(c)) + "\n";
  return ".version 8.7\n.target sm_90a\n\t.loc\t1 " + std::to_string(47 + at.shift) +
         " 0                          // triton_kernels.py:47:0\n" +
         std::string(fusion ? "\tfma.rn.f32 \t%r1, %r2, %r3, %r4;\n" : "\tmul.rn.f32 \t%r1, %r2, %r3;\n\tadd.rn.f32 \t%r1, %r1, %r4;\n") +
         "\tret;\n\t.file\t1 \"" + at.file + "\"\n\t.section\t.debug_info\n\t{\n.b32 " +
         std::to_string(100 + at.file.size()) + "                                // Length of Unit\n" + dir_bytes +
         "\t}\n\t.section\t.debug_macinfo\t{\t}\n";
}

// LLVM IR with !dbg attachments and its debug metadata.
std::string llir_text(const std::string& n, const Source& at) {
  const auto slash = at.file.rfind('/');
  return "define ptx_kernel void @" + n + "(ptr addrspace(1) %0) local_unnamed_addr #0 !dbg !5 {\n"
         "  %2 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !8\n  ret void, !dbg !9\n}\n"
         "!llvm.dbg.cu = !{!0}\n"
         "!0 = distinct !DICompileUnit(language: DW_LANG_C, file: !1, producer: \"triton\")\n"
         "!1 = !DIFile(filename: \"" + at.file.substr(slash + 1) + "\", directory: \"" + at.file.substr(0, slash) + "\")\n"
         "!5 = distinct !DISubprogram(name: \"" + n + "\", line: " + std::to_string(47 + at.shift) + ", unit: !0)\n"
         "!8 = !DILocation(line: " + std::to_string(48 + at.shift) + ", column: 24, scope: !5)\n"
         "!9 = !DILocation(line: " + std::to_string(60 + at.shift) + ", column: 4, scope: !5)\n";
}

// One side's IR of an instance: two launches; `fusion` changes the softmax's TTGIR and both PTX.
void write_instance(const TempDir& run, int side, const std::string& id, bool fusion, const Source& at = {}) {
  const std::string base = "artifacts/side-" + std::to_string(side) + "/" + isobench::ipc::artifact_folder_name(id) + "/triton/";
  json launches = json::array();
  const std::vector<std::string> names = {"softmax_kernel", "norm_kernel"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    const std::string dir = std::to_string(i) + "-" + n + "/";
    const bool changed = !fusion && n == "softmax_kernel";
    run.write(base + dir + n + ".ttir", "#loc = loc(\"" + at.file + "\":" + std::to_string(47 + at.shift) +
                                            ":0)\ntt.func @" + n + "() {\n  tt.return loc(#loc)\n} loc(#loc)\n");
    run.write(base + dir + n + ".ttgir", ttgir_text(n, changed, at));
    run.write(base + dir + n + ".llir", llir_text(n, at));
    run.write(base + dir + n + ".ptx", ptx_text(fusion, at));
    launches.push_back({{"order", i},
                        {"name", n},
                        {"hash", (fusion ? "aa" : "bb") + std::to_string(i)},
                        {"num_warps", 4},
                        {"enable_fp_fusion", fusion},
                        {"files", {dir + n + ".ttir", dir + n + ".ttgir", dir + n + ".llir", dir + n + ".ptx"}}});
  }
  run.write(base + "kernels.json", json{{"schema_version", 1}, {"launches", launches}}.dump(1));
}

// An A/B run directory: both instances on both sides, the candidate without FP fusion for the
// softmax only when `candidate_fusion` is false, its kernels compiled from `candidate_source`;
// artifacts.json archived as a run archives it.
void make_run(const TempDir& run, bool candidate_fusion, const Source& candidate_source = {}) {
  for (int side = 0; side < 2; ++side) {
    const Source at = side == 0 ? Source{} : candidate_source;
    write_instance(run, side, kSoftmax, side == 0 || candidate_fusion, at);
    write_instance(run, side, kNorm, true, at);
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
  CHECK(text.find("\n-    %0 = math.fma %a, %b, %c\n") != std::string::npos);
  CHECK(text.find("\n+    %0 = arith.mulf %a, %b\n") != std::string::npos);
  CHECK(text.find("loc(") == std::string::npos);  // the diff is of the IR without its locations
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

TEST_CASE("Triton IR without its source locations: MLIR, LLVM IR and PTX") {
  const Source a, b{"/work/b/examples/python/triton_kernels.py", 0}, moved{a.file, 1};
  for (const auto& [name, text_of] :
       std::vector<std::pair<std::string, std::function<std::string(const Source&)>>>{
           {"ttgir", [](const Source& at) { return ttgir_text("k", false, at); }},
           {"llir", [](const Source& at) { return llir_text("k", at); }},
           {"ptx", [](const Source& at) { return ptx_text(true, at); }}}) {
    CAPTURE(name);
    const std::string stripped = without_source_locations(text_of(a), name);
    CHECK(stripped.find("triton_kernels.py") == std::string::npos);
    CHECK(stripped.find("/work/") == std::string::npos);
    CHECK(compare_ir(text_of(a), text_of(a), name) == IrDifference::identical);
    CHECK(compare_ir(text_of(a), text_of(b), name) == IrDifference::source_locations);
    CHECK(compare_ir(text_of(a), text_of(moved), name) == IrDifference::source_locations);
    CHECK(ir_source_files(text_of(b)).at(0) == b.file);
  }
  const std::string ttgir = without_source_locations(ttgir_text("k", false, a), "ttgir");
  CHECK(ttgir.find("    %0 = math.fma %a, %b, %c\n") != std::string::npos);
  CHECK(ttgir.find("ttg.local_alloc : () -> !ttg.memdesc<4096xf32>\n") != std::string::npos);  // alloc( is no loc(
  CHECK(ttgir.find("#loc") == std::string::npos);
  CHECK(ttgir.find("  } \n") == std::string::npos);  // the space before a removed loc goes with it
  CHECK(without_source_locations(ptx_text(true, a), "ptx").find("fma.rn.f32") != std::string::npos);
  CHECK(without_source_locations(llir_text("k", a), "llir").find("ret void\n") != std::string::npos);
  CHECK(compare_ir(ttgir_text("k", false, a), ttgir_text("k", true, b), "ttgir") == IrDifference::real);
  CHECK(compare_ir(ptx_text(true, a), ptx_text(false, moved), "ptx") == IrDifference::real);
  CHECK(compare_ir("x loc(1)", "x loc(2)", "sass") == IrDifference::real);  // SASS has no locations to remove
  CHECK(ir_stage_of("triton/0-k/k.ttgir") == "ttgir");
  CHECK(ir_stage_of("triton/0-k.ttgir/notes").empty());
}

TEST_CASE("one kernel in two folders, or moved by a line: no TTGIR difference, only source locations") {
  for (const Source& candidate : {Source{"/work/b/examples/python/triton_kernels.py", 0}, Source{Source{}.file, 1}}) {
    CAPTURE(candidate.file);
    CAPTURE(candidate.shift);
    TempDir run("ir_locations");
    make_run(run, /*candidate_fusion=*/true, candidate);
    const auto comparison = compare_run_artifacts({run.path().string()}, {kSoftmax, kNorm});
    CHECK(ttgir_differences(comparison).empty());
    CHECK(ttgir_location_differences(comparison) == std::vector<std::string>{kSoftmax, kNorm});
    REQUIRE(comparison.changes.size() == 16);  // 2 instances x 2 launches x 4 stages
    for (const auto& c : comparison.changes) CHECK(c.kind == ArtifactChange::Kind::source_locations);
    std::ostringstream text;
    print_artifact_changes(comparison, false, text);
    CHECK(text.str().find("TTGIR differs for") == std::string::npos);
    CHECK(text.str().find("TTGIR differs only in source locations (file paths, lines) for 2 instances: " + kSoftmax +
                          ", " + kNorm + "\n") != std::string::npos);
    // One line counts the 16 files instead of a line each (JSON keeps every file).
    CHECK(text.str().find("\n16 Triton IR files of 2 instances differ only in source locations") != std::string::npos);
    CHECK(text.str().find(".ttgir") == std::string::npos);
    const std::string listing = text.str();
    CHECK(std::count(listing.begin(), listing.end(), '\n') == 3);
    std::ostringstream markdown;
    print_artifact_changes(comparison, true, markdown);
    CHECK(markdown.str().find("| instance |") == std::string::npos);  // no table without a real difference
    CHECK(markdown.str().find("16 Triton IR files of 2 instances") != std::string::npos);
    CHECK(artifact_changes_json(comparison)["differ"][0]["difference"] == "source_locations");
    ComparisonReport report;  // what a CI summary says of it (printers/ci_report.hpp)
    report.artifacts = comparison;
    CHECK(ci_report(report, "orchestrate compare", 2).notes ==
          std::vector<std::string>{"TTGIR differs only in source locations (file paths, lines) for 2 instances: " +
                                   kSoftmax + ", " + kNorm});

    std::ostringstream out, err;
    REQUIRE(run_ir_diff({{run.path().string()}, kSoftmax, "all"}, out, err) == exit_ok);
    CHECK(out.str().find("TTGIR: 0 of 2 launches differ, 2 more only in source locations\n") != std::string::npos);
    CHECK(out.str().find("PTX: 0 of 2 launches differ, 2 more only in source locations\n") != std::string::npos);
    CHECK(out.str().find("LLIR: 0 of 2 launches differ, 2 more only in source locations\n") != std::string::npos);
    CHECK(out.str().find("  TTGIR: differs only in source locations (baseline: " + Source{}.file + "; candidate: " +
                         candidate.file + ")\n") != std::string::npos);
    CHECK(out.str().find("@@") == std::string::npos);  // no diff printed
  }
}

TEST_CASE("a real TTGIR change between two folders is named, its diff free of location lines, first") {
  TempDir run("ir_locations_real");
  make_run(run, /*candidate_fusion=*/false, Source{"/work/b/examples/python/triton_kernels.py", 1});
  const auto comparison = compare_run_artifacts({run.path().string()}, {kSoftmax, kNorm});
  CHECK(ttgir_differences(comparison) == std::vector<std::string>{kSoftmax});
  CHECK(ttgir_location_differences(comparison) == std::vector<std::string>{kSoftmax, kNorm});  // the norm launch
  std::ostringstream text;
  print_artifact_changes(comparison, false, text);
  const std::string listing = text.str();
  const auto real = listing.find("softmax_kernel.ttgir differs\n");
  REQUIRE(real != std::string::npos);
  CHECK(real < listing.find("differs only in source locations"));  // real differences listed first

  std::ostringstream out, err;
  REQUIRE(run_ir_diff({{run.path().string()}, kSoftmax, "ttgir"}, out, err) == exit_ok);
  const std::string diff = out.str();
  CHECK(diff.find("--- baseline/0-softmax_kernel/softmax_kernel.ttgir (source locations removed)") != std::string::npos);
  CHECK(diff.find("\n+    %1 = arith.addf %0, %c\n") != std::string::npos);
  CHECK(diff.find("triton_kernels.py") == diff.find("triton_kernels.py; candidate"));  // only in the norm's line
  CHECK(diff.find("TTGIR: 1 of 2 launches differ, 1 more only in source locations\n") != std::string::npos);
  // Launch 0 (softmax) has the real difference; with the sides swapped in launch order it would
  // come first anyway, so the order is checked on a run where launch 1 holds it.
  TempDir second("ir_locations_order");
  for (int side = 0; side < 2; ++side) write_instance(second, side, kNorm, true, Source{{}, side});
  second.write("artifacts/side-1/" + isobench::ipc::artifact_folder_name(kNorm) + "/triton/1-norm_kernel/norm_kernel.ttgir",
               ttgir_text("norm_kernel", true, Source{{}, 1}));
  // ... and a launch the candidate alone makes (an extra pass), named in the closing lines.
  const std::string index = "artifacts/side-1/" + isobench::ipc::artifact_folder_name(kNorm) + "/triton/kernels.json";
  json launches = json::parse(std::ifstream(second / index));
  launches["launches"].push_back({{"order", 2}, {"name", "scale_kernel"}, {"files", json::array()}});
  second.write(index, launches.dump());
  second.write("artifacts.json", archive_artifacts(second.path() / "artifacts", {kNorm}, 2).document.dump());
  std::ostringstream ordered;
  REQUIRE(run_ir_diff({{second.path().string()}, kNorm, "ttgir"}, ordered, err) == exit_ok);
  CHECK(ordered.str().find("== launch 1: norm_kernel") < ordered.str().find("== launch 0: softmax_kernel"));
  CHECK(ordered.str().find("== launch 2: scale_kernel\n  only in candidate\n") < ordered.str().find("== launch 0"));
  CHECK(ordered.str().find("\n1 launch only in candidate: 2 scale_kernel\n") != std::string::npos);
  CHECK(err.str().empty());
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
