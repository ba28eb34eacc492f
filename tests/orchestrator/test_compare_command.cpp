#include "orchestrator/commands/compare_command.hpp"

#include <doctest/doctest.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"

using namespace isobench::orchestrator;
using isobench::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// A fresh directory under the system temp folder, removed afterwards.
// Timing-like samples around 10 us; sigma 0.03 makes a 10% shift overlap (no separation).
std::vector<double> timings(std::uint64_t seed, double scale, int n = 30, double sigma = 0.03) {
  std::mt19937_64 engine(seed);
  std::lognormal_distribution<double> noise(0.0, sigma);
  std::vector<double> v(n);
  for (double& x : v) x = 1e-5 * scale * noise(engine);
  return v;
}

std::string lines_of(const std::vector<double>& values) {
  std::ostringstream s;
  s.precision(17);
  s << "# seconds per sample\n";
  for (double v : values) s << v << "\n\n";
  return s.str();
}

struct Outcome {
  int code;
  std::string out, err;
};

Outcome compare(CompareOptions options) {
  std::ostringstream out, err;
  const int code = run_compare(options, out, err);
  return {code, out.str(), err.str()};
}

Outcome compare_files(const std::string& a, const std::string& b, Format format = Format::table) {
  CompareOptions options;
  options.samples = {a, b};
  options.format = format;
  return compare(options);
}

// One bad-input line on stderr, nothing on stdout, exit code 2.
// What compare says of every two runs (not the two sides of one A/B run), on a line of its own.
const std::string kCaveat =
    "compare: caveat: two runs made at different times: the machine's drift between them is not controlled and can "
    "read as a change (orchestrate ab measures a change, both sides in one time window)\n";

void check_bad_input(const Outcome& o, const std::string& expected_err) {
  CHECK(o.code == 2);
  CHECK(o.out.empty());
  CHECK(o.err == expected_err + "\n");
}

}  // namespace

TEST_SUITE("compare --samples") {
  TEST_CASE("a 10% slowdown is SLOWER with exit code 1") {
    TempDir dir;
    const std::string a = dir.write("A.txt", lines_of(timings(1, 1.0)));
    const std::string b = dir.write("B.txt", lines_of(timings(2, 1.1)));
    const Outcome o = compare_files(a, b);
    CHECK(o.code == 1);
    CHECK(o.err.empty());
    CHECK(o.out.find("verdict: SLOWER") != std::string::npos);
    CHECK(o.out.find("Brunner-Munzel (t)") != std::string::npos);
    CHECK(o.out.find("Mann-Whitney U") != std::string::npos);
    CHECK(o.out.find("Hodges-Lehmann ratio B/A: ") != std::string::npos);
    CHECK(o.out.find("complete separation") == std::string::npos);

    const Outcome j = compare_files(a, b, Format::json);
    CHECK(j.code == 1);
    const auto parsed = nlohmann::json::parse(j.out);
    CHECK(parsed["verdict"] == "SLOWER");
    CHECK(parsed["brunner_munzel"]["t"]["less"]["p_value"].get<double>() < 1e-6);
    CHECK(parsed["brunner_munzel"]["t"]["greater"]["p_value"].get<double>() > 0.99);
    CHECK(parsed["brunner_munzel"]["normal"]["two-sided"]["df"].is_null());
    CHECK(parsed["brunner_munzel"]["t"]["two-sided"]["df"].get<double>() > 1);
    CHECK(parsed["mann_whitney"]["two-sided"]["p_value"].get<double>() < 1e-6);
    const double lo = parsed["hodges_lehmann"]["lo"], hi = parsed["hodges_lehmann"]["hi"];
    const double ratio = parsed["hodges_lehmann"]["ratio"];
    CHECK(ratio == doctest::Approx(1.1).epsilon(0.02));
    CHECK(lo > 1.02);
    CHECK(lo < ratio);
    CHECK(hi > ratio);

    // The reverse is FASTER, which fails only under --fail-on faster or any-change.
    CompareOptions reverse;
    reverse.samples = {b, a};
    CHECK(compare(reverse).code == 0);
    CHECK(compare(reverse).out.find("verdict: FASTER") != std::string::npos);
    reverse.rule.fail_on = FailOn::any_change;
    CHECK(compare(reverse).code == 1);
    reverse.rule.fail_on = FailOn::never;
    CHECK(compare(reverse).code == 0);
  }

  TEST_CASE("identical distributions are not SLOWER") {
    TempDir dir;
    const std::string a = dir.write("A.txt", lines_of(timings(3, 1.0)));
    const std::string b = dir.write("B.json", nlohmann::json(timings(4, 1.0)).dump());  // a JSON array
    const Outcome o = compare_files(a, b);
    CHECK(o.code == 0);
    // Neither direction: exit code 0 and no SLOWER would also pass a wrong FASTER.
    CHECK_MESSAGE((o.out.find("verdict: SAME") != std::string::npos ||
                   o.out.find("verdict: UNCERTAIN") != std::string::npos),
                  o.out);
    // Narrow noise and more samples: the interval fits inside the 2% floor.
    const std::string a2 = dir.write("A2.txt", lines_of(timings(5, 1.0, 60, 0.005)));
    const std::string b2 = dir.write("B2.txt", lines_of(timings(6, 1.0, 60, 0.005)));
    const Outcome same = compare_files(a2, b2);
    CHECK(same.code == 0);
    CHECK(same.out.find("verdict: SAME") != std::string::npos);
  }

  TEST_CASE("bad input: one line naming file, line and problem; exit code 2") {
    TempDir dir;
    const std::string good = dir.write("good.txt", "1.0\n2.0\n3.0\n");
    const std::string word = dir.write("B.txt", "1\n2\n3\n4\n# fine\n\nabc\n");
    check_bad_input(compare_files(good, word), "compare: " + word + ":7: not a number: \"abc\"");
    const std::string nan = dir.write("nan.txt", "1\nnan\n");
    check_bad_input(compare_files(good, nan), "compare: " + nan + ":2: not a finite number: \"nan\"");
    const std::string inf = dir.write("inf.txt", "1\n2\ninf\n");
    check_bad_input(compare_files(inf, good), "compare: " + inf + ":3: not a finite number: \"inf\"");
    const std::string negative = dir.write("neg.txt", "1\n-2e-6\n");
    check_bad_input(compare_files(good, negative), "compare: " + negative + ":2: a time must be positive: \"-2e-6\"");
    const std::string zero = dir.write("zero.txt", "1\n0\n");
    check_bad_input(compare_files(good, zero), "compare: " + zero + ":2: a time must be positive: \"0\"");
    const std::string one = dir.write("one.txt", "# only one\n1.5\n");
    check_bad_input(compare_files(good, one), "compare: " + one + ": needs at least 2 values, found 1");
    const std::string trailing = dir.write("trailing.txt", "1\n2.5x\n");
    check_bad_input(compare_files(good, trailing), "compare: " + trailing + ":2: not a number: \"2.5x\"");
    const std::string json_word = dir.write("bad.json", "[1.0, \"x\", 2.0]");
    check_bad_input(compare_files(good, json_word), "compare: " + json_word + ": element 2: not a number: \"x\"");
    const std::string missing = dir / "missing.txt";
    check_bad_input(compare_files(missing, good), "compare: " + missing + ": cannot open: No such file or directory");
  }

  TEST_CASE("the CLI subcommand parses options and stores the exit code") {
    TempDir dir;
    const std::string a = dir.write("A.txt", lines_of(timings(5, 1.0)));
    const std::string b = dir.write("B.txt", lines_of(timings(6, 1.1)));
    CLI::App app("orchestrate");
    int exit_code = -1;
    register_compare_command(app, exit_code);
    app.parse("compare --samples " + a + " " + b + " --json --alpha 0.01 --threshold 0.05", false);
    CHECK(exit_code == 1);
    CLI::App app2("orchestrate");
    register_compare_command(app2, exit_code);
    app2.parse("compare --samples " + a + " " + b + " --fail-on never", false);
    CHECK(exit_code == 0);
    CLI::App app3("orchestrate");
    register_compare_command(app3, exit_code);
    CHECK_THROWS(app3.parse("compare --samples " + a + " " + b + " --fail-on sometimes", false));
    CHECK_THROWS(app3.parse("compare --samples " + a + " " + b + " --json --csv", false));
  }
}

