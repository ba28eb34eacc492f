// The printers: a bimodal instance is flagged in summary.json and by every printer's summary, not
// averaged over silently; a unimodal one is not. Then the CI outputs (JUnit, Markdown summary) and
// the GitHub Actions job of docs/ci.md.

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <sstream>
#include <tuple>
#include <vector>

#include "orchestrator/commands/compare_command.hpp"
#include "orchestrator/printers/ci_printers.hpp"
#include "orchestrator/printers/printer.hpp"
#include "orchestrator/summary.hpp"
#include "stats/bimodality.hpp"
#include "temp_dir.hpp"

using namespace isobench::orchestrator;
using isobench::testing::TempDir;
namespace stats = isobench::stats;

namespace {

std::vector<InstanceSummary> rows() {
  InstanceSummary split, plain;
  split.id = "rmsnorm[rows=64,hidden=4096]";
  split.n = 15;
  split.median = 148.9e-6;
  split.modes = isobench::stats::bimodality(std::vector<double>{
      132.1e-6, 148.9e-6, 131.8e-6, 152.3e-6, 132.4e-6, 149.6e-6, 133.0e-6, 154.1e-6, 131.9e-6, 150.2e-6, 132.6e-6,
      148.2e-6, 132.2e-6, 153.4e-6, 151.0e-6});
  plain.id = "cast[n=1048576]";
  plain.n = 15;
  plain.median = 10e-6;
  plain.modes = isobench::stats::bimodality(std::vector<double>{10.0, 10.1, 9.9, 10.2, 9.8, 10.0, 10.1, 9.95});
  return {split, plain};
}

std::string print(Format f) {
  std::ostringstream out;
  make_printer(f)->summary(out, rows());
  return out.str();
}

}  // namespace

TEST_CASE("the bimodal instance is flagged in every format, the unimodal one nowhere") {
  REQUIRE(rows()[0].modes.bimodal);
  REQUIRE_FALSE(rows()[1].modes.bimodal);
  const std::string warning = "rmsnorm[rows=64,hidden=4096]: bimodal: 7 samples near 132.2 us, 8 near 150.6 us";
  const auto table = print(Format::table);
  CHECK(table.find("warning: " + warning) != std::string::npos);
  CHECK(table.find("cast[n=1048576]: bimodal") == std::string::npos);
  const auto markdown = print(Format::markdown);
  CHECK(markdown.find("**warning**: " + warning) != std::string::npos);
  CHECK(markdown.find("cast[n=1048576]: bimodal") == std::string::npos);
  const auto csv = print(Format::csv);
  CHECK(csv.find(",gpu,bimodal\n") != std::string::npos);
  CHECK(csv.find(",true\n") != std::string::npos);
  CHECK(csv.find(",false\n") != std::string::npos);
  const auto json = nlohmann::json::parse(print(Format::json));
  CHECK(json["instances"][0]["bimodal"] == true);
  CHECK(json["instances"][0]["modes"]["lower"]["n"] == 7);
  CHECK(json["instances"][0]["modes"]["upper"]["median"].get<double>() == doctest::Approx(150.6e-6));
  CHECK(json["instances"][1]["bimodal"] == false);
  CHECK_FALSE(json["instances"][1].contains("modes"));
}

// --- What a CI job shows (orchestrator/printers/ci_printers.hpp): JUnit XML validated against
// the JUnit schema (tests/orchestrator/junit.xsd, by xmllint), the Markdown summary's structure,
// and the GitHub Actions job of docs/ci.md.

