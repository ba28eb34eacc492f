#include "orchestrator/compare/comparison.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "ipc/instance_table.hpp"
#include "orchestrator/compare/resolution.hpp"
#include "orchestrator/format/numbers.hpp"
#include "stats/descriptive.hpp"
#include "stats/sweep_verdict.hpp"
#include "stats/verdict_feasibility.hpp"

namespace isobench::orchestrator {
namespace {

using nlohmann::json;

// The plan fields that define what a sample measures: instances differing in any of them measure
// different things and are never compared. The kernel, its parameters and the pinned inner
// count, and every setting the settings table marks as changing a sample.
const std::vector<std::string>& measurement_fields() {
  static const std::vector<std::string> fields = [] {
    std::vector<std::string> f = {"kernel", "params", "inner"};
    for (const auto* spec : ipc::sample_changing_settings()) f.emplace_back(spec->name);
    return f;
  }();
  return fields;
}

// plan.json's pytest.node_id of an instance: pytest's own name for a pytest file's test, which
// --json carries so that a row is matched to pytest -v and pytest-benchmark's JSON ("" for others).
std::string pytest_node_id(const nlohmann::json& planned) {
  if (!planned.contains("pytest") || !planned["pytest"].is_object()) return {};
  const auto& node_id = planned["pytest"].value("node_id", nlohmann::json());
  return node_id.is_string() ? node_id.get<std::string>() : std::string();
}

// plan.json's pytest.control of an instance: a control of a do_bench suite (isobench.do_bench).
bool pytest_control(const nlohmann::json& planned) {
  if (!planned.contains("pytest") || !planned["pytest"].is_object()) return false;
  const auto& control = planned["pytest"].value("control", nlohmann::json());
  return control.is_boolean() && control.get<bool>();
}

// An instance's sides, described; its test and verdict come from decide().
Comparison describe(const std::string& id, const std::vector<double>& a, const std::vector<double>& b) {
  Comparison c;
  c.id = id;
  c.n_a = a.size();
  c.n_b = b.size();
  c.median_a = stats::median(a);
  c.median_b = stats::median(b);
  return c;
}

// The verdict rule over the compared instances (`samples` in their order): stats::decide_sweep,
// the one function that decides (calibrate counts its verdicts through it too).
void decide(ComparisonReport& report, const std::vector<stats::SamplePair>& samples) {
  const VerdictRule& rule = report.rule;
  const auto verdicts = stats::decide_sweep(samples, {rule.alpha, rule.threshold, rule.confidence});
  double log_sum = 0;
  for (std::size_t i = 0; i < report.compared.size(); ++i) {
    auto& c = report.compared[i];
    c.bm = verdicts[i].test;
    c.hl = verdicts[i].ratio;
    c.p_adjusted = verdicts[i].p_adjusted;
    c.verdict = verdicts[i].verdict;
    log_sum += std::log(c.hl.ratio);
  }
  if (!report.compared.empty())
    report.geometric_mean_ratio = std::exp(log_sum / static_cast<double>(report.compared.size()));
}

std::vector<std::string> measurement_difference(const json& a, const json& b) {
  // A plan written before a setting existed ran with its default, so an absent field is the
  // instance table's own default (ipc::WorkerInstance), and old runs stay comparable with new ones.
  static const json defaults = ipc::to_json(ipc::WorkerInstance{});
  std::vector<std::string> differing;
  for (const auto& field : measurement_fields()) {
    const json none = defaults.contains(field) ? defaults[field] : json();
    const json& va = a.contains(field) ? a[field] : none;
    const json& vb = b.contains(field) ? b[field] : none;
    if (va != vb) differing.push_back(field);
  }
  return differing;
}

// Instances measured differently: --like makes a run take the other's inner counts and settings
// (orchestrator/run/like_run.hpp), but not another kernel or other parameters under the same id.
Excluded plans_differ(const std::string& id, const std::vector<std::string>& fields, const std::string& dir_a,
                      const std::string& dir_b) {
  std::string list;
  for (const auto& f : fields) list += (list.empty() ? "" : ", ") + f;
  const bool definition =
      std::any_of(fields.begin(), fields.end(), [](const auto& f) { return f == "kernel" || f == "params"; });
  return {id, "plans differ in " + list,
          definition ? "the two sweeps define it differently: measure both runs with one sweep"
                     : "measure " + dir_b + " again with --like " + dir_a};
}

// Too few samples: an imported summary holds one value; a run of ours lost them (failures, an
// interruption), which --resume measures again.
Excluded too_few_samples(const std::string& id, const Run& a, const Run& b, std::size_t na, std::size_t nb,
                         const std::string& dir_a, const std::string& dir_b) {
  const auto summary_only = [&id](const Run& run) {
    return run.plan.at(id).value("imported_values", std::string()) == "summary";
  };
  std::string remedy;
  if ((na < 2 && summary_only(a)) || (nb < 2 && summary_only(b)))
    remedy = "imported as a summary only: import the tool's per-repetition values (docs/history.md)";
  else if (dir_a == dir_b || (na < 2) != (nb < 2))
    remedy = "finish it with orchestrate --resume " + (na < 2 ? dir_a : dir_b);
  else
    remedy = "finish both with orchestrate --resume";
  return {id,
          "fewer than 2 samples (" + std::to_string(na) + " in " + a.dir + ", " + std::to_string(nb) + " in " + b.dir +
              ")",
          remedy};
}

// A run's per-instance data for `id`; empty where it has none.
template <typename Value>
Value entry(const std::map<std::string, Value>& by_id, const std::string& id) {
  const auto it = by_id.find(id);
  return it == by_id.end() ? Value{} : it->second;
}

// The two sides of one A/B run, as two runs with the same plan.
std::pair<Run, Run> split_sides(Run run) {
  if (!run.ab) throw UsageError(run.dir + ": not an A/B run (one side only); give two run directories");
  Run candidate = run;
  candidate.samples = std::move(run.candidate_samples);
  candidate.gpus = std::move(run.candidate_gpus);
  candidate.sample_index = std::move(run.candidate_sample_index);
  candidate.dir = run.dir + " (candidate)";
  run.dir += " (baseline)";
  return {std::move(run), std::move(candidate)};
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

SamplesByIndex by_index(const Run& run, const std::string& id) {
  SamplesByIndex out;
  const auto values = run.samples.find(id);
  const auto index = run.sample_index.find(id);
  if (values == run.samples.end() || index == run.sample_index.end()) return out;
  for (std::size_t i = 0; i < values->second.size(); ++i) out[index->second[i]] = values->second[i];
  return out;
}

// An A/B run sampled until a verdict: each instance's verdict is the look that stopped it, as the
// runner decided it, replayed from the journal (compare_request's alpha and threshold give way to
// the design the run was planned with). "p Holm" is the look's p scaled to the overall alpha:
// p x alpha / (the look's level), below alpha exactly when p is below the look's level.
void decide_sequentially(ComparisonReport& report, const Run& a, const Run& b, const SequentialPlan& plan) {
  const auto design = plan.design();
  report.rule.alpha = plan.alpha;
  report.rule.threshold = plan.threshold;
  report.sequential = plan;
  double log_sum = 0;
  for (auto& c : report.compared) {
    const SamplesByIndex sa = by_index(a, c.id), sb = by_index(b, c.id);
    const auto outcome = replay_looks(design, design.looks.size() - 1, sa, sb, plan.threshold);
    if (!outcome) continue;  // fewer samples than the first look: the fixed-n comparison stands
    const auto& at = design.looks[outcome->look];
    const auto medians_of_first = [n = outcome->n](const SamplesByIndex& by) {
      std::vector<double> v;
      for (const auto& [index, value] : by)
        if (index < n) v.push_back(value);
      return stats::median(v);
    };
    c.n_a = c.n_b = outcome->n;
    c.median_a = medians_of_first(sa);
    c.median_b = medians_of_first(sb);
    c.hl = outcome->decision.ratio;
    c.bm = outcome->decision.test;
    c.p_adjusted = at.alpha > 0 ? std::min(1.0, outcome->decision.p_value * plan.alpha / at.alpha) : 1.0;
    c.verdict = outcome->decision.verdict;
    c.look = outcome->look;
    c.futile = outcome->decision.futile;
    log_sum += std::log(c.hl.ratio);
  }
  if (!report.compared.empty())
    report.geometric_mean_ratio = std::exp(log_sum / static_cast<double>(report.compared.size()));
}

ComparisonReport compare_runs(const CompareRequest& request, std::ostream& warnings) {
  Run a, b;
  if (request.runs.size() == 1) {
    std::tie(a, b) = split_sides(read_run(request.runs[0], warnings));
  } else {
    a = read_run(request.runs[0], warnings);
    b = read_run(request.runs[1], warnings);
  }
  ComparisonReport report;
  report.rule = request.rule;
  report.a = a.dir;
  report.b = b.dir;
  struct Pair {
    std::string id;
    std::vector<double> a, b;
    GpuSet gpus_a, gpus_b;
  };
  // The run directories as a command line names them (an A/B run's two sides share one).
  const std::string& dir_a = request.runs.front();
  const std::string& dir_b = request.runs.back();
  const std::string one_sweep = "measure it in both runs, with one sweep";
  if (request.runs.size() == 2)
    report.caveat = "two runs made at different times: the machine's drift between them is not controlled and can "
                    "read as a change (orchestrate ab measures a change, both sides in one time window)";
  std::vector<Pair> pairs;
  for (const auto& id : a.order) {
    if (!b.plan.count(id)) {
      report.excluded.push_back({id, "only in " + a.dir, one_sweep});
      continue;
    }
    if (const auto differing = measurement_difference(a.plan.at(id), b.plan.at(id)); !differing.empty()) {
      report.excluded.push_back(plans_differ(id, differing, dir_a, dir_b));
      continue;
    }
    const auto sa = entry(a.samples, id), sb = entry(b.samples, id);
    if (sa.size() < 2 || sb.size() < 2) {
      report.excluded.push_back(too_few_samples(id, a, b, sa.size(), sb.size(), dir_a, dir_b));
      continue;
    }
    const GpuSet ga = entry(a.gpus, id), gb = entry(b.gpus, id);
    if (const std::string mismatch = gpu_mismatch(ga, gb, request.gpu_match); !mismatch.empty()) {
      report.gpu_refusals.push_back(gpu_refusal(id, mismatch, a.dir, ga, b.dir, gb, request.gpu_match));
      continue;
    }
    pairs.push_back({id, sa, sb, ga, gb});
  }
  std::vector<stats::SamplePair> samples;
  for (const auto& pair : pairs) {
    report.compared.push_back(describe(pair.id, pair.a, pair.b));
    report.compared.back().pytest_node_id = pytest_node_id(a.plan.at(pair.id));
    report.compared.back().control = pytest_control(a.plan.at(pair.id));
    samples.push_back({pair.a, pair.b});
    report.compared.back().gpus_a = pair.gpus_a;
    report.compared.back().gpus_b = pair.gpus_b;
    report.gpus_a.insert(pair.gpus_a.begin(), pair.gpus_a.end());
    report.gpus_b.insert(pair.gpus_b.begin(), pair.gpus_b.end());
  }
  if (!report.gpu_refusals.empty()) return report;
  decide(report, samples);
  for (const auto& id : b.order)
    if (!a.plan.count(id)) report.excluded.push_back({id, "only in " + b.dir, one_sweep});
  std::vector<std::string> shared_ids;
  for (const auto& id : a.order)
    if (b.plan.count(id)) shared_ids.push_back(id);
  report.artifacts = compare_run_artifacts(request.runs, shared_ids);
  std::vector<std::string> compared_ids;
  for (const auto& c : report.compared) compared_ids.push_back(c.id);
  report.kernels = compare_run_kernels(request.runs, compared_ids, warnings);
  if (request.runs.size() == 1 && !a.sequential.is_null()) {
    try {
      decide_sequentially(report, a, b, SequentialPlan::from_json(a.sequential));
    } catch (const std::runtime_error& e) {
      throw UsageError(request.runs[0] + "/plan.json: " + e.what());
    }
  } else {
    // The smallest n among the compared sets what the sweep could reach.
    std::size_t n_a = SIZE_MAX, n_b = SIZE_MAX;
    for (const auto& c : report.compared) n_a = std::min(n_a, c.n_a), n_b = std::min(n_b, c.n_b);
    if (!report.compared.empty()) report.unreachable = unreachable_verdict(n_a, n_b, report.compared.size(), report.rule);
  }
  // Runs that share instances, none of them measured alike, are not a comparison at all.
  if (report.compared.empty())
    for (const auto& e : report.excluded)
      if (e.reason.rfind("plans differ", 0) == 0)
        throw UsageError("nothing to compare: every shared instance was measured differently (" + e.id + ": " +
                         e.reason + "): " + e.remedy);
  return report;
}

ComparisonReport compare_sample_files(const CompareRequest& request) {
  if (request.samples.size() != 2 || !request.runs.empty())
    throw UsageError("--samples takes exactly two files and no run directories");
  const auto a = read_sample_file(request.samples[0]);
  const auto b = read_sample_file(request.samples[1]);
  ComparisonReport report;
  report.rule = request.rule;
  report.a = request.samples[0];
  report.b = request.samples[1];
  report.compared.push_back(describe(request.samples[1] + " vs " + request.samples[0], a, b));
  decide(report, {{a, b}});
  report.unreachable = unreachable_verdict(a.size(), b.size(), 1, request.rule);
  using stats::Alternative;
  const Alternative alternatives[] = {Alternative::two_sided, Alternative::less, Alternative::greater};
  // The other alternatives' permutation p-values, resolved at the rule's alpha (the verdict's
  // two-sided one is the same draws, resolved at Holm's levels: alpha itself for one instance).
  stats::PermutationOptions permutation;
  permutation.levels = {request.rule.alpha};
  SamplesDetail detail;
  for (auto [name, dist] : {std::pair{"t", stats::BrunnerMunzelDistribution::t},
                            std::pair{"normal", stats::BrunnerMunzelDistribution::normal}}) {
    SamplesDetail::Test test;
    test.distribution = name;
    for (int k = 0; k < 3; ++k) test.by_alternative[k] = stats::brunner_munzel(a, b, alternatives[k], dist, permutation);
    detail.brunner_munzel.push_back(test);
  }
  for (int k = 0; k < 3; ++k) detail.mann_whitney[k] = stats::mann_whitney_u(a, b, alternatives[k]);
  report.detail = std::move(detail);
  return report;
}

std::string plural(std::size_t n, const std::string& what) { return std::to_string(n) + " " + what; }

}  // namespace

std::size_t ComparisonReport::count(stats::Verdict v) const {
  std::size_t n = 0;
  for (const auto& c : compared) n += c.verdict == v;
  return n;
}

ComparisonReport::Controls ComparisonReport::controls() const {
  Controls counts;
  for (const auto& c : compared) {
    if (!c.control) continue;
    ++counts.n;
    counts.same += c.verdict == stats::Verdict::same;
    counts.changed += c.verdict == stats::Verdict::slower || c.verdict == stats::Verdict::faster;
  }
  return counts;
}

std::vector<std::string> ComparisonReport::control_lines() const {
  const Controls counts = controls();
  if (counts.n == 0) return {};
  std::vector<std::string> lines;
  lines.push_back("controls: " + std::to_string(counts.same) + " of " + std::to_string(counts.n) +
                  " SAME (the reference calls: FlagGems tests' torch operator, Liger-Kernel scripts' non-liger "
                  "providers, which an A/B of the kernel library leaves alone)");
  for (const auto& c : compared) {
    if (!c.control || c.verdict == stats::Verdict::same) continue;
    const std::string head = "warning: control " + c.id + " is " + std::string(stats::to_string(c.verdict)) +
                             " (HL ratio " + format_ratio(c.hl.ratio) + "): ";
    lines.push_back(head + (c.verdict == stats::Verdict::uncertain
                                ? "not shown SAME, so it does not vouch for the comparison (more samples may)"
                                : "the sides differ in more than the code under test, so the comparison is suspect "
                                  "(another GPU state, tuner database or environment)"));
  }
  return lines;
}

bool fails_on(FailOn rule, stats::Verdict verdict) {
  const bool slower = verdict == stats::Verdict::slower, faster = verdict == stats::Verdict::faster;
  switch (rule) {
    case FailOn::slower: return slower;
    case FailOn::faster: return faster;
    case FailOn::any_change: return slower || faster;
    case FailOn::uncertain: return slower || verdict == stats::Verdict::uncertain;
    case FailOn::never: return false;
  }
  return false;
}

bool ComparisonReport::fails() const {
  return std::any_of(compared.begin(), compared.end(),
                     [this](const Comparison& c) { return fails_on(rule.fail_on, c.verdict); });
}

int ComparisonReport::exit_code() const {
  if (!gpu_refusals.empty() || compared.empty()) return exit_bad_input;
  return fails() ? exit_regression : exit_ok;
}

std::string ComparisonReport::outcome() const {
  std::string line;
  if (compared.empty()) {
    line = "nothing compared";
  } else {
    // Only the verdicts that occur: "12 compared: 2 SLOWER, 1 FASTER, 9 SAME".
    line = std::to_string(compared.size()) + " compared:";
    bool first = true;
    for (auto [v, name] : {std::pair{stats::Verdict::slower, "SLOWER"}, std::pair{stats::Verdict::faster, "FASTER"},
                           std::pair{stats::Verdict::same, "SAME"}, std::pair{stats::Verdict::uncertain, "UNCERTAIN"}})
      if (const auto n = count(v); n > 0) {
        line += (first ? " " : ", ") + plural(n, name);
        first = false;
      }
    if (const auto note = unresolved_note(*this); !note.empty()) line += "; " + note;
    if (const auto counts = controls(); counts.n > 0) {
      line += "; controls " + std::to_string(counts.same) + " of " + std::to_string(counts.n) + " SAME" +
              (counts.changed ? " (" + std::to_string(counts.changed) + " changed: suspect)" : "");
    }
  }
  if (!excluded.empty()) {
    // Reasons grouped by their kind ("plans differ in inner", "only in RUN_A"), in first-seen
    // order, each with the remedy of its first instance.
    struct Kind {
      std::string reason, remedy;
      std::size_t count = 0;
    };
    std::vector<Kind> kinds;
    for (const auto& e : excluded) {
      const std::string kind = e.reason.rfind("fewer than 2 samples", 0) == 0 ? "fewer than 2 samples" : e.reason;
      auto it = std::find_if(kinds.begin(), kinds.end(), [&](const Kind& k) { return k.reason == kind; });
      if (it == kinds.end()) it = kinds.insert(kinds.end(), {kind, e.remedy});
      ++it->count;
    }
    line += "; " + std::to_string(excluded.size()) + " not compared:";
    for (std::size_t i = 0; i < kinds.size(); ++i)
      line += (i ? ", " : " ") + std::to_string(kinds[i].count) + " " + kinds[i].reason +
              (kinds[i].remedy.empty() ? "" : " (" + kinds[i].remedy + ")");
  }
  return line;
}

std::string unreachable_verdict(std::size_t n_a, std::size_t n_b, std::size_t instances, const VerdictRule& rule) {
  if (n_a < 2 || n_b < 2 || instances == 0) return {};
  const auto f = stats::verdict_feasibility(n_a, n_b, rule.alpha, instances, rule.confidence);
  if (f.reachable) return {};
  const auto smallest = stats::smallest_feasible_n(rule.alpha, instances, rule.confidence);
  char p[96];
  std::snprintf(p, sizeof p, "complete separation's p is %.3g, %.3g after Holm over %zu instances", f.smallest_p,
                f.smallest_adjusted_p, instances);
  std::string sides = n_a == n_b ? std::to_string(n_a) + " samples per side"
                                 : std::to_string(n_a) + " and " + std::to_string(n_b) + " samples";
  return "with " + sides + " no instance can be SLOWER or FASTER at alpha " + format("%g", rule.alpha) + " whatever it measures (" +
         (f.interval_bounded ? std::string(p) : "the Hodges-Lehmann interval cannot be bounded") + "); " +
         (smallest ? std::to_string(smallest) + " samples per side can" : std::string("no sample count can"));
}

void check_verdict_rule(const VerdictRule& rule) {
  if (!(rule.alpha > 0 && rule.alpha < 1)) throw UsageError("--alpha must lie in (0, 1)");
  if (!(rule.threshold >= 0)) throw UsageError("--threshold must be >= 0");
  if (!(rule.confidence > 0 && rule.confidence < 1)) throw UsageError("--confidence must lie in (0, 1)");
}

ComparisonReport compare(const CompareRequest& request, std::ostream& warnings) {
  const VerdictRule& rule = request.rule;
  check_verdict_rule(rule);
  try {
    if (!request.samples.empty()) return compare_sample_files(request);
    if (request.runs.empty() || request.runs.size() > 2)
      throw UsageError("needs two run directories, one A/B run directory, or --samples A B");
    return compare_runs(request, warnings);
  } catch (const std::invalid_argument& e) {  // from stats/: input the readers let through
    throw UsageError(e.what());
  }
}

}  // namespace isobench::orchestrator
