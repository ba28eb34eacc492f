// JSON: the same data as the table, for machines.
#include "orchestrator/format/numbers.hpp"
#include "orchestrator/printers/printers.hpp"
#include "orchestrator/run_directory.hpp"

namespace isobench::orchestrator {

namespace {

using nlohmann::json;

json gpus_json(const GpuSet& gpus) {
  json list = json::array();
  for (const auto& gpu : gpus) list.push_back({{"uuid", gpu.uuid}, {"name", gpu.name}});
  return list;
}

json comparison_json(const Comparison& c) {
  json j = {{"instance", c.id},
          {"n_a", c.n_a},
          {"n_b", c.n_b},
          {"median_a", c.median_a},
          {"median_b", c.median_b},
          {"median_ratio", c.median_ratio()},
          {"hl_ratio", c.hl.ratio},
          {"hl_lo", finite_or_null(c.hl.lo)},
          {"hl_hi", finite_or_null(c.hl.hi)},
          {"confidence", c.hl.confidence},
          {"bm_statistic", finite_or_null(c.bm.statistic)},
          {"bm_df", finite_or_null(c.bm.df)},
          {"p", c.bm.p_value},
          {"p_holm", c.p_adjusted},
          {"verdict", stats::to_string(c.verdict)}};
  if (c.futile) j["stopped_by_futility"] = true;  // only where so: the field is new
  return j;
}

// stats names every method; its names are string literals, so data() ends in a NUL.
const char* method_name(stats::BrunnerMunzelMethod m) { return stats::to_string(m).data(); }

// compare --samples: one comparison with both tests and every alternative.
json detail_json(const ComparisonReport& report) {
  const Comparison& c = report.compared.front();
  const SamplesDetail& d = *report.detail;
  const char* alternatives[] = {"two-sided", "less", "greater"};
  json j = {{"a", {{"file", report.a}, {"n", c.n_a}, {"median", c.median_a}}},
            {"b", {{"file", report.b}, {"n", c.n_b}, {"median", c.median_b}}},
            {"median_ratio", c.median_ratio()},
            {"alpha", report.rule.alpha},
            {"threshold", report.rule.threshold}};
  // The t and normal entries are the asymptotic tests (scipy's numbers); "permutation" is the
  // studentized permutation test the verdict uses (docs/statistics.md), the same whichever
  // distribution was asked for.
  for (const auto& test : d.brunner_munzel)
    for (int k = 0; k < 3; ++k) {
      const auto& r = test.by_alternative[k];
      j["brunner_munzel"][test.distribution][alternatives[k]] = {
          {"statistic", finite_or_null(r.statistic)}, {"df", finite_or_null(r.df)},
          {"p_value", finite_or_null(r.asymptotic_p_value)}, {"relative_effect", r.relative_effect}};
    }
  if (!d.brunner_munzel.empty())
    for (int k = 0; k < 3; ++k) {
      const auto& r = d.brunner_munzel.front().by_alternative[k];
      j["brunner_munzel"]["permutation"][alternatives[k]] = {
          {"p_value", r.p_value}, {"method", method_name(r.method)}, {"labellings", r.labellings}};
    }
  for (int k = 0; k < 3; ++k) {
    const auto& r = d.mann_whitney[k];
    j["mann_whitney"][alternatives[k]] = {
        {"u", r.u1}, {"p_value", r.p_value}, {"method", r.method == stats::MannWhitneyMethod::exact ? "exact" : "asymptotic"}};
  }
  j["hodges_lehmann"] = {{"ratio", c.hl.ratio}, {"lo", finite_or_null(c.hl.lo)}, {"hi", finite_or_null(c.hl.hi)},
                         {"confidence", c.hl.confidence}};
  j["verdict"] = stats::to_string(c.verdict);
  return j;
}

class JsonPrinter final : public Printer {
 public:
  void summary(std::ostream& out, const std::vector<InstanceSummary>& rows) const override {
    out << dump_json(summary_to_json(rows), 2) << "\n";
  }

  void comparison(std::ostream& out, const ComparisonReport& report) const override {
    if (report.detail) {
      out << dump_json(detail_json(report), 2) << "\n";
      return;
    }
    const VerdictRule& rule = report.rule;
    json j = {{"a", report.a},
              {"b", report.b},
              {"alpha", rule.alpha},
              {"threshold", rule.threshold},
              {"confidence", rule.confidence},
              {"instances", json::array()},
              {"not_compared", json::array()},
              {"geometric_mean_hl_ratio", report.geometric_mean_ratio}};
    for (const auto& c : report.compared) {
      j["instances"].push_back(comparison_json(c));
      if (!c.pytest_node_id.empty()) j["instances"].back()["pytest_node_id"] = c.pytest_node_id;
      if (c.control) j["instances"].back()["control"] = true;
      if (report.kernels.shown()) {
        const auto differ = report.kernels.differ(c.id);
        j["instances"].back()["kernels_differ"] = differ ? json(*differ) : json(nullptr);
      }
      if (report.names_gpus()) {
        j["instances"].back()["gpus_a"] = gpus_json(c.gpus_a);
        j["instances"].back()["gpus_b"] = gpus_json(c.gpus_b);
      }
    }
    for (const auto& e : report.excluded)
      j["not_compared"].push_back({{"instance", e.id}, {"reason", e.reason}, {"remedy", e.remedy}});
    if (!report.caveat.empty()) j["caveat"] = report.caveat;
    if (const auto controls = report.controls(); controls.n > 0) {
      // The controls (compare/comparison.hpp): what they came to, and those that are not SAME.
      json not_same = json::array();
      for (const auto& c : report.compared)
        if (c.control && c.verdict != stats::Verdict::same)
          not_same.push_back({{"instance", c.id}, {"verdict", stats::to_string(c.verdict)}});
      j["controls"] = {{"n", controls.n}, {"same", controls.same}, {"changed", controls.changed},
                       {"suspect", controls.changed > 0}, {"not_same", not_same}};
    }
    if (report.artifacts.shown()) j["artifacts"] = artifact_changes_json(report.artifacts);
    if (report.kernels.shown()) j["kernels"] = kernel_changes_json(report.kernels);
    j["outcome"] = report.outcome();
    out << dump_json(j, 2) << "\n";
  }

  void kernel_catalog(std::ostream& out, const std::vector<CatalogEntry>& catalog) const override {
    out << kernel_catalog_json(catalog).dump(2) << "\n";
  }

  void history_runs(std::ostream& out, const std::string& history,
                    const std::vector<history::StoredRun>& runs) const override {
    out << dump_json(history_runs_json(history, runs), 2) << "\n";
  }

  void history_series(std::ostream& out, const HistorySeries& shown) const override {
    out << dump_json(history_series_json(shown), 2) << "\n";
  }

  void history_regressions(std::ostream& out, const HistorySeries& searched) const override {
    out << dump_json(history_regressions_json(searched), 2) << "\n";
  }
};

}  // namespace

std::unique_ptr<Printer> make_json_printer() { return std::make_unique<JsonPrinter>(); }

}  // namespace isobench::orchestrator
