#include "orchestrator/commands/compare_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <tuple>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "stats/brunner_munzel.hpp"
#include "stats/descriptive.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/multiple_testing.hpp"
#include "stats/verdict.hpp"
#include "orchestrator/commands/artifact_diff.hpp"
#include "ipc/instance_table.hpp"
#include "orchestrator/commands/compare_inputs.hpp"
#include "orchestrator/commands/kernel_diff.hpp"

namespace isobench::orchestrator {
namespace {

using nlohmann::json;

// The plan fields that define what a sample measures: instances differing in any of them
// measure different things and are never compared. The kernel, its parameters and the pinned
// inner count, and every setting the settings table marks as changing a sample.
const std::vector<std::string>& measurement_fields() {
  static const std::vector<std::string> fields = [] {
    std::vector<std::string> f = {"kernel", "params", "inner"};
    for (const auto& spec : ipc::setting_specs())
      if (spec.changes_sample && spec.travel == ipc::SettingTravel::instance_table) f.emplace_back(spec.name);
    return f;
  }();
  return fields;
}

// ---------------------------------------------------------------------------------------------
// The comparison data model: every printer renders these.

struct Comparison {
  std::string id;
  std::size_t n_a = 0, n_b = 0;
  double median_a = 0, median_b = 0;
  stats::HodgesLehmannRatio hl;
  stats::BrunnerMunzelResult bm;  // two-sided, Student t
  double p_adjusted = 1;          // Holm over all compared instances
  stats::Verdict verdict = stats::Verdict::uncertain;
  GpuSet gpus_a, gpus_b;  // the GPUs each side's samples name; empty where none does
  double median_ratio() const { return median_b / median_a; }
};

struct Excluded {
  std::string id;
  std::string reason;
};

struct Report {
  std::string a, b;  // what was compared: files or run directories
  std::vector<Comparison> compared;
  std::vector<Excluded> excluded;
  double geometric_mean_ratio = 1;
  ArtifactComparison artifacts;  // run directories: the archived artifacts that differ
  KernelComparison kernels;      // run directories with kernels.json: which ran other kernels
  GpuSet gpus_a, gpus_b;         // the GPUs of all compared instances, per side
  // Instances whose sides ran on GPUs --gpu-match does not allow: one line each, and no verdicts.
  std::vector<std::string> gpu_refusals;
  bool names_gpus() const { return !gpus_a.empty() || !gpus_b.empty(); }
};

Comparison compare_samples(const std::string& id, const std::vector<double>& a, const std::vector<double>& b,
                           double confidence) {
  Comparison c;
  c.id = id;
  c.n_a = a.size();
  c.n_b = b.size();
  c.median_a = stats::median(a);
  c.median_b = stats::median(b);
  c.hl = stats::hodges_lehmann_ratio(a, b, confidence);
  c.bm = stats::brunner_munzel(a, b);
  c.p_adjusted = c.bm.p_value;
  return c;
}

void finish(Report& report, const CompareOptions& options) {
  std::vector<double> p;
  for (const auto& c : report.compared) p.push_back(c.bm.p_value);
  const auto adjusted = stats::holm_adjust(p);
  double log_sum = 0;
  for (std::size_t i = 0; i < report.compared.size(); ++i) {
    auto& c = report.compared[i];
    c.p_adjusted = adjusted[i];
    c.verdict = stats::decide({c.hl.lo, c.hl.hi, c.p_adjusted, options.alpha, options.threshold});
    log_sum += std::log(c.hl.ratio);
  }
  if (!report.compared.empty()) report.geometric_mean_ratio = std::exp(log_sum / static_cast<double>(report.compared.size()));
}

std::string measurement_difference(const json& a, const json& b) {
  // A plan written before a setting existed ran with its default, so an absent field is the
  // instance table's own default (ipc::WorkerInstance), and old runs stay comparable with new ones.
  static const json defaults = ipc::to_json(ipc::WorkerInstance{});
  std::string differing;
  for (const auto& field : measurement_fields()) {
    const json none = defaults.contains(field) ? defaults[field] : json();
    const json& va = a.contains(field) ? a[field] : none;
    const json& vb = b.contains(field) ? b[field] : none;
    if (va != vb) differing += (differing.empty() ? "" : ", ") + field;
  }
  return differing;
}

// A run's per-instance data for `id`; empty where it has none.
template <typename Value>
Value entry(const std::map<std::string, Value>& by_id, const std::string& id) {
  const auto it = by_id.find(id);
  return it == by_id.end() ? Value{} : it->second;
}

// The two sides of one A/B run, as two runs with the same plan.
std::pair<Run, Run> split_sides(Run run) {
  if (!run.ab) throw InputError(run.dir + ": not an A/B run (one side only); give two run directories");
  Run candidate = run;
  candidate.samples = std::move(run.candidate_samples);
  candidate.gpus = std::move(run.candidate_gpus);
  candidate.dir = run.dir + " (candidate)";
  run.dir += " (baseline)";
  return {std::move(run), std::move(candidate)};
}

// ---------------------------------------------------------------------------------------------
// GPU identity: the two sides of an instance are compared only on GPUs --gpu-match allows.

// "GPU-3f1c... (NVIDIA H200), GPU-8d2e... (NVIDIA H200)"
std::string gpus_text(const GpuSet& gpus) {
  std::string text;
  for (const auto& gpu : gpus) text += (text.empty() ? "" : ", ") + gpu.uuid + " (" + gpu.name + ")";
  return text;
}

// Why two sides measured on these GPUs may not be compared under `match`; empty when they may.
// A side whose samples name no GPU (CPU kernels, older runs) leaves nothing to check.
std::string gpu_mismatch(const GpuSet& a, const GpuSet& b, GpuMatch match) {
  if (match == GpuMatch::any || a.empty() || b.empty()) return {};
  const auto key = match == GpuMatch::uuid ? &GpuIdentity::uuid : &GpuIdentity::name;
  const auto distinct = [key](const GpuSet& gpus) {
    std::set<std::string> keys;
    for (const auto& gpu : gpus) keys.insert(gpu.*key);
    return keys;
  };
  const auto ka = distinct(a), kb = distinct(b);
  const std::string what = match == GpuMatch::uuid ? "GPU" : "GPU model";
  if (ka.size() > 1 || kb.size() > 1) return "samples from more than one " + what + " on one side";
  return ka == kb ? std::string() : "different " + what + "s";
}

std::string gpu_refusal(const std::string& id, const std::string& mismatch, const std::string& dir_a,
                        const GpuSet& a, const std::string& dir_b, const GpuSet& b, GpuMatch match) {
  return "instance \"" + id + "\": " + mismatch + ": " + dir_a + " ran on " + gpus_text(a) + "; " + dir_b + " on " +
         gpus_text(b) + " (" +
         (match == GpuMatch::uuid ? "--gpu-match model compares GPUs of one model, --gpu-match any any GPUs)"
                                  : "--gpu-match any compares any GPUs)");
}

Report compare_runs(const CompareOptions& options, std::ostream& err) {
  Run a, b;
  if (options.runs.size() == 1) {
    std::tie(a, b) = split_sides(read_run(options.runs[0], err));
  } else {
    a = read_run(options.runs[0], err);
    b = read_run(options.runs[1], err);
  }
  Report report;
  report.a = a.dir;
  report.b = b.dir;
  for (const auto& id : a.order) {
    if (!b.plan.count(id)) {
      report.excluded.push_back({id, "only in " + a.dir});
      continue;
    }
    const std::string differing = measurement_difference(a.plan.at(id), b.plan.at(id));
    if (!differing.empty()) {
      report.excluded.push_back({id, "plans differ in " + differing});
      continue;
    }
    const auto sa = entry(a.samples, id), sb = entry(b.samples, id);
    if (sa.size() < 2 || sb.size() < 2) {
      report.excluded.push_back({id, "fewer than 2 samples (" + std::to_string(sa.size()) + " in " + a.dir + ", " +
                                         std::to_string(sb.size()) + " in " + b.dir + ")"});
      continue;
    }
    const GpuSet ga = entry(a.gpus, id), gb = entry(b.gpus, id);
    if (const std::string mismatch = gpu_mismatch(ga, gb, options.gpu_match); !mismatch.empty()) {
      report.gpu_refusals.push_back(gpu_refusal(id, mismatch, a.dir, ga, b.dir, gb, options.gpu_match));
      continue;
    }
    report.compared.push_back(compare_samples(id, sa, sb, options.confidence));
    report.compared.back().gpus_a = ga;
    report.compared.back().gpus_b = gb;
    report.gpus_a.insert(ga.begin(), ga.end());
    report.gpus_b.insert(gb.begin(), gb.end());
  }
  if (!report.gpu_refusals.empty()) return report;
  for (const auto& id : b.order)
    if (!a.plan.count(id)) report.excluded.push_back({id, "only in " + b.dir});
  std::vector<std::string> shared_ids;
  for (const auto& id : a.order)
    if (b.plan.count(id)) shared_ids.push_back(id);
  report.artifacts = compare_run_artifacts(options.runs, shared_ids);
  std::vector<std::string> compared_ids;
  for (const auto& c : report.compared) compared_ids.push_back(c.id);
  report.kernels = compare_run_kernels(options.runs, compared_ids, err);
  finish(report, options);
  return report;
}

// ---------------------------------------------------------------------------------------------
// Printers

std::string format(const char* spec, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, spec, v);
  return buffer;
}

// 1.234e-5 -> "12.34 us"
std::string format_time(double seconds) {
  const double magnitude = std::abs(seconds);
  if (magnitude >= 1) return format("%#.4g s", seconds);
  if (magnitude >= 1e-3) return format("%#.4g ms", seconds * 1e3);
  if (magnitude >= 1e-6) return format("%#.4g us", seconds * 1e6);
  return format("%#.4g ns", seconds * 1e9);
}

std::string format_ratio(double r) { return std::isfinite(r) ? format("%.4f", r) : "inf"; }
std::string format_interval(const stats::HodgesLehmannRatio& hl) {
  return "[" + format_ratio(hl.lo) + ", " + format_ratio(hl.hi) + "]";
}
std::string format_p(double p) { return format("%.3g", p); }

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json gpus_json(const GpuSet& gpus) {
  json list = json::array();
  for (const auto& gpu : gpus) list.push_back({{"uuid", gpu.uuid}, {"name", gpu.name}});
  return list;
}

// The terminal and markdown name the GPUs once, for the whole comparison (JSON and CSV per
// instance); only for a report that names GPUs.
std::string gpus_line(const Report& report) {
  if (report.gpus_a == report.gpus_b) return "GPU (A and B): " + gpus_text(report.gpus_a);
  const auto side = [](const GpuSet& gpus) { return gpus.empty() ? std::string("none named") : gpus_text(gpus); };
  return "GPU: A " + side(report.gpus_a) + "; B " + side(report.gpus_b);
}

const std::vector<std::string> table_header{"instance", "n A", "n B", "median A", "median B", "B/A medians",
                                            "HL ratio B/A", "interval", "p", "p Holm", "verdict"};

std::vector<std::string> table_row(const Comparison& c) {
  return {c.id,
          std::to_string(c.n_a),
          std::to_string(c.n_b),
          format_time(c.median_a),
          format_time(c.median_b),
          format_ratio(c.median_ratio()),
          format_ratio(c.hl.ratio),
          format_interval(c.hl),
          format_p(c.bm.p_value),
          format_p(c.p_adjusted),
          std::string(stats::to_string(c.verdict))};
}

// The terminal and markdown table: with kernel records, a "kernels" column (differ / same) beside
// the verdict, so a verdict on code that ran other kernels is read as such.
std::vector<std::string> header_of(const Report& report) {
  auto header = table_header;
  if (report.kernels.shown()) header.push_back("kernels");
  return header;
}

std::vector<std::string> row_of(const Report& report, const Comparison& c) {
  auto row = table_row(c);
  if (report.kernels.shown()) row.push_back(kernels_cell(report.kernels, c.id));
  return row;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char ch : s) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

json comparison_json(const Comparison& c) {
  return {{"instance", c.id},
          {"n_a", c.n_a},
          {"n_b", c.n_b},
          {"median_a", c.median_a},
          {"median_b", c.median_b},
          {"median_ratio", c.median_ratio()},
          {"hl_ratio", c.hl.ratio},
          {"hl_lo", number(c.hl.lo)},
          {"hl_hi", number(c.hl.hi)},
          {"confidence", c.hl.confidence},
          {"bm_statistic", number(c.bm.statistic)},
          {"bm_df", number(c.bm.df)},
          {"p", c.bm.p_value},
          {"p_holm", c.p_adjusted},
          {"verdict", stats::to_string(c.verdict)}};
}

void print_report(const Report& report, const CompareOptions& options, std::ostream& out) {
  const std::string summary = "geometric mean of HL ratios B/A over " + std::to_string(report.compared.size()) +
                              " instances: " + format_ratio(report.geometric_mean_ratio);
  switch (options.format) {
    case CompareFormat::json: {
      json j = {{"a", report.a}, {"b", report.b}, {"alpha", options.alpha}, {"threshold", options.threshold},
                {"confidence", options.confidence}, {"instances", json::array()}, {"not_compared", json::array()},
                {"geometric_mean_hl_ratio", report.geometric_mean_ratio}};
      for (const auto& c : report.compared) {
        j["instances"].push_back(comparison_json(c));
        if (report.kernels.shown()) {
          const auto differ = report.kernels.differ(c.id);
          j["instances"].back()["kernels_differ"] = differ ? json(*differ) : json(nullptr);
        }
        if (report.names_gpus()) {
          j["instances"].back()["gpus_a"] = gpus_json(c.gpus_a);
          j["instances"].back()["gpus_b"] = gpus_json(c.gpus_b);
        }
      }
      for (const auto& e : report.excluded) j["not_compared"].push_back({{"instance", e.id}, {"reason", e.reason}});
      if (report.artifacts.shown()) j["artifacts"] = artifact_changes_json(report.artifacts);
      if (report.kernels.shown()) j["kernels"] = kernel_changes_json(report.kernels);
      out << j.dump(2) << "\n";
      return;
    }
    case CompareFormat::csv: {
      for (std::size_t i = 0; i < table_header.size(); ++i) out << (i ? "," : "") << csv_field(table_header[i]);
      // One more column, not a second table, so the CSV stays one table for any reader.
      if (report.artifacts.shown()) out << ",artifacts differ";
      if (report.kernels.shown()) out << ",kernels_differ,kernel_change";
      if (report.names_gpus()) out << ",gpu A,gpu B";
      out << "\n";
      for (const auto& c : report.compared) {
        // Raw numbers, not the rounded terminal text.
        out << csv_field(c.id) << "," << c.n_a << "," << c.n_b << "," << format("%.9g", c.median_a) << ","
            << format("%.9g", c.median_b) << "," << format("%.9g", c.median_ratio()) << ","
            << format("%.9g", c.hl.ratio) << ",\"[" << format("%.9g", c.hl.lo) << ", " << format("%.9g", c.hl.hi)
            << "]\"," << format("%.6g", c.bm.p_value) << "," << format("%.6g", c.p_adjusted) << ","
            << stats::to_string(c.verdict);
        if (report.artifacts.shown()) out << "," << csv_field(artifact_changes_cell(report.artifacts, c.id));
        if (report.kernels.shown()) {
          const auto differ = report.kernels.differ(c.id);
          const KernelChange* change = report.kernels.change(c.id);
          out << "," << (differ ? (*differ ? "true" : "false") : "") << ","
              << csv_field(change ? kernel_change_text(report.kernels, *change) : "");
        }
        if (report.names_gpus()) out << "," << csv_field(gpus_text(c.gpus_a)) << "," << csv_field(gpus_text(c.gpus_b));
        out << "\n";
      }
      return;
    }
    case CompareFormat::markdown: {
      out << "|";
      for (const auto& h : header_of(report)) out << " " << h << " |";
      out << "\n|";
      for (std::size_t i = 0; i < header_of(report).size(); ++i) out << (i == 0 ? " --- |" : " ---: |");
      out << "\n";
      for (const auto& c : report.compared) {
        out << "|";
        for (const auto& cell : row_of(report, c)) out << " " << cell << " |";
        out << "\n";
      }
      out << "\n" << summary << "\n";
      if (report.names_gpus()) out << "\n" << gpus_line(report) << "\n";
      for (const auto& e : report.excluded) out << "\nnot compared: " << e.id << ": " << e.reason;
      if (!report.excluded.empty()) out << "\n";
      if (report.artifacts.shown()) print_artifact_changes(report.artifacts, /*markdown=*/true, out);
      if (report.kernels.shown()) print_kernel_changes(report.kernels, /*markdown=*/true, out);
      return;
    }
    case CompareFormat::terminal: {
      std::vector<std::vector<std::string>> rows{header_of(report)};
      for (const auto& c : report.compared) rows.push_back(row_of(report, c));
      std::vector<std::size_t> width(rows.front().size(), 0);
      for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
      out << "A: " << report.a << "\nB: " << report.b << "\n";
      if (report.names_gpus()) out << gpus_line(report) << "\n";
      for (const auto& row : rows) {
        for (std::size_t i = 0; i < row.size(); ++i) {
          const std::string pad(width[i] - row[i].size(), ' ');
          out << (i ? "  " : "") << (i == 0 ? row[i] + pad : pad + row[i]);
        }
        out << "\n";
      }
      out << summary << " (alpha " << format_p(options.alpha) << " after Holm, noise floor "
          << format("%.3g", options.threshold * 100) << "%, " << format("%.3g", options.confidence * 100)
          << "% intervals)\n";
      for (const auto& e : report.excluded) out << "not compared: " << e.id << ": " << e.reason << "\n";
      if (report.artifacts.shown()) print_artifact_changes(report.artifacts, /*markdown=*/false, out);
      if (report.kernels.shown()) print_kernel_changes(report.kernels, /*markdown=*/false, out);
      return;
    }
  }
}

// --samples: one comparison, with both tests and every alternative.
void print_samples_detail(const Report& report, const std::vector<double>& a, const std::vector<double>& b,
                          const CompareOptions& options, std::ostream& out) {
  const Comparison& c = report.compared.front();
  using stats::Alternative;
  const Alternative alternatives[] = {Alternative::two_sided, Alternative::less, Alternative::greater};
  if (options.format == CompareFormat::json) {
    json j = {{"a", {{"file", report.a}, {"n", a.size()}, {"median", c.median_a}}},
              {"b", {{"file", report.b}, {"n", b.size()}, {"median", c.median_b}}},
              {"median_ratio", c.median_ratio()},
              {"alpha", options.alpha},
              {"threshold", options.threshold}};
    for (auto [name, dist] : {std::pair{"t", stats::BrunnerMunzelDistribution::t},
                              std::pair{"normal", stats::BrunnerMunzelDistribution::normal}}) {
      for (Alternative alt : alternatives) {
        const auto r = stats::brunner_munzel(a, b, alt, dist);
        const char* method = r.method == stats::BrunnerMunzelMethod::asymptotic   ? "asymptotic"
                             : r.method == stats::BrunnerMunzelMethod::separation ? "separation permutation"
                                                                                  : "all tied";
        j["brunner_munzel"][name][std::string(stats::to_string(alt))] = {
            {"statistic", number(r.statistic)}, {"df", number(r.df)}, {"p_value", r.p_value},
            {"relative_effect", r.relative_effect}, {"method", method}};
      }
    }
    for (Alternative alt : alternatives) {
      const auto r = stats::mann_whitney_u(a, b, alt);
      j["mann_whitney"][std::string(stats::to_string(alt))] = {
          {"u", r.u1}, {"p_value", r.p_value},
          {"method", r.method == stats::MannWhitneyMethod::exact ? "exact" : "asymptotic"}};
    }
    j["hodges_lehmann"] = {{"ratio", c.hl.ratio}, {"lo", number(c.hl.lo)}, {"hi", number(c.hl.hi)},
                           {"confidence", c.hl.confidence}};
    j["verdict"] = stats::to_string(c.verdict);
    out << j.dump(2) << "\n";
    return;
  }
  out << "A: " << report.a << "  n=" << a.size() << "  median " << format_time(c.median_a) << "\n";
  out << "B: " << report.b << "  n=" << b.size() << "  median " << format_time(c.median_b) << "\n";
  for (auto [name, dist] : {std::pair{"t", stats::BrunnerMunzelDistribution::t},
                            std::pair{"normal", stats::BrunnerMunzelDistribution::normal}}) {
    const auto two = stats::brunner_munzel(a, b, Alternative::two_sided, dist);
    out << "Brunner-Munzel (" << name << "): statistic " << format("%.4g", two.statistic);
    if (std::isfinite(two.df)) out << ", df " << format("%.4g", two.df);
    out << ", relative effect P(A<B) " << format("%.3f", two.relative_effect) << ", p";
    for (Alternative alt : alternatives)
      out << " " << stats::to_string(alt) << " " << format_p(stats::brunner_munzel(a, b, alt, dist).p_value);
    if (two.method == stats::BrunnerMunzelMethod::separation) out << " (complete separation: permutation p)";
    if (two.method == stats::BrunnerMunzelMethod::all_tied) out << " (all values equal)";
    out << "\n";
  }
  const auto mw = stats::mann_whitney_u(a, b);
  out << "Mann-Whitney U (" << (mw.method == stats::MannWhitneyMethod::exact ? "exact" : "normal approximation")
      << "): U " << format("%.6g", mw.u1) << ", p";
  for (Alternative alt : alternatives) out << " " << stats::to_string(alt) << " " << format_p(stats::mann_whitney_u(a, b, alt).p_value);
  out << "\n";
  out << "Hodges-Lehmann ratio B/A: " << format_ratio(c.hl.ratio) << " " << format_interval(c.hl) << " ("
      << format("%.3g", c.hl.confidence * 100) << "% interval); ratio of medians " << format_ratio(c.median_ratio())
      << "\n";
  out << "verdict: " << stats::to_string(c.verdict) << " (alpha " << format_p(options.alpha) << ", noise floor "
      << format("%.3g", options.threshold * 100) << "%)\n";
}

bool fails(const Report& report, FailOn fail_on) {
  for (const auto& c : report.compared) {
    const bool slower = c.verdict == stats::Verdict::slower, faster = c.verdict == stats::Verdict::faster;
    if ((fail_on == FailOn::slower && slower) || (fail_on == FailOn::faster && faster) ||
        (fail_on == FailOn::any_change && (slower || faster)))
      return true;
  }
  return false;
}

}  // namespace