namespace {

nlohmann::json instance(const std::string& id, int inner = 20) {
  return {{"id", id}, {"kernel", "cast"}, {"params", {{"n", 1024}}}, {"inner", inner},
          {"timer", "events"}, {"statistic", "mean"}, {"cold_cache", false}};
}

// Journal lines of the given values; `fields` (GPU identity, a side) is added to every line.
std::string samples_jsonl(const std::vector<std::pair<std::string, std::vector<double>>>& series,
                          const nlohmann::json& fields = nlohmann::json::object()) {
  std::ostringstream s;
  s.precision(17);
  for (const auto& [id, values] : series)
    for (std::size_t k = 0; k < values.size(); ++k) {
      nlohmann::json line{{"instance", id}, {"value", values[k]}, {"sample", k}};
      line.update(fields);
      s << line.dump() << "\n";
    }
  return s.str();
}

void write_run(const TempDir& dir, const std::string& name, const std::vector<nlohmann::json>& instances, const std::string& samples,
               int schema_version = 1) {
  dir.write(name + "/plan.json", nlohmann::json{{"schema_version", schema_version}, {"instances", instances}}.dump());
  dir.write(name + "/samples.jsonl", samples);
}

}  // namespace

TEST_SUITE("compare RUN_A RUN_B") {
  TEST_CASE("joins by id, lists one-sided and mismatched instances apart, drops a torn last line") {
    TempDir dir;
    write_run(dir, "A", {instance("slow"), instance("steady"), instance("gone"), instance("inner", 20)},
              samples_jsonl({{"slow", timings(11, 1.0)}, {"steady", timings(12, 1.0)}, {"gone", timings(13, 1.0)},
                             {"inner", timings(14, 1.0)}}));
    write_run(dir, "B", {instance("slow"), instance("steady"), instance("new"), instance("inner", 40)},
              samples_jsonl({{"slow", timings(21, 1.1)}, {"steady", timings(22, 1.0)}, {"new", timings(23, 1.0)},
                             {"inner", timings(24, 1.0)}}) +
                  "{\"instance\": \"slow\", \"val");  // killed mid-write
    CompareOptions options;
    options.runs = {dir / "A", dir / "B"};
    const Outcome o = compare(options);
    CHECK(o.code == 1);
    // Two runs, made at different times: exactly one caveat line.
    CHECK(o.err == "compare: warning: " + (dir / "B") + "/samples.jsonl:121: torn last line dropped\n" + kCaveat);
    // Every refusal names its remedy.
    CHECK(o.out.find("not compared: gone: only in " + (dir / "A") + " (measure it in both runs, with one sweep)\n") !=
          std::string::npos);
    CHECK(o.out.find("not compared: new: only in " + (dir / "B") + " (measure it in both runs, with one sweep)\n") !=
          std::string::npos);
    CHECK(o.out.find("not compared: inner: plans differ in inner (measure " + (dir / "B") + " again with --like " +
                     (dir / "A") + ")\n") != std::string::npos);
    CHECK(o.out.find("; 3 not compared: 1 only in " + (dir / "A") + " (measure it in both runs, with one sweep), 1 "
                     "plans differ in inner (measure " + (dir / "B") + " again with --like " + (dir / "A") + "), 1 "
                     "only in " + (dir / "B") + " (measure it in both runs, with one sweep) -> exit 1\n") !=
          std::string::npos);
    CHECK(o.out.find("geometric mean of HL ratios B/A over 2 instances") != std::string::npos);

    options.format = Format::json;
    const auto parsed = nlohmann::json::parse(compare(options).out);
    REQUIRE(parsed["instances"].size() == 2);
    CHECK(parsed["instances"][0]["instance"] == "slow");
    CHECK(parsed["instances"][0]["verdict"] == "SLOWER");
    CHECK(parsed["instances"][0]["n_b"] == 30);  // the torn 31st sample is not counted
    CHECK(parsed["instances"][1]["instance"] == "steady");
    CHECK(parsed["instances"][1]["verdict"] != "SLOWER");
    // Holm over two instances: the smaller p doubled.
    const double p0 = parsed["instances"][0]["p"], p1 = parsed["instances"][1]["p"];
    CHECK(parsed["instances"][0]["p_holm"].get<double>() == doctest::Approx(std::min(1.0, 2 * p0)));
    CHECK(parsed["instances"][1]["p_holm"].get<double>() >= p1);
    CHECK(parsed["not_compared"].size() == 3);
    CHECK(parsed["not_compared"][1]["remedy"] == "measure " + (dir / "B") + " again with --like " + (dir / "A"));
    CHECK(parsed["caveat"].get<std::string>().starts_with("two runs made at different times"));
    const double geo = parsed["geometric_mean_hl_ratio"];
    const double r0 = parsed["instances"][0]["hl_ratio"], r1 = parsed["instances"][1]["hl_ratio"];
    CHECK(geo == doctest::Approx(std::sqrt(r0 * r1)));

    options.format = Format::csv;
    const std::string csv = compare(options).out;
    CHECK(csv.rfind("instance,n A,n B,median A,median B,B/A medians,HL ratio B/A,interval,p,p Holm,verdict\n", 0) == 0);
    CHECK(csv.find("\nslow,30,30,") != std::string::npos);
    options.format = Format::markdown;
    const std::string md = compare(options).out;
    CHECK(md.find("| slow | 30 | 30 |") != std::string::npos);
    CHECK(md.find("SLOWER |") != std::string::npos);
    options.rule.fail_on = FailOn::never;
    CHECK(compare(options).code == 0);
  }

  TEST_CASE("every refusal names its remedy; one A/B run gets no caveat") {
    TempDir dir;
    auto other_kernel = instance("x");
    other_kernel["kernel"] = "rmsnorm";
    auto summary = instance("y");
    summary["imported_values"] = "summary";
    write_run(dir, "A", {instance("w"), instance("x"), instance("y"), instance("z")},
              samples_jsonl({{"w", timings(40, 1.0)}, {"x", timings(41, 1.0)}, {"y", {1e-5}}, {"z", timings(42, 1.0)}}));
    write_run(dir, "B", {instance("w"), other_kernel, summary, instance("z")},
              samples_jsonl({{"w", timings(39, 1.0)}, {"x", timings(43, 1.0)}, {"y", {1e-5}}, {"z", {1e-5}}}));
    CompareOptions options;
    options.runs = {dir / "A", dir / "B"};
    options.format = Format::json;
    const Outcome o = compare(options);
    const auto parsed = nlohmann::json::parse(o.out);
    REQUIRE(parsed["not_compared"].size() == 3);
    CHECK(parsed["not_compared"][0]["reason"] == "plans differ in kernel");
    CHECK(parsed["not_compared"][0]["remedy"] == "the two sweeps define it differently: measure both runs with one sweep");
    CHECK(parsed["not_compared"][1]["remedy"] ==
          "imported as a summary only: import the tool's per-repetition values (docs/history.md)");
    CHECK(parsed["not_compared"][2]["remedy"] == "finish it with orchestrate --resume " + (dir / "B"));
    CHECK(o.code == 0);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    CHECK(o.err.find("compare: caveat: two runs made at different times") == 0);

    // The sides of one A/B run share their time window: no caveat.
    std::ostringstream samples;
    for (const auto side : {0, 1})
      for (const double v : timings(44 + side, 1.0))
        samples << nlohmann::json{{"instance", "x"}, {"value", v}, {"side", side}}.dump() << "\n";
    dir.write("ab/plan.json",
              nlohmann::json{{"schema_version", 1}, {"instances", {instance("x")}}, {"schedule", {{"sides", 2}}}}.dump());
    dir.write("ab/samples.jsonl", samples.str());
    options.runs = {dir / "ab"};
    options.format = Format::table;
    const Outcome ab = compare(options);
    CHECK(ab.code == 0);
    CHECK(ab.err.find("caveat") == std::string::npos);
  }

  TEST_CASE("a run planned before idle_gap_ms and realloc existed compares with one at their defaults") {
    TempDir dir;
    auto with_defaults = instance("x");
    with_defaults["idle_gap_ms"] = 0;
    with_defaults["realloc"] = false;
    auto with_gap = instance("x");
    with_gap["idle_gap_ms"] = 50.0;
    write_run(dir, "old", {instance("x")}, samples_jsonl({{"x", timings(31, 1.0)}}));
    write_run(dir, "new", {with_defaults}, samples_jsonl({{"x", timings(32, 1.0)}}));
    write_run(dir, "gap", {with_gap}, samples_jsonl({{"x", timings(33, 1.0)}}));
    CompareOptions options;
    options.runs = {dir / "old", dir / "new"};
    options.format = Format::json;
    const auto parsed = nlohmann::json::parse(compare(options).out);
    CHECK(parsed["instances"].size() == 1);
    CHECK(parsed["not_compared"].empty());
    options.runs = {dir / "old", dir / "gap"};
    check_bad_input(compare(options), "compare: nothing to compare: every shared instance was measured differently "
                                      "(x: plans differ in idle_gap_ms): measure " + (dir / "gap") + " again with --like " +
                                      (dir / "old"));
  }

  TEST_CASE("bad run directories") {
    TempDir dir;
    write_run(dir, "A", {instance("x")}, samples_jsonl({{"x", timings(1, 1.0)}}));
    write_run(dir, "future", {instance("x")}, samples_jsonl({{"x", timings(2, 1.0)}}), 2);
    CompareOptions options;
    options.runs = {dir / "A", dir / "future"};
    check_bad_input(compare(options), "compare: " + (dir / "future") +
                                          "/plan.json: schema_version 2 is newer than this orchestrate reads (1)");
    options.runs = {dir / "A", dir / "nowhere"};
    check_bad_input(compare(options), "compare: " + (dir / "nowhere") + ": not a readable run directory");
    write_run(dir, "broken", {instance("x")}, "{\"instance\":\"x\",\"value\":1e-5}\nnot json\n{\"instance\":\"x\",\"value\":2e-5}\n");
    options.runs = {dir / "A", dir / "broken"};
    check_bad_input(compare(options), "compare: " + (dir / "broken") + "/samples.jsonl:2: invalid JSON");
    write_run(dir, "negative", {instance("x")}, "{\"instance\":\"x\",\"value\":1e-5}\n{\"instance\":\"x\",\"value\":-1}\n");
    options.runs = {dir / "A", dir / "negative"};
    check_bad_input(compare(options), "compare: " + (dir / "negative") + "/samples.jsonl:2: a time must be positive: \"-1\"");
    options.runs = {dir / "A"};
    check_bad_input(compare(options),
                    "compare: " + (dir / "A") + ": not an A/B run (one side only); give two run directories");
    options.runs = {dir / "A", dir / "A", dir / "A"};
    check_bad_input(compare(options),
                    "compare: needs two run directories, one A/B run directory, or --samples A B");
    // Runs whose shared instances were all measured differently: nothing to compare is bad input.
    write_run(dir, "inner20", {instance("x", 20)}, samples_jsonl({{"x", timings(12, 1.0)}}));
    write_run(dir, "inner40", {instance("x", 40)}, samples_jsonl({{"x", timings(12, 1.0)}}));
    options.runs = {dir / "inner20", dir / "inner40"};
    check_bad_input(compare(options),
                    "compare: nothing to compare: every shared instance was measured differently (x: plans differ in "
                    "inner): measure " + (dir / "inner40") + " again with --like " + (dir / "inner20"));
  }
}

