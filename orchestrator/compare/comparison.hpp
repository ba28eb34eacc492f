#pragma once
// The comparison model: is the candidate (B) slower than the baseline (A)? Two run directories
// joined by instance id, the two sides of one A/B run, or two sample files become a finished
// ComparisonReport: per instance the Brunner-Munzel test, the Hodges-Lehmann ratio B/A with its
// interval, Holm's correction across the instances and the verdict (stats/verdict.hpp); what was
// not compared and why; the artifacts and kernels that differ. The verdict and the exit code come
// from here, never from a printer (orchestrator/printers/ render a finished report).

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/compare/artifact_diff.hpp"
#include "orchestrator/compare/compare_inputs.hpp"
#include "orchestrator/compare/kernel_diff.hpp"
#include "orchestrator/compare/sequential_verdict.hpp"
#include "stats/brunner_munzel.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/verdict.hpp"

namespace isobench::orchestrator {

enum class FailOn { slower, faster, any_change, uncertain, never };
// Whether a verdict meets the --fail-on rule (the exit code 1 of a comparison, a failed case in CI).
bool fails_on(FailOn rule, stats::Verdict verdict);
// Which GPUs the two sides of an instance may have been measured on, where both sides' samples
// name theirs: one and the same GPU (uuid), one GPU model (model), or any.
enum class GpuMatch { uuid, model, any };

// How verdicts are reached, and which of them make the exit code 1.
struct VerdictRule {
  double alpha = 0.001;       // significance after Holm's correction
  double threshold = 0.02;    // noise floor: SLOWER needs the interval above 1+threshold
  double confidence = 0.95;   // of the Hodges-Lehmann interval
  FailOn fail_on = FailOn::slower;
};

struct Comparison {
  std::string id;
  std::string pytest_node_id;  // a pytest file's test: pytest's node id (plan.json's pytest.node_id)
  // A control (plan.json's pytest.control: a FlagGems torch-operator call): an instance the
  // change under test does not touch, which should be SAME; one that is not makes the run suspect.
  bool control = false;
  std::size_t n_a = 0, n_b = 0;
  double median_a = 0, median_b = 0;
  stats::HodgesLehmannRatio hl;
  stats::BrunnerMunzelResult bm;  // two-sided
  double p_adjusted = 1;          // Holm over all compared instances
  stats::Verdict verdict = stats::Verdict::uncertain;
  GpuSet gpus_a, gpus_b;  // the GPUs each side's samples name; empty where none does
  std::optional<std::size_t> look;  // sampled until a verdict: the look that decided
  bool futile = false;              // ... and it stopped UNCERTAIN there by the futility rule
  double median_ratio() const { return median_b / median_a; }
};

// An instance compare leaves out: why, and what would let it be compared.
struct Excluded {
  std::string id;
  std::string reason;  // "plans differ in inner", "only in RUN_A", "fewer than 2 samples (...)"
  std::string remedy;  // "measure RUN_B again with --like RUN_A"
};

// compare --samples: one comparison with both tests, both distributions and every alternative.
struct SamplesDetail {
  struct Test {
    std::string distribution;  // "t" or "normal"
    stats::BrunnerMunzelResult by_alternative[3];  // two-sided, less, greater
  };
  std::vector<Test> brunner_munzel;
  stats::MannWhitneyResult mann_whitney[3];
};

struct ComparisonReport {
  std::string a, b;  // what was compared: files or run directories
  VerdictRule rule;
  std::vector<Comparison> compared;
  std::vector<Excluded> excluded;
  double geometric_mean_ratio = 1;
  ArtifactComparison artifacts;  // run directories: the archived artifacts that differ
  KernelComparison kernels;      // run directories with kernels.json: which ran other kernels
  GpuSet gpus_a, gpus_b;         // the GPUs of all compared instances, per side
  // Instances whose sides ran on GPUs --gpu-match does not allow: one line each, and no verdicts.
  std::vector<std::string> gpu_refusals;
  std::optional<SamplesDetail> detail;  // two sample files
  std::optional<SequentialPlan> sequential;  // an A/B run sampled until a verdict (ab --until-verdict)
  // Fixed-n comparisons whose n cannot reach a verdict at all (unreachable_verdict): the verbs warn.
  std::string unreachable;
  // Two runs made at different times (not the two sides of one A/B run): one line saying that
  // the machine's drift between them is not controlled. Empty otherwise.
  std::string caveat;

  bool names_gpus() const { return !gpus_a.empty() || !gpus_b.empty(); }
  std::size_t count(stats::Verdict v) const;
  // The compared controls: how many, how many SAME, how many SLOWER or FASTER.
  struct Controls {
    std::size_t n = 0, same = 0, changed = 0;
  };
  Controls controls() const;
  // What the controls came to, for people: empty without controls; else a line with how many
  // are SAME, then a warning line per control that is not (the comparison is suspect).
  std::vector<std::string> control_lines() const;
  // Whether a verdict meets the --fail-on rule.
  bool fails() const;
  // 1 when a verdict meets the rule, else 0; 2 when nothing was compared (or a GPU was refused).
  int exit_code() const;
  // What the comparison found, in one line: "12 compared: 2 SLOWER, 1 FASTER, 9 SAME", with how many
  // instances were not compared, why and the remedy of each kind ("; 3 not compared: 2 plans
  // differ in inner (measure B again with --like A), 1 only in A (...)"), and what UNCERTAIN
  // instances could not resolve (compare/resolution.hpp). The verbs end their output with it and
  // the exit code: "... -> exit 1".
  std::string outcome() const;
};

// Why no instance can be SLOWER (or FASTER) with n_a and n_b samples per side over `instances`
// instances under the rule, whatever the data: complete separation's p after Holm is not below
// alpha, or the Hodges-Lehmann interval cannot be bounded. Empty when a verdict is reachable; else
// one line that names the smallest n per side that can reach one.
std::string unreachable_verdict(std::size_t n_a, std::size_t n_b, std::size_t instances, const VerdictRule& rule);

struct CompareRequest {
  std::vector<std::string> samples;  // --samples A B: two sample files
  std::vector<std::string> runs;     // RUN_A RUN_B, or one A/B run directory
  VerdictRule rule;
  GpuMatch gpu_match = GpuMatch::uuid;
};

// Throws UsageError naming the option of a rule out of range (alpha and confidence in (0, 1), a
// threshold >= 0): compare() checks it first, and ab before it measures.
void check_verdict_rule(const VerdictRule& rule);

// The comparison the request asks for. Throws UsageError for bad input (a file, field or option
// named) and for runs that share instances none of which were measured alike. Warnings about
// damaged optional files (kernels.json) go to `warnings`.
ComparisonReport compare(const CompareRequest& request, std::ostream& warnings);

}  // namespace isobench::orchestrator