int run_compare(const CompareOptions& options, std::ostream& out, std::ostream& err) {
  try {
    if (!(options.alpha > 0 && options.alpha < 1)) throw InputError("--alpha must lie in (0, 1)");
    if (!(options.threshold >= 0)) throw InputError("--threshold must be >= 0");
    if (!(options.confidence > 0 && options.confidence < 1)) throw InputError("--confidence must lie in (0, 1)");
    Report report;
    if (!options.samples.empty()) {
      if (options.samples.size() != 2 || !options.runs.empty())
        throw InputError("--samples takes exactly two files and no run directories");
      const auto a = read_sample_file(options.samples[0]);
      const auto b = read_sample_file(options.samples[1]);
      report.a = options.samples[0];
      report.b = options.samples[1];
      report.compared.push_back(compare_samples(options.samples[1] + " vs " + options.samples[0], a, b, options.confidence));
      finish(report, options);
      if (options.format == CompareFormat::terminal || options.format == CompareFormat::json)
        print_samples_detail(report, a, b, options, out);
      else
        print_report(report, options, out);
    } else {
      if (options.runs.empty() || options.runs.size() > 2)
        throw InputError("needs two run directories, one A/B run directory, or --samples A B");
      report = compare_runs(options, err);
      // Every refused instance is named before giving up, so one run shows all there is to fix.
      if (!report.gpu_refusals.empty()) {
        for (const auto& refusal : report.gpu_refusals) err << "compare: " << refusal << "\n";
        return 2;
      }
      // Runs that share instances, none of them measured alike, are not a comparison at all.
      if (report.compared.empty()) {
        for (const auto& e : report.excluded)
          if (e.reason.rfind("plans differ", 0) == 0)
            throw InputError("nothing to compare: every shared instance was measured differently (" + e.id + ": " +
                             e.reason + ")");
      }
      print_report(report, options, out);
    }
    return fails(report, options.fail_on) ? 1 : 0;
  } catch (const InputError& e) {
    err << "compare: " << e.what() << "\n";
    return 2;
  } catch (const std::invalid_argument& e) {  // from stats/: input the readers let through
    err << "compare: " << e.what() << "\n";
    return 2;
  }
}