namespace {

std::string source_dir() {
  const char* source = std::getenv("ISOBENCH_SOURCE_DIR");
  REQUIRE_MESSAGE(source != nullptr, "ISOBENCH_SOURCE_DIR is not set");
  return source;
}

Comparison compared(const std::string& id, stats::Verdict verdict, double ratio, double p_holm) {
  Comparison c;
  c.id = id;
  c.n_a = 20;
  c.n_b = 21;
  c.median_a = 12.3e-6;
  c.median_b = 12.3e-6 * ratio;
  c.hl.ratio = ratio;
  c.hl.lo = ratio - 0.01;
  c.hl.hi = ratio + 0.01;
  c.bm.p_value = p_holm / 4;
  c.p_adjusted = p_holm;
  c.verdict = verdict;
  return c;
}

// Four instances, one of each verdict, and one left out; ids with XML's and Markdown's markup.
ComparisonReport four_verdicts() {
  using isobench::stats::Verdict;
  ComparisonReport r;
  r.a = "runs/base";
  r.b = "runs/cand";
  r.compared = {compared("gemm[m=4096,dtype=bf16]", Verdict::slower, 1.0523, 0.00062),
                compared("cast<f32|bf16>&[n=1M]", Verdict::same, 1.001, 0.9),
                compared("softmax[rows=4096]", Verdict::faster, 0.91, 0.00031),
                compared("norm[\"rows\"=64]", Verdict::uncertain, 1.02, 0.04)};
  r.excluded = {{"scan[n=8]", "plans differ in inner", "measure B again with --like A"}};
  return r;
}

std::string junit_of(const CiReport& report) {
  std::ostringstream out;
  print_junit(out, report);
  return out.str();
}

// xmllint's verdict on `xml` against the committed schema: its exit code (0 valid) and output.
std::pair<int, std::string> validate(const std::string& xml) {
  TempDir dir("junit");
  const auto file = dir.write("report.xml", xml);
  const auto log = dir.path() / "xmllint.out";
  const std::string command = "xmllint --noout --schema '" + source_dir() + "/tests/orchestrator/junit.xsd' '" +
                              file.string() + "' > '" + log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
}

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("JUnit: a test case per instance, SLOWER a failure with ratio, interval and p, valid by the schema") {
  const ComparisonReport report = four_verdicts();
  const std::string xml = junit_of(ci_report(report, "orchestrate ab", report.exit_code()));
  const auto [code, log] = validate(xml);
  CHECK_MESSAGE(code == 0, log);
  CHECK(occurrences(xml, "<testcase ") == 5);
  CHECK(xml.find("<testsuite name=\"orchestrate ab\" tests=\"5\" failures=\"1\" errors=\"0\" skipped=\"2\"") !=
        std::string::npos);
  CHECK(occurrences(xml, "<failure ") == 1);
  CHECK(xml.find("<testcase name=\"gemm[m=4096,dtype=bf16]\" classname=\"isobench.ab\" time=\"0\">\n      <failure "
                 "type=\"SLOWER\" message=\"SLOWER: HL ratio B/A 1.0523 [1.0423, 1.0623] (95% interval), p 0.000155, "
                 "Holm 0.00062; median A 12.30 us, B 12.94 us (n 20 / 21)\">") != std::string::npos);
  CHECK(xml.find("<skipped message=\"UNCERTAIN: HL ratio B/A 1.0200") != std::string::npos);
  CHECK(xml.find("<skipped message=\"not compared: plans differ in inner (measure B again with --like A)\"/>") !=
        std::string::npos);
  CHECK(xml.find("name=\"cast&lt;f32|bf16&gt;&amp;[n=1M]\"") != std::string::npos);
  CHECK(xml.find("name=\"norm[&quot;rows&quot;=64]\"") != std::string::npos);
  CHECK(xml.find("<property name=\"gemm[m=4096,dtype=bf16].median_a_s\" value=\"1.23e-05\"/>") != std::string::npos);
  CHECK(xml.find("<property name=\"gemm[m=4096,dtype=bf16].n_b\" value=\"21\"/>") != std::string::npos);
  // The outcome's counts, then what the UNCERTAIN instance could not resolve, then what was not compared.
  CHECK(xml.find("<property name=\"outcome\" value=\"4 compared: 1 SLOWER, 1 FASTER, 1 SAME, 1 UNCERTAIN; ") !=
        std::string::npos);
  CHECK(xml.find("; 1 not compared") != std::string::npos);

  // --fail-on faster: the FASTER instance is the failure, the SLOWER one passes.
  ComparisonReport faster = four_verdicts();
  faster.rule.fail_on = FailOn::faster;
  const std::string fx = junit_of(ci_report(faster, "orchestrate compare", faster.exit_code()));
  CHECK(fx.find("<failure type=\"FASTER\"") != std::string::npos);
  CHECK(fx.find("<failure type=\"SLOWER\"") == std::string::npos);
  CHECK(fx.find("classname=\"isobench.compare\"") != std::string::npos);

  // The schema check can fail: a properties element inside a test case is refused.
  std::string bad = xml;
  bad.replace(bad.find("<system-out>"), 0, "<properties/>");
  CHECK(validate(bad).first != 0);
}

TEST_CASE("summary: the outcome line, SLOWER and FASTER first, the rest folded, the notes") {
  ComparisonReport report = four_verdicts();
  report.caveat = "two runs made at different times";
  std::ostringstream out;
  print_ci_summary(out, ci_report(report, "orchestrate ab", report.exit_code()));
  const std::string md = out.str();
  CHECK(md.rfind("<!-- isobench: orchestrate ab -->\n### isobench, orchestrate ab: regression\n\n**outcome**: 4 "
                 "compared: 1 SLOWER, 1 FASTER, 1 SAME, 1 UNCERTAIN; ",
                 0) == 0);
  CHECK(md.find("; 1 not compared") != std::string::npos);
  CHECK(md.find(" -> exit 1\n") != std::string::npos);
  const auto slower = md.find("| `gemm[m=4096,dtype=bf16]` | **SLOWER** | 1.0523 | [1.0423, 1.0623] | 0.00062 |");
  const auto faster = md.find("| `softmax[rows=4096]` | **FASTER** |");
  const auto fold = md.find("<details><summary>3 more instances: 1 SAME, 1 UNCERTAIN, 1 not compared</summary>");
  const auto same = md.find("| `cast<f32\\|bf16>&[n=1M]` | SAME |");
  const auto end = md.find("</details>");
  REQUIRE(slower != std::string::npos);
  REQUIRE(faster != std::string::npos);
  REQUIRE(fold != std::string::npos);
  REQUIRE(same != std::string::npos);
  CHECK(slower < faster);
  CHECK(faster < fold);
  CHECK(fold < same);
  CHECK(same < end);
  CHECK(md.find("- caveat: two runs made at different times\n", end) != std::string::npos);
  CHECK(md.find("- not compared: scan[n=8]: plans differ in inner (measure B again with --like A)\n", end) !=
        std::string::npos);
  // Every table row has as many cells as its header.
  std::istringstream lines(md);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("| ", 0) == 0) CHECK_MESSAGE(occurrences(line, " |") == 8, line);