namespace {

// A side's kernel record as the worker writes it (worker/kernel_record.hpp), reduced to what
// compare reads.
nlohmann::json kernel_record(const std::vector<std::string>& names, int truncated = 0) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& n : names) kernels.push_back({{"name", n}, {"launches_per_sample", 20}, {"share", 1.0 / names.size()}});
  return {{"pass", "untimed"}, {"inner", 20}, {"kernels", kernels}, {"truncated_kernels", truncated}};
}

void write_kernels(const TempDir& dir, const std::string& run, const nlohmann::json& instances) {
  dir.write(run + "/kernels.json", nlohmann::json{{"schema_version", 1}, {"instances", instances}}.dump());
}

// One A/B run of one instance ("ab/"): the baseline's and the candidate's samples interleaved.
void write_ab_run(const TempDir& dir, const std::string& id, const std::vector<double>& base,
                  const std::vector<double>& cand) {
  std::ostringstream samples;
  samples.precision(17);
  for (std::size_t k = 0; k < base.size(); ++k) {
    samples << nlohmann::json{{"instance", id}, {"value", base[k]}, {"side", 0}}.dump() << "\n";
    samples << nlohmann::json{{"instance", id}, {"value", cand[k]}, {"side", 1}}.dump() << "\n";
  }
  dir.write("ab/plan.json", nlohmann::json{{"schema_version", 1}, {"instances", {instance(id)}}, {"schedule", {{"sides", 2}}}}
                                .dump());
  dir.write("ab/samples.jsonl", samples.str());
}