void register_compare_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<CompareOptions>();
  auto fail_on = std::make_shared<std::string>("slower");
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Is B slower than A? Brunner-Munzel test, Hodges-Lehmann ratio B/A with its interval, and a verdict "
      "(SLOWER / FASTER / SAME / UNCERTAIN) per benchmark instance. Exit code 1 when a verdict named by "
      "--fail-on occurs, 2 on bad input.");
  cmd->add_option("runs", options->runs,
                  "two run directories RUN_A RUN_B (plan.json + samples.jsonl), joined by instance id; or one "
                  "A/B run directory (orchestrate ab), baseline against candidate")
      ->expected(1, 2)
      ->type_name("RUN_A [RUN_B]");
  cmd->add_option("--samples", options->samples,
                  "compare two sample files A B instead: one time in seconds per line (blank lines and # comments "
                  "allowed) or a JSON array of numbers")
      ->expected(2);
  cmd->add_option("--alpha", options->alpha, "significance level, after Holm's correction across instances")
      ->capture_default_str();
  cmd->add_option("--threshold", options->threshold,
                  "noise floor as a fraction: SLOWER needs the whole interval above 1+threshold, FASTER below "
                  "1/(1+threshold), SAME inside both")
      ->capture_default_str();
  cmd->add_option("--confidence", options->confidence, "confidence of the Hodges-Lehmann interval")
      ->capture_default_str();
  struct FormatFlags {
    bool json = false, markdown = false, csv = false;
  };
  auto flags = std::make_shared<FormatFlags>();
  auto* json_flag = cmd->add_flag("--json", flags->json, "print JSON (the same data as the table)");
  auto* markdown_flag = cmd->add_flag("--markdown", flags->markdown, "print a Markdown table");
  auto* csv_flag = cmd->add_flag("--csv", flags->csv, "print CSV");
  json_flag->excludes(markdown_flag)->excludes(csv_flag);
  markdown_flag->excludes(csv_flag);
  cmd->add_option("--fail-on", *fail_on, "which verdicts make the exit code 1")
      ->check(CLI::IsMember({"slower", "faster", "any-change", "never"}))
      ->capture_default_str();
  auto gpu_match = std::make_shared<std::string>("uuid");
  cmd->add_option("--gpu-match", *gpu_match,
                  "run directories: where both sides' samples name their GPU, the GPUs the two sides of an "
                  "instance may have run on: one and the same GPU (uuid), one GPU model (model), any (any); "
                  "other instances are refused (exit code 2)")
      ->check(CLI::IsMember({"uuid", "model", "any"}))
      ->capture_default_str();
  cmd->callback([options, fail_on, gpu_match, flags, &exit_code] {
    CompareOptions o = *options;
    o.format = flags->json       ? CompareFormat::json
               : flags->markdown ? CompareFormat::markdown
               : flags->csv      ? CompareFormat::csv
                                 : CompareFormat::terminal;
    o.fail_on = *fail_on == "faster"       ? FailOn::faster
                : *fail_on == "any-change" ? FailOn::any_change
                : *fail_on == "never"      ? FailOn::never
                                           : FailOn::slower;
    o.gpu_match = *gpu_match == "model" ? GpuMatch::model : *gpu_match == "any" ? GpuMatch::any : GpuMatch::uuid;
    exit_code = run_compare(o, std::cout, std::cerr);
  });
}

}  // namespace isobench::orchestrator