  // Nothing changed: no table outside the fold, and the heading says it passed.
  ComparisonReport quiet;
  quiet.compared = {compared("a[n=1]", isobench::stats::Verdict::same, 1.0, 1.0)};
  std::ostringstream q;
  print_ci_summary(q, ci_report(quiet, "orchestrate compare", quiet.exit_code()));
  CHECK(q.str().find("### isobench, orchestrate compare: passed\n") != std::string::npos);
  CHECK(q.str().find("No instance is SLOWER or FASTER.\n\n<details><summary>1 instance: 1 SAME</summary>") !=
        std::string::npos);
}

// A compare of two sample files in `dir`, the second 10% slower: SLOWER, exit 1.
CompareOptions slower_pair(const TempDir& dir) {
  std::string a, b;
  for (int i = 0; i < 8; ++i) {
    a += std::to_string(10.0 + 0.01 * i) + "e-6\n";
    b += std::to_string(11.0 + 0.01 * i) + "e-6\n";
  }
  CompareOptions options;
  options.samples = {dir.write("a.txt", a).string(), dir.write("b.txt", b).string()};
  return options;
}

std::string contents(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("--junit and --summary: written by compare, refused before comparing when they cannot be") {
  TempDir dir("ci_outputs");
  CompareOptions options = slower_pair(dir);
  options.ci.junit = dir / "report.xml";
  options.ci.summary = dir / "summary.md";
  std::ostringstream out, err;
  REQUIRE(run_compare(options, out, err) == 1);
  const std::string xml = contents(options.ci.junit), md = contents(options.ci.summary);
  CHECK(validate(xml).first == 0);
  CHECK(xml.find("<failure type=\"SLOWER\"") != std::string::npos);
  CHECK(md.find("**outcome**: 1 compared: 1 SLOWER -> exit 1\n") != std::string::npos);

  for (const auto& [junit_path, summary_path, message] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {dir / "no/such/folder/r.xml", "", "--junit " + (dir / "no/such/folder/r.xml") + ": no folder "},
           {"", dir.path().string(), "--summary " + dir.path().string() + ": is a folder"}}) {
    CompareOptions bad = options;
    bad.ci.junit = junit_path;
    bad.ci.summary = summary_path;
    std::ostringstream bad_out, bad_err;
    CHECK(run_compare(bad, bad_out, bad_err) == 2);
    CHECK(bad_out.str().empty());
    CHECK(bad_err.str().find(message) != std::string::npos);
    CHECK(occurrences(bad_err.str(), "\n") == 1);
  }
}