const std::string kGemmA = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1";
const std::string kGemmB = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64_warpgroupsize2x1x1";

}  // namespace

TEST_SUITE("compare: kernel records") {
  TEST_CASE("two runs whose instance ran other kernels are flagged in every format; the verdict stays") {
    TempDir dir;
    const auto a_samples = samples_jsonl({{"gemm", timings(31, 1.0)}, {"cast", timings(32, 1.0)}});
    const auto b_samples = samples_jsonl({{"gemm", timings(33, 1.1)}, {"cast", timings(34, 1.0)}});
    write_run(dir, "A", {instance("gemm"), instance("cast")}, a_samples);
    write_run(dir, "B", {instance("gemm"), instance("cast")}, b_samples);
    CompareOptions options;
    options.runs = {dir / "A", dir / "B"};
    options.format = Format::json;
    const auto without = nlohmann::json::parse(compare(options).out);

    write_kernels(dir, "A", {{"gemm", {kernel_record({kGemmA, "splitk_reduce"})}},
                             {"cast", {kernel_record({"cast_kernel(float const*, __nv_bfloat16*, unsigned long)"})}}});
    write_kernels(dir, "B", {{"gemm", {kernel_record({kGemmB, "splitk_reduce"})}},
                             {"cast", {kernel_record({"cast_kernel(float const*, __nv_bfloat16*, unsigned long)"})}}});

    const Outcome j = compare(options);
    CHECK(j.code == 1);  // gemm is SLOWER: the exit code is the verdict's, kernels or not
    CHECK(j.err == kCaveat);
    const auto parsed = nlohmann::json::parse(j.out);
    REQUIRE(parsed["instances"].size() == 2);
    CHECK(parsed["instances"][0]["instance"] == "gemm");
    CHECK(parsed["instances"][0]["kernels_differ"] == true);
    CHECK(parsed["instances"][1]["kernels_differ"] == false);
    // The verdicts are those of the same comparison without kernel records.
    CHECK(parsed["instances"][0]["verdict"] == "SLOWER");
    CHECK(parsed["instances"][0]["verdict"] == without["instances"][0]["verdict"]);
    CHECK(parsed["instances"][1]["verdict"] == without["instances"][1]["verdict"]);
    CHECK(parsed["instances"][0]["p_holm"] == without["instances"][0]["p_holm"]);
    CHECK_FALSE(without["instances"][0].contains("kernels_differ"));
    CHECK_FALSE(without.contains("kernels"));
    REQUIRE(parsed["kernels"]["changes"].size() == 1);
    const auto& change = parsed["kernels"]["changes"][0];
    CHECK(change["instance"] == "gemm");
    CHECK(change["only_a"] == nlohmann::json::array({kGemmA}));
    CHECK(change["only_b"] == nlohmann::json::array({kGemmB}));
    CHECK(parsed["kernels"]["instances_recorded"] == 2);

    options.format = Format::table;
    const std::string table = compare(options).out;
    CHECK(table.find("gemm: kernels differ: only B ran " + kGemmB + "; only A ran " + kGemmA) != std::string::npos);
    CHECK(table.find("cast: kernels differ") == std::string::npos);
    // The kernels column beside the verdict.
    CHECK(table.find("verdict  kernels\n") != std::string::npos);
    CHECK(table.find("SLOWER   differ\n") != std::string::npos);
    CHECK(table.find("same\n") != std::string::npos);

    options.format = Format::markdown;
    const std::string md = compare(options).out;
    CHECK(md.find("| verdict | kernels |") != std::string::npos);
    CHECK(md.find("| SLOWER | differ |") != std::string::npos);
    CHECK(md.find("- `gemm`: kernels differ: only B ran " + kGemmB) != std::string::npos);

    options.format = Format::csv;
    const std::string csv = compare(options).out;
    CHECK(csv.rfind("instance,n A,n B,median A,median B,B/A medians,HL ratio B/A,interval,p,p Holm,verdict,"
                    "kernels_differ,kernel_change\n",
                    0) == 0);
    CHECK(csv.find(",SLOWER,true,kernels differ: only B ran " + kGemmB + "; only A ran " + kGemmA + "\n") !=
          std::string::npos);
    CHECK(csv.find("\ncast,") != std::string::npos);
    CHECK(csv.find(",false,\n") != std::string::npos);
  }

  TEST_CASE("the same kernels on both sides: no flag; records on one side only: nothing to say") {
    TempDir dir;
    write_run(dir, "A", {instance("gemm")}, samples_jsonl({{"gemm", timings(41, 1.0)}}));
    write_run(dir, "B", {instance("gemm")}, samples_jsonl({{"gemm", timings(42, 1.0)}}));
    write_kernels(dir, "A", {{"gemm", {kernel_record({kGemmA, "splitk_reduce"})}}});
    write_kernels(dir, "B", {{"gemm", {kernel_record({"splitk_reduce", kGemmA})}}});  // order does not matter
    CompareOptions options;
    options.runs = {dir / "A", dir / "B"};
    options.format = Format::json;
    auto parsed = nlohmann::json::parse(compare(options).out);
    CHECK(parsed["instances"][0]["kernels_differ"] == false);
    CHECK(parsed["kernels"]["changes"].empty());
    options.format = Format::table;
    const std::string table = compare(options).out;
    CHECK(table.find("kernels differ") == std::string::npos);
    CHECK(table.find("kernels: the same kernel names on both sides for all 1 instances with records") != std::string::npos);
    options.format = Format::csv;
    CHECK(compare(options).out.find(",false,\n") != std::string::npos);

    // B ran without --record-kernels (or CUPTI was missing there: a reason instead of kernels).
    write_kernels(dir, "B", {{"gemm", {{{"reason", "cannot load libcupti"}}}}});
    options.format = Format::json;
    parsed = nlohmann::json::parse(compare(options).out);
    CHECK_FALSE(parsed["instances"][0].contains("kernels_differ"));
    CHECK_FALSE(parsed.contains("kernels"));
    options.format = Format::csv;
    CHECK(compare(options).out.find("kernels_differ") == std::string::npos);
  }

  TEST_CASE("one A/B run: the candidate's kernels against the baseline's") {
    TempDir dir;
    write_ab_run(dir, "gemm", timings(51, 1.0), timings(52, 1.0));
    write_kernels(dir, "ab", {{"gemm", {kernel_record({kGemmA}), kernel_record({kGemmB}, 3)}}});
    CompareOptions options;
    options.runs = {dir / "ab"};
    const Outcome o = compare(options);
    CHECK(o.code == 0);
    CHECK(o.out.find("gemm: kernels differ: only candidate ran " + kGemmB + "; only baseline ran " + kGemmA +
                     " (a record left its smallest kernels out to fit: some may be missing)") != std::string::npos);
    options.format = Format::json;
    const auto parsed = nlohmann::json::parse(compare(options).out);
    CHECK(parsed["kernels"]["a"] == "baseline");
    CHECK(parsed["kernels"]["b"] == "candidate");
    CHECK(parsed["kernels"]["changes"][0]["truncated"] == true);
  }

  TEST_CASE("a model step per iteration: launches, GPU time, host enqueue, flags and the kernels that moved") {
    TempDir dir;
    write_ab_run(dir, "bert", timings(71, 1.0), timings(72, 1.2));
    // Records of a pass of 4 iterations (worker/iteration_accounting.hpp's "iteration"): the
    // candidate's AdamW is unfused (more, smaller kernels), its softmax 2.1 -> 2.6 ms, its gemm
    // within 1%, its layer norm moved by 0.02 ms (under 1% of the step: not listed).
    auto kernel = [](const std::string& name, double ms_per_iteration) {
      return nlohmann::json{{"name", name}, {"launches_per_sample", 4}, {"total_gpu_ns", ms_per_iteration * 4e6}};
    };
    auto record = [](nlohmann::json kernels, double launches, double gpu_ms, double enqueue_ms, bool host_bound) {
      return nlohmann::json{{"pass", "untimed"},
                            {"inner", 4},
                            {"kernels_per_launch", launches},
                            {"kernels", std::move(kernels)},
                            {"truncated_kernels", 0},
                            {"iteration",
                             {{"iterations", 4},
                              {"gpu_ns", gpu_ms * 1e6},
                              {"host_enqueue_ns", enqueue_ms * 1e6},
                              {"synchronizations", 0},
                              {"host_bound", host_bound},
                              {"blocking_launch", false}}}};
    };
    const auto baseline = record({kernel("gemm_128x1024x30522", 20.0), kernel("softmax", 2.1), kernel("layer_norm", 3.0),
                                  kernel("fused_adamw", 4.0)},
                                 2011, 69.1, 12.0, false);
    const auto candidate = record({kernel("gemm_128x1024x30522", 20.1), kernel("softmax", 2.6), kernel("layer_norm", 3.02),
                                   kernel("adamw_step", 9.0)},
                                  4122, 75.0, 40.0, true);
    write_kernels(dir, "ab", {{"bert", {baseline, candidate}}});
    CompareOptions options;
    options.runs = {dir / "ab"};
    const Outcome o = compare(options);
    CHECK(o.code == 1);  // SLOWER: the verdict is the step time's
    CHECK(o.out.find("bert: kernels differ: only candidate ran adamw_step; only baseline ran fused_adamw") !=
          std::string::npos);
    CHECK(o.out.find("bert: per iteration: 2011 -> 4122 kernel launches; GPU 69.10 ms -> 75.00 ms; host enqueue "
                     "12.00 ms -> 40.00 ms; only candidate host-bound; softmax: 2.100 ms -> 2.600 ms\n") !=
          std::string::npos);
    options.format = Format::json;
    const auto parsed = nlohmann::json::parse(compare(options).out);
    REQUIRE(parsed["kernels"]["per_iteration"].size() == 1);
    const auto& row = parsed["kernels"]["per_iteration"][0];
    CHECK(row["kernel_launches_b"] == 4122);
    REQUIRE(row["moved_kernels"].size() == 1);
    CHECK(row["moved_kernels"][0]["name"] == "softmax");
    CHECK(row["moved_kernels"][0]["b_gpu_ns"].get<double>() == doctest::Approx(2.6e6));
    CHECK(row["iteration_b"]["host_bound"] == true);

    // Identical records (an A/A run) list no moved kernel and no flag.
    write_kernels(dir, "ab", {{"bert", {baseline, baseline}}});
    options.format = Format::table;
    const std::string same = compare(options).out;
    CHECK(same.find("bert: per iteration: 2011 -> 2011 kernel launches; GPU 69.10 ms -> 69.10 ms; host enqueue "
                    "12.00 ms -> 12.00 ms\n") != std::string::npos);
  }

  TEST_CASE("a damaged or newer kernels.json is a warning, never a failed comparison") {
    TempDir dir;
    write_run(dir, "A", {instance("gemm")}, samples_jsonl({{"gemm", timings(61, 1.0)}}));
    write_run(dir, "B", {instance("gemm")}, samples_jsonl({{"gemm", timings(62, 1.0)}}));
    dir.write("A/kernels.json", "{\"schema_version\": 1, \"instances\": ");  // cut short
    write_kernels(dir, "B", {{"gemm", {kernel_record({kGemmA})}}});
    CompareOptions options;
    options.runs = {dir / "A", dir / "B"};
    Outcome o = compare(options);
    CHECK(o.code == 0);
    CHECK(o.err == "compare: warning: " + (dir / "A") +
                       "/kernels.json: not a JSON object with \"instances\"; kernel records ignored\n" + kCaveat);
    CHECK(o.out.find("kernels") == std::string::npos);
    dir.write("A/kernels.json", nlohmann::json{{"schema_version", 2}, {"instances", nlohmann::json::object()}}.dump());
    o = compare(options);
    CHECK(o.code == 0);
    CHECK(o.err.find("schema_version 2 is newer than this orchestrate reads (1); kernel records ignored") !=
          std::string::npos);
  }
}