TEST_CASE("--junit and --summary through symbolic links: the targets are written, the links kept") {
  namespace fs = std::filesystem;
  TempDir dir("ci_links");
  CompareOptions options = slower_pair(dir);
  fs::create_directories(dir.path() / "reports");
  fs::create_directories(dir.path() / "workspace");
  dir.write("reports/summary.md", "the last run's\n");
  // One relative link to a file not there yet, one absolute link to a file written before.
  fs::create_symlink("../reports/report.xml", dir.path() / "workspace/report.xml");
  fs::create_symlink(dir.path() / "reports/summary.md", dir.path() / "workspace/summary.md");
  options.ci.junit = dir / "workspace/report.xml";
  options.ci.summary = dir / "workspace/summary.md";
  std::ostringstream out, err;
  REQUIRE(run_compare(options, out, err) == 1);
  CHECK(fs::is_symlink(options.ci.junit));
  CHECK(fs::is_symlink(options.ci.summary));
  CHECK(contents(dir / "reports/report.xml").find("<failure type=\"SLOWER\"") != std::string::npos);
  CHECK(contents(dir / "reports/summary.md").find("**outcome**: 1 compared: 1 SLOWER -> exit 1\n") !=
        std::string::npos);
  // Nothing left beside either: the temporary files were renamed onto the targets.
  for (const char* folder : {"reports", "workspace"})
    CHECK(std::distance(fs::directory_iterator(dir.path() / folder), fs::directory_iterator()) == 2);

  fs::create_symlink("loop.xml", dir.path() / "workspace/loop.xml");
  options.ci.junit = dir / "workspace/loop.xml";
  std::ostringstream loop_out, loop_err;
  CHECK(run_compare(options, loop_out, loop_err) == 2);
  CHECK(loop_err.str() == "compare: --junit " + options.ci.junit + ": a loop of symbolic links\n");
}

TEST_CASE("docs/ci: the GitHub Actions job is YAML with what a workflow needs, and gates on the exit code") {
  const std::string file = source_dir() + "/docs/ci/github-actions.yml";
  const YAML::Node workflow = YAML::LoadFile(file);
  REQUIRE(workflow.IsMap());
  CHECK(workflow["name"].IsScalar());
  REQUIRE(workflow["on"].IsDefined());
  CHECK(workflow["on"]["pull_request"].IsDefined());
  REQUIRE(workflow["jobs"].IsMap());
  REQUIRE(workflow["jobs"].size() >= 1);
  for (const auto& job : workflow["jobs"]) {
    CAPTURE(job.first.as<std::string>());
    CHECK(job.second["runs-on"].IsDefined());
    const YAML::Node steps = job.second["steps"];
    REQUIRE(steps.IsSequence());
    std::string runs;
    for (const auto& step : steps) {
      CHECK((step["uses"].IsDefined() || step["run"].IsDefined()));
      if (step["run"].IsDefined()) runs += step["run"].as<std::string>() + "\n";
    }
    CHECK(runs.find("orchestrate ab") != std::string::npos);
    CHECK(runs.find("--junit") != std::string::npos);
    CHECK(runs.find("--summary") != std::string::npos);
    CHECK(runs.find("GITHUB_STEP_SUMMARY") != std::string::npos);
    CHECK(runs.find("|| true") == std::string::npos);  // the exit code is the gate: never swallowed
  }
}