namespace {

// The GPU fields of a sample line as a worker pinned to a CUDA device writes them.
nlohmann::json on_gpu(int ordinal, const std::string& uuid, const std::string& name) {
  return {{"gpu", ordinal}, {"gpu_uuid", uuid}, {"gpu_name", name}};
}

const std::string kUuid0 = "GPU-3f1c2a9e-6b7d-4e21-9c0a-55aa12ff0b31";
const std::string kUuid1 = "GPU-8d2e4b10-1a3c-4f5e-b6d7-0c9e8f7a6b5d";
const std::string kUuidH100 = "GPU-51e0c7d2-9f84-4b3a-a1c6-2d7e8f9a0b1c";
const std::string kH200 = "NVIDIA H200", kH100 = "NVIDIA H100 80GB HBM3";

Outcome compare_runs(const std::vector<std::string>& runs, GpuMatch match = GpuMatch::uuid,
                     Format format = Format::table) {
  CompareOptions options;
  options.runs = runs;
  options.gpu_match = match;
  options.format = format;
  return compare(options);
}

std::string refusal(const std::string& id, const std::string& problem, const std::string& a, const std::string& b,
                    const std::string& hint) {
  return "compare: instance \"" + id + "\": " + problem + ": " + a + "; " + b + " (" + hint + ")\n";
}

const std::string kUuidHint = "--gpu-match model compares GPUs of one model, --gpu-match any any GPUs";
const std::string kModelHint = "--gpu-match any compares any GPUs";

}  // namespace

TEST_SUITE("compare: GPU identity") {
  TEST_CASE("the same GPU on both sides compares, and every printer names it") {
    TempDir dir;
    write_run(dir, "A", {instance("x")}, samples_jsonl({{"x", timings(71, 1.0)}}, on_gpu(0, kUuid0, kH200)));
    write_run(dir, "B", {instance("x")}, samples_jsonl({{"x", timings(72, 1.0)}}, on_gpu(3, kUuid0, kH200)));
    const Outcome o = compare_runs({dir / "A", dir / "B"});
    CHECK(o.code == 0);
    CHECK(o.err == kCaveat);
    CHECK(o.out.find("B: " + (dir / "B") + "\nGPU (A and B): " + kUuid0 + " (NVIDIA H200)\n") != std::string::npos);

    const auto parsed =
        nlohmann::json::parse(compare_runs({dir / "A", dir / "B"}, GpuMatch::uuid, Format::json).out);
    REQUIRE(parsed["instances"].size() == 1);
    const nlohmann::json gpu = nlohmann::json::array({{{"uuid", kUuid0}, {"name", kH200}}});
    CHECK(parsed["instances"][0]["gpus_a"] == gpu);
    CHECK(parsed["instances"][0]["gpus_b"] == gpu);

    const std::string csv = compare_runs({dir / "A", dir / "B"}, GpuMatch::uuid, Format::csv).out;
    CHECK(csv.find(",verdict,gpu A,gpu B\n") != std::string::npos);
    CHECK(csv.find("," + kUuid0 + " (NVIDIA H200)," + kUuid0 + " (NVIDIA H200)\n") != std::string::npos);
    const std::string md = compare_runs({dir / "A", dir / "B"}, GpuMatch::uuid, Format::markdown).out;
    CHECK(md.find("\nGPU (A and B): " + kUuid0 + " (NVIDIA H200)\n") != std::string::npos);
  }

  TEST_CASE("different GPUs are refused, every such instance on a line of its own, and no verdicts") {
    TempDir dir;
    const auto series = [](std::uint64_t seed) {
      return std::vector<std::pair<std::string, std::vector<double>>>{{"x", timings(seed, 1.0)},
                                                                       {"y", timings(seed + 1, 1.0)}};
    };
    write_run(dir, "A", {instance("x"), instance("y")}, samples_jsonl(series(81), on_gpu(0, kUuid0, kH200)));
    write_run(dir, "B", {instance("x"), instance("y")}, samples_jsonl(series(83), on_gpu(0, kUuid1, kH200)));
    const std::string a = dir / "A", b = dir / "B";
    const std::string both = a + " ran on " + kUuid0 + " (NVIDIA H200)";
    const std::string other = b + " on " + kUuid1 + " (NVIDIA H200)";
    const Outcome o = compare_runs({a, b});
    CHECK(o.code == 2);
    CHECK(o.out.empty());
    CHECK(o.err == refusal("x", "different GPUs", both, other, kUuidHint) +
                       refusal("y", "different GPUs", both, other, kUuidHint));
    CHECK(compare_runs({a, b}, GpuMatch::uuid, Format::json).out.empty());

    // One model: --gpu-match model compares them; the JSON rows keep each side's GPU.
    const Outcome model = compare_runs({a, b}, GpuMatch::model, Format::json);
    CHECK(model.code == 0);
    CHECK(model.err == kCaveat);
    const auto parsed = nlohmann::json::parse(model.out);
    REQUIRE(parsed["instances"].size() == 2);
    CHECK(parsed["instances"][0]["gpus_a"][0]["uuid"] == kUuid0);
    CHECK(parsed["instances"][0]["gpus_b"][0]["uuid"] == kUuid1);
    const std::string table = compare_runs({a, b}, GpuMatch::model).out;
    CHECK(table.find("GPU: A " + kUuid0 + " (NVIDIA H200); B " + kUuid1 + " (NVIDIA H200)\n") != std::string::npos);
    CHECK(compare_runs({a, b}, GpuMatch::any).code == 0);
  }

  TEST_CASE("--gpu-match model refuses two models; any compares them") {
    TempDir dir;
    write_run(dir, "A", {instance("x")}, samples_jsonl({{"x", timings(91, 1.0)}}, on_gpu(0, kUuid0, kH200)));
    write_run(dir, "B", {instance("x")}, samples_jsonl({{"x", timings(92, 1.0)}}, on_gpu(0, kUuidH100, kH100)));
    const std::string a = dir / "A", b = dir / "B";
    const std::string on_a = a + " ran on " + kUuid0 + " (NVIDIA H200)";
    const std::string on_b = b + " on " + kUuidH100 + " (NVIDIA H100 80GB HBM3)";
    const Outcome uuid = compare_runs({a, b});
    CHECK(uuid.code == 2);
    CHECK(uuid.err == refusal("x", "different GPUs", on_a, on_b, kUuidHint));
    const Outcome model = compare_runs({a, b}, GpuMatch::model);
    CHECK(model.code == 2);
    CHECK(model.out.empty());
    CHECK(model.err == refusal("x", "different GPU models", on_a, on_b, kModelHint));
    const Outcome any = compare_runs({a, b}, GpuMatch::any, Format::json);
    CHECK(any.code == 0);
    CHECK(any.err == kCaveat);
    CHECK(nlohmann::json::parse(any.out)["instances"][0]["gpus_b"][0]["name"] == kH100);
  }

  TEST_CASE("an instance whose samples on one side came from two GPUs is refused under uuid") {
    TempDir dir;
    const auto values = timings(101, 1.0);
    const std::vector<double> first(values.begin(), values.begin() + 15), second(values.begin() + 15, values.end());
    write_run(dir, "A", {instance("x")},
              samples_jsonl({{"x", first}}, on_gpu(0, kUuid0, kH200)) +
                  samples_jsonl({{"x", second}}, on_gpu(1, kUuid1, kH200)));
    write_run(dir, "B", {instance("x")}, samples_jsonl({{"x", timings(102, 1.0)}}, on_gpu(0, kUuid0, kH200)));
    const std::string a = dir / "A", b = dir / "B";
    const Outcome o = compare_runs({a, b});
    CHECK(o.code == 2);
    CHECK(o.err == refusal("x", "samples from more than one GPU on one side",
                           a + " ran on " + kUuid0 + " (NVIDIA H200), " + kUuid1 + " (NVIDIA H200)",
                           b + " on " + kUuid0 + " (NVIDIA H200)", kUuidHint));
    // Both GPUs are one model.
    const Outcome model = compare_runs({a, b}, GpuMatch::model, Format::json);
    CHECK(model.code == 0);
    CHECK(nlohmann::json::parse(model.out)["instances"][0]["gpus_a"].size() == 2);
  }

  TEST_CASE("runs whose samples name no GPU compare as before") {
    TempDir dir;
    write_run(dir, "cpu", {instance("x")}, samples_jsonl({{"x", timings(111, 1.0)}}));
    write_run(dir, "old", {instance("x")}, samples_jsonl({{"x", timings(112, 1.0)}}, {{"side", 0}}));
    write_run(dir, "gpu", {instance("x")}, samples_jsonl({{"x", timings(113, 1.0)}}, on_gpu(0, kUuid0, kH200)));
    // A worker given an ordinal that opened no device (a CPU kernel) names no GPU.
    write_run(dir, "ordinal", {instance("x")}, samples_jsonl({{"x", timings(114, 1.0)}}, {{"gpu", 1}}));
    const Outcome plain = compare_runs({dir / "cpu", dir / "old"});
    CHECK(plain.code == 0);
    CHECK(plain.err == kCaveat);
    CHECK(plain.out.find("GPU") == std::string::npos);
    const auto parsed = nlohmann::json::parse(compare_runs({dir / "cpu", dir / "ordinal"}, GpuMatch::uuid,
                                                           Format::json).out);
    CHECK_FALSE(parsed["instances"][0].contains("gpus_a"));
    CHECK(compare_runs({dir / "cpu", dir / "ordinal"}, GpuMatch::uuid, Format::csv).out.find("gpu") ==
          std::string::npos);
    // One side names its GPU, the other none: nothing to check, and the known side is shown.
    const Outcome half = compare_runs({dir / "cpu", dir / "gpu"});
    CHECK(half.code == 0);
    CHECK(half.err == kCaveat);
    CHECK(half.out.find("GPU: A none named; B " + kUuid0 + " (NVIDIA H200)\n") != std::string::npos);
    const auto half_json =
        nlohmann::json::parse(compare_runs({dir / "cpu", dir / "gpu"}, GpuMatch::uuid, Format::json).out);
    CHECK(half_json["instances"][0]["gpus_a"] == nlohmann::json::array());
    CHECK(half_json["instances"][0]["gpus_b"][0]["uuid"] == kUuid0);
  }

  TEST_CASE("an A/B run whose sides ran on different GPUs is refused") {
    TempDir dir;
    const std::string samples = samples_jsonl({{"x", timings(121, 1.0)}}, on_gpu(0, kUuid0, kH200)) +
                                samples_jsonl({{"x", timings(122, 1.0)}}, [] {
                                  auto fields = on_gpu(1, kUuid1, kH200);
                                  fields["side"] = 1;
                                  return fields;
                                }());
    dir.write("ab/plan.json", nlohmann::json{{"schema_version", 1},
                                             {"instances", {instance("x")}},
                                             {"schedule", {{"sides", 2}}}}
                                  .dump());
    dir.write("ab/samples.jsonl", samples);
    const std::string ab = dir / "ab";
    const Outcome o = compare_runs({ab});
    CHECK(o.code == 2);
    CHECK(o.out.empty());
    CHECK(o.err == refusal("x", "different GPUs", ab + " (baseline) ran on " + kUuid0 + " (NVIDIA H200)",
                           ab + " (candidate) on " + kUuid1 + " (NVIDIA H200)", kUuidHint));
    CHECK(compare_runs({ab}, GpuMatch::model).code == 0);
  }

  TEST_CASE("GPU fields of the wrong type are bad input naming file, line and field") {
    TempDir dir;
    write_run(dir, "A", {instance("x")}, samples_jsonl({{"x", timings(131, 1.0)}}));
    const std::string good = "{\"instance\":\"x\",\"value\":1e-5}\n";
    const auto check_line = [&](const std::string& fields, const std::string& problem) {
      write_run(dir, "B", {instance("x")}, good + "{\"instance\":\"x\",\"value\":2e-5," + fields + "}\n");
      check_bad_input(compare_runs({dir / "A", dir / "B"}), "compare: " + (dir / "B") + "/samples.jsonl:2: " + problem);
    };
    const std::string name = "\"gpu_name\":\"NVIDIA H200\"", uuid = "\"gpu_uuid\":\"" + kUuid0 + "\"";
    check_line("\"gpu\":\"0\"", "\"gpu\" is not an integer: \"0\"");
    check_line("\"gpu\":1.5", "\"gpu\" is not an integer: 1.5");
    check_line("\"gpu_uuid\":7," + name, "\"gpu_uuid\" is not a non-empty string: 7");
    check_line("\"gpu_uuid\":\"\"," + name, "\"gpu_uuid\" is not a non-empty string: \"\"");
    check_line(uuid + ",\"gpu_name\":null", "\"gpu_name\" is not a non-empty string: null");
    check_line(uuid + ",\"gpu_name\":\"\"", "\"gpu_name\" is not a non-empty string: \"\"");
    check_line(uuid, "\"gpu_uuid\" without \"gpu_name\"");
    check_line(name, "\"gpu_name\" without \"gpu_uuid\"");
  }

  TEST_CASE("--gpu-match on the command line") {
    TempDir dir;
    write_run(dir, "A", {instance("x")}, samples_jsonl({{"x", timings(141, 1.0)}}, on_gpu(0, kUuid0, kH200)));
    write_run(dir, "B", {instance("x")}, samples_jsonl({{"x", timings(142, 1.0)}}, on_gpu(1, kUuid1, kH200)));
    const std::string runs = (dir / "A") + " " + (dir / "B");
    int exit_code = -1;
    const auto parse = [&](const std::string& args) {
      CLI::App app("orchestrate");
      register_compare_command(app, exit_code);
      app.parse("compare " + runs + args, false);
    };
    parse(" --gpu-match model");
    CHECK(exit_code == 0);
    parse(" --gpu-match any");
    CHECK(exit_code == 0);
    CHECK_THROWS(parse(" --gpu-match serial"));
  }
}
