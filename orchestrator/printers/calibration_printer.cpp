// `orchestrate calibrate`'s result for people: the FPR table and the samples per side to plan
// with on stdout (Printer's own rendering), and the calibration directory's report.md and charts.
// Over 500 lines on purpose: report.md is one document, section after section in the order a
// reader meets them; each section is a function of the analysis, kept beside its neighbours.
#include "orchestrator/printers/calibration_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "orchestrator/format/numbers.hpp"
#include "orchestrator/printers/printer.hpp"
#include "orchestrator/printers/svg_chart.hpp"
#include "orchestrator/sequential_plan.hpp"
#include "stats/verdict_feasibility.hpp"

namespace isobench::orchestrator {

using calibration::CalibrationResult;
using calibration::kRealisedTolerance;
using calibration::ModeResult;
using calibration::RateCell;
using calibration::smallest_p_value;

namespace {

std::string percent(double share) { return format(share * 100 < 1 && share > 0 ? "%.2f%%" : "%.1f%%", share * 100); }

std::string alpha_text(double alpha) { return format("%g", alpha); }

std::string rate_cell(const RateCell& c, bool with_expected) {
  std::string s = percent(c.interval.estimate) + " [" + percent(c.interval.lower) + ", " +
                  percent(c.interval.upper) + "]";
  if (with_expected) s += " (" + std::to_string(c.hits) + " vs " + format("%.2g", c.expected) + ")";
  return s;
}

const RateCell* at_alpha(const std::vector<RateCell>& cells, double alpha) {
  for (const auto& c : cells)
    if (c.alpha == alpha) return &c;
  return nullptr;
}

// 1, 2, 2.5, 5 times a power of ten, at or above v.
double nice_ceiling(double v) {
  if (v <= 0) return 1;
  const double magnitude = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * magnitude >= v * (1 - 1e-12)) return m * magnitude;
  return 10 * magnitude;
}

std::vector<std::pair<double, std::string>> linear_ticks(double max, int count, const char* spec) {
  std::vector<std::pair<double, std::string>> ticks;
  for (int i = 0; i <= count; ++i) {
    const double v = max * i / count;
    ticks.emplace_back(v, format(spec, v));
  }
  return ticks;
}

std::vector<std::pair<double, std::string>> percent_ticks_0_100() { return linear_ticks(100, 5, "%.0f"); }

// The lowest delta detected in at least the target share of comparisons, or -1.
double smallest_detected_delta(const ModeResult& m, double alpha, double target) {
  for (const auto& row : m.scaled_power)
    if (const auto* c = at_alpha(row.by_alpha, alpha); c && c->interval.estimate >= target) return row.delta;
  return -1;
}

// Rows are (mode, variant) pairs. Without --variants every variant is the baseline and rows are
// named by their mode alone, as before variants existed.
bool has_variants(const CalibrationResult& r) {
  return std::any_of(r.modes.begin(), r.modes.end(), [](const ModeResult& m) { return m.variant != "baseline"; });
}

// The row's name where one name is needed (charts, the reading): "process", "process/realloc".
std::string row_label(const CalibrationResult& r, const ModeResult& m) {
  return has_variants(r) ? m.mode + "/" + m.variant : m.mode;
}

// The table cells that name a row, and their header and rule: "| mode |" or "| mode | variant |".
std::string row_head(const CalibrationResult& r) { return has_variants(r) ? "| mode | variant |" : "| mode |"; }
std::string row_rule(const CalibrationResult& r) { return has_variants(r) ? "| --- | --- |" : "| --- |"; }
std::string row_cells(const CalibrationResult& r, const ModeResult& m) {
  return "| " + m.mode + (has_variants(r) ? " | " + m.variant : "") + " |";
}

// Per mode, each variant's false-positive rate at the target alpha set against the baseline's:
// a variant helps measurably only when its interval lies wholly below the baseline's.
std::string variants_reading(const CalibrationResult& r) {
  if (!has_variants(r)) return {};
  const double a0 = r.options.target_alpha;
  std::ostringstream s;
  std::vector<std::string> done;
  for (const auto& first : r.modes) {
    if (std::find(done.begin(), done.end(), first.mode) != done.end()) continue;
    done.push_back(first.mode);
    const ModeResult* base = nullptr;
    std::vector<const ModeResult*> rows;
    for (const auto& m : r.modes) {
      const auto* c = at_alpha(m.fpr, a0);
      if (m.mode != first.mode || !c || c->trials == 0) continue;
      if (m.variant == "baseline")
        base = &m;
      else
        rows.push_back(&m);
    }
    if (rows.empty()) continue;
    s << "- Variants of `" << first.mode << "` at alpha " << alpha_text(a0);
    if (!base) {
      s << " (no baseline in --variants to set them against):";
      for (std::size_t i = 0; i < rows.size(); ++i)
        s << (i ? "; `" : " `") << rows[i]->variant << "` " << rate_cell(*at_alpha(rows[i]->fpr, a0), false);
      s << ".\n";
      continue;
    }
    const auto& b = *at_alpha(base->fpr, a0);
    s << ", against the baseline's " << rate_cell(b, false) << " ("
      << format("%.2f ms", base->cost.seconds_per_sample * 1e3) << " per sample):";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const ModeResult* m = rows[i];
      const auto& c = *at_alpha(m->fpr, a0);
      s << (i ? "; `" : " `") << m->variant << "` " << rate_cell(c, false) << ", "
        << (c.interval.upper < b.interval.lower   ? "lower (the intervals do not overlap: it helps here)"
            : c.interval.lower > b.interval.upper ? "higher (the intervals do not overlap: it hurts here)"
                                                  : "not distinguishable (the intervals overlap)")
        << ", " << format("%.2f ms", m->cost.seconds_per_sample * 1e3) << " per sample";
    }
    s << ".\n";
  }
  return s.str();
}

std::string verdict_section(const CalibrationResult& r) {
  const auto& o = r.options;
  const double a0 = o.target_alpha;
  std::ostringstream s;
  s << "\n## Verdicts as `compare` gives them\n\n"
    << "Each A/A sweep (a pair of runs; one `ab` run) decided as `compare` decides it: Holm over its " << r.instances
    << " instances, Hodges-Lehmann " << format("%g", o.confidence * 100) << "% interval, noise floor "
    << format("%g", o.threshold * 100) << "%, alpha " << alpha_text(a0)
    << ". A false verdict is SLOWER or FASTER on identical code; power counts SLOWER with the whole sweep "
       "slowed by delta. The recommended n is the verdict's (Holm's factor for the smallest p, m = "
    << r.instances << "), beside the raw test's above.";
  if (r.instances > 0) {
    const std::size_t least = stats::smallest_feasible_n(a0, r.instances, o.confidence);
    s << " With " << r.instances << " instances at alpha " << alpha_text(a0) << " no verdict can be SLOWER below n = "
      << least << " per side.";
  }
  s << "\n\n" << row_head(r) << " false verdicts per comparison | sweeps with a false verdict |";
  for (double d : o.deltas) s << " SLOWER at " << format("%g", d * 100) << "% |";
  s << " recommended n |\n" << row_rule(r) << " --- | --- |";
  for (std::size_t i = 0; i < o.deltas.size(); ++i) s << " --- |";
  s << " --- |\n";
  for (const auto& m : r.modes) {
    const auto* per = at_alpha(m.verdict.false_per_comparison, a0);
    const auto* sweep = at_alpha(m.verdict.false_per_sweep, a0);
    s << row_cells(r, m) << " " << (per ? rate_cell(*per, true) : "-") << " | "
      << (sweep ? rate_cell(*sweep, true) : "-") << " |";
    for (const auto& row : m.verdict.scaled_power)
      if (const auto* c = at_alpha(row.by_alpha, a0)) s << " " << rate_cell(*c, false) << " |";
    s << " " << (m.verdict.recommended_n ? std::to_string(m.verdict.recommended_n) : "> " + std::to_string(o.max_n))
      << " |\n";
  }
  bool any_real = false;
  for (const auto& m : r.modes) any_real = any_real || !m.verdict.real_power.empty();
  if (any_real) {
    s << "\nReal injected slowdowns, SLOWER verdicts at alpha " << alpha_text(a0) << ":";
    for (const auto& m : r.modes)
      for (const auto& row : m.verdict.real_power)
        if (const auto* c = at_alpha(row.by_alpha, a0))
          s << " `" << row_label(r, m) << "` " << format("%g", row.delta * 100) << "%: " << rate_cell(*c, false) << ";";
    s << "\n";
  }
  return s.str();
}

// Per instance: what each injected slowdown realised, beside the power against it.
std::string realised_section(const CalibrationResult& r) {
  bool any = false;
  for (const auto& m : r.modes) any = any || !m.realised.empty();
  if (!any) return {};
  const auto& o = r.options;
  std::ostringstream s;
  s << "\n### Realised slowdowns per instance\n\nWhat `--slowdown-pct` actually did to each instance: the "
       "median of its slowed samples (pooled over the slowed runs) over the median of its baseline samples (pooled "
       "over the A/A runs), and the Hodges-Lehmann ratio of the same pools with its "
    << format("%g", o.confidence * 100) << "% interval, beside the share detected at alpha " << alpha_text(o.target_alpha)
    << " (raw test, and compare's SLOWER verdict). The power of a row is power at its realised slowdown; a row "
       "whose realised change lies more than "
    << format("%g", kRealisedTolerance * 100) << " point from its target says so.\n\n"
    << row_head(r) << " instance | target | realised (medians) | Hodges-Lehmann [interval] | raw test | verdict SLOWER "
                      "| |\n"
    << row_rule(r) << " --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& m : r.modes)
    for (const auto& x : m.realised) {
      s << row_cells(r, m) << " `" << x.id << "` | " << format("%+g%%", x.target * 100) << " | ";
      if (x.median_ratio > 0)
        s << format("%+.1f%%", (x.median_ratio - 1) * 100) << " | " << format("%+.1f%%", (x.hl.ratio - 1) * 100) << " ["
          << format("%+.1f", (x.hl.lo - 1) * 100) << ", " << format("%+.1f", (x.hl.hi - 1) * 100) << "] | ";
      else
        s << "- | - | ";
      s << rate_cell(x.detected, false) << " | " << rate_cell(x.verdict_slower, false) << " | "
        << (x.median_ratio == 0 ? "too few samples"
                                : x.missed ? "missed its target by more than " + format("%g", kRealisedTolerance * 100) +
                                                 " point: power here is not power at the target"
                                           : "on target")
        << " |\n";
    }
  return s.str();
}

// "8, 9, 12, 16, 20 (9)": the looks, the separation looks in brackets; "-" for none.
std::string looks_text(const std::vector<std::size_t>& looks, const std::vector<std::size_t>& separation) {
  if (looks.empty()) return "-";
  std::string text;
  for (std::size_t n : looks) text += (text.empty() ? "" : ", ") + std::to_string(n);
  if (separation.empty()) return text;
  text += " (";
  for (std::size_t i = 0; i < separation.size(); ++i) text += (i ? ", " : "") + std::to_string(separation[i]);
  return text + ")";
}

std::string sequential_section(const CalibrationResult& r) {
  const auto& o = r.options;
  if (!o.sequential) return {};
  // What the options ask for is an extension only where its cap lies above the most samples.
  const bool extended =
      std::any_of(r.modes.begin(), r.modes.end(), [](const auto& m) { return m.sequential.extension_from > 0; });
  std::ostringstream s;
  s << "\n## Sequential sampling\n\n"
    << (o.sequential_looks.empty()
            ? "The design `ab --until-verdict` runs by default up to " +
                  (o.sequential_most >= 2 ? std::to_string(o.sequential_most) : std::string("the runs'")) +
                  " samples per side" +
                  (extended
                       ? ", and for an instance whose interval lies beyond the floor with its p short, on to " +
                             std::to_string(o.sequential_extend_to) + " (the extension, a quarter of alpha)"
                       : std::string())
            : std::string("The looks given"))
    << ", stopping an instance at SLOWER, FASTER or SAME (or UNCERTAIN early where its estimate lies inside "
       "the floor and it can settle neither way by the last look: ab's futility stop at "
    << format("%g", kDefaultFutility) << "): alpha " << alpha_text(o.target_alpha)
    << " spent over the looks (Pocock) and divided by the " << r.instances
    << " instances (docs/statistics.md). Measured: the A/A comparisons judged at the looks their samples "
       "reach, as a run that stopped there would have been (its first samples are these). Simulated: drawn "
       "from each instance's pooled samples as for the sample-size search ("
    << o.power_repetitions << " per instance, to the design's last look), means over instances.\n\n"
    << row_head(r) << " looks (separation) | measured A/A false verdicts (looks reached) | simulated A/A false rate | power at "
    << format("%g", o.target_delta * 100) << "% | mean samples per side at " << format("%g", o.target_delta * 100)
    << "% / A/A |\n"
    << row_rule(r) << " --- | --- | --- | --- | --- |\n";
  for (const auto& m : r.modes) {
    const auto& e = m.sequential;
    s << row_cells(r, m) << " " << looks_text(e.looks, e.separation) << " | " << rate_cell(e.measured_false, true)
      << " (" << e.measured_looks << ") | " << percent(e.simulated_false) << " | " << percent(e.power) << " | " << format("%.1f", e.mean_samples) << " / "
      << format("%.1f", e.mean_samples_aa) << " |\n";
  }
  return s.str();
}

}  // namespace

std::string fpr_table_markdown(const CalibrationResult& r) {
  std::ostringstream s;
  s << row_head(r) << " comparisons |";
  for (double a : r.options.alphas) s << " FPR at alpha " << alpha_text(a) << " [95% CI] (hits vs expected) |";
  s << "\n" << row_rule(r) << " --- |";
  for (std::size_t i = 0; i < r.options.alphas.size(); ++i) s << " --- |";
  s << "\n";
  for (const auto& m : r.modes) {
    s << row_cells(r, m) << " " << (m.fpr.empty() ? 0 : m.fpr.front().trials) << " |";
    for (const auto& c : m.fpr) s << " " << rate_cell(c, true) << " |";
    s << "\n";
  }
  return s.str();
}

std::string calibration_report_markdown(const CalibrationResult& r, const CalibrationReportContext& ctx) {
  const auto& o = r.options;
  std::ostringstream s;
  s << "# Calibration of `" << ctx.sweep_name << "`\n\n";
  s << "Device: " << ctx.device << ". " << r.instances << " benchmark instances, " << ctx.runs_per_mode
    << " identical (A/A) runs per mode" << (has_variants(r) ? " and variant" : "")
    << ". Ordinary modes compare every pair of runs per instance (C(K,2) x "
       "instances comparisons); `ab` compares side 0 with side 1 of the same build inside each run (K x "
       "instances). Test: two-sided Brunner-Munzel, its permutation p-value (exact or Monte Carlo, "
       "docs/statistics.md). Intervals are Wilson 95%.\n\n";
  if (has_variants(r))
    s << "Every mode ran once per variant (`--variants`): the isolation measure in the variant column set over "
         "the sweep's settings, `baseline` the sweep as it is (docs/measurement.md says what each measure does). "
         "The variants of a mode took turns run by run, so drift reached them alike. A variant helps on this "
         "machine when its false-positive rate lies below the baseline's with intervals apart.\n\n";

  s << "## False-positive rate (A/A)\n\n"
    << "Share of A/A comparisons flagged as different. A mode that holds its level flags about alpha of them; "
       "\"hits vs expected\" sets the count against alpha x comparisons.\n\n";
  s << fpr_table_markdown(r) << "\n";

  s << "### Per kernel family\n\n" << row_head(r) << " family |";
  for (double a : o.alphas) s << " alpha " << alpha_text(a) << " |";
  s << "\n" << row_rule(r) << " --- |";
  for (std::size_t i = 0; i < o.alphas.size(); ++i) s << " --- |";
  s << "\n";
  for (const auto& m : r.modes)
    for (const auto& f : m.fpr_by_family) {
      s << row_cells(r, m) << " " << f.family << " |";
      for (const auto& c : f.by_alpha) s << " " << rate_cell(c, true) << " |";
      s << "\n";
    }

  s << "\n## Power\n\n### Samples scaled by 1+delta (alpha " << alpha_text(o.target_alpha) << ")\n\n"
    << "Each A/A comparison once with either side multiplied by 1+delta; detected = p < alpha and the slowed "
       "side larger. Other alphas are in calibration.json.\n\n" << row_head(r);
  for (double d : o.deltas) s << " delta " << format("%g", d * 100) << "% |";
  s << "\n" << row_rule(r);
  for (std::size_t i = 0; i < o.deltas.size(); ++i) s << " --- |";
  s << "\n";
  for (const auto& m : r.modes) {
    s << row_cells(r, m);
    for (const auto& row : m.scaled_power)
      if (const auto* c = at_alpha(row.by_alpha, o.target_alpha)) s << " " << rate_cell(*c, false) << " |";
    s << "\n";
  }

  s << "\n### Real injected slowdowns\n\n";
  if (ctx.real_slowdowns.empty()) {
    s << "None measured (add `--real-slowdown PCT`).\n";
  } else {
    s << "K runs per mode with `--slowdown-pct`, each compared with every A/A run of the mode, per instance.\n\n"
      << row_head(r) << " slowdown |";
    for (double a : o.alphas) s << " detected at alpha " << alpha_text(a) << " |";
    s << "\n" << row_rule(r) << " --- |";
    for (std::size_t i = 0; i < o.alphas.size(); ++i) s << " --- |";
    s << "\n";
    for (const auto& m : r.modes) {
      if (m.within_run) {
        s << row_cells(r, m) << " - | not measured: an A/A `ab` run has one build on both sides, so no side can "
                                "be made slower alone |";
        for (std::size_t i = 1; i < o.alphas.size(); ++i) s << " |";
        s << "\n";
        continue;
      }
      for (const auto& row : m.real_power) {
        s << row_cells(r, m) << " " << format("%g", row.delta * 100) << "% |";
        for (const auto& c : row.by_alpha) s << " " << rate_cell(c, false) << " |";
        s << "\n";
      }
    }
    s << realised_section(r);
  }

  s << "\n## Samples needed\n\nSmallest n per side that detects a " << format("%g", o.target_delta * 100)
    << "% slowdown in " << format("%g", o.target_power * 100) << "% of simulated comparisons at alpha "
    << alpha_text(o.target_alpha) << " (" << o.power_repetitions
    << " repetitions per n), drawing from each instance's samples pooled over the mode's A/A runs. The "
       "recommended n is the largest over instances.\n\n"
    << row_head(r) << " recommended n | per instance |\n" << row_rule(r) << " --- | --- |\n";
  for (const auto& m : r.modes) {
    std::size_t lo = 0, hi = 0, missing = 0;
    for (const auto& x : m.sample_sizes) {
      if (x.n == 0) {
        ++missing;
        continue;
      }
      lo = lo == 0 ? x.n : std::min(lo, x.n);
      hi = std::max(hi, x.n);
    }
    s << row_cells(r, m) << " "
      << (m.recommended_n ? std::to_string(m.recommended_n) : "> " + std::to_string(o.max_n)) << " | ";
    if (hi) s << lo << ".." << hi;
    if (missing) s << (hi ? "; " : "") << missing << " instance(s) not reached by n = " << o.max_n;
    s << " |\n";
  }

  s << verdict_section(r) << sequential_section(r);

  s << "\n## Cost\n\nOver the K A/A runs of each mode (run.json).\n\n"
    << row_head(r) << " runs | wall time | samples | workers started | time per sample |\n"
    << row_rule(r) << " --- | --- | --- | --- | --- |\n";
  for (const auto& m : r.modes)
    s << row_cells(r, m) << " " << m.cost.runs << " | " << format("%.1f s", m.cost.wall_seconds) << " | "
      << m.cost.samples << " | " << m.cost.workers << " | " << format("%.2f ms", m.cost.seconds_per_sample * 1e3)
      << " |\n";

  s << "\n## Reading\n\n";
  const double a0 = o.target_alpha;
  for (const auto& m : r.modes) {
    const auto* c = at_alpha(m.fpr, a0);
    if (!c || c->trials == 0) {
      s << "- `" << row_label(r, m) << "`: no comparison could be made (too few samples).\n";
      continue;
    }
    s << "- `" << row_label(r, m) << "`: " << c->hits << " of " << c->trials << " A/A comparisons flagged at alpha "
      << alpha_text(a0) << " (" << percent(c->interval.estimate) << ", " << format("%.2g", c->expected)
      << " expected). ";
    if (c->interval.lower > a0)
      s << "Even the low end of its interval is above alpha: this mode calls noise a regression; do not trust "
           "its verdicts at this alpha.";
    else if (c->interval.upper < a0)
      s << "Its interval lies below alpha: the test is conservative here.";
    else
      s << "Consistent with alpha (the interval holds it)";
    if (c->interval.lower <= a0 && c->interval.upper >= a0) {
      if (c->interval.upper > 10 * a0)
        s << ", but the interval is wide: more runs (--runs) would narrow it.";
      else
        s << ".";
    }
    const double d = smallest_detected_delta(m, a0, o.target_power);
    if (d > 0)
      s << " Detects a " << format("%g", d * 100) << "% slowdown in " << format("%g", o.target_power * 100)
        << "% of scaled comparisons or more.";
    else
      s << " Detects none of the scaled slowdowns (up to " << format("%g", o.deltas.empty() ? 0 : o.deltas.back() * 100)
        << "%) in " << format("%g", o.target_power * 100) << "% of comparisons at this sample count.";
    if (m.recommended_n)
      s << " Needs n = " << m.recommended_n << " samples per side for " << format("%g", o.target_delta * 100)
        << "% (about " << format("%.2g", m.recommended_n * m.cost.seconds_per_sample) << " s per instance and side at "
        << "its measured cost).";
    s << "\n";
    if (m.samples_per_side && smallest_p_value(m.samples_per_side) >= a0)
      s << "  With " << m.samples_per_side << " samples per side even complete separation gives p = "
        << format("%.2g", smallest_p_value(m.samples_per_side)) << ", not below alpha " << alpha_text(a0)
        << ": nothing can be flagged at this alpha, so the false-positive rate and power say nothing. Take more "
           "samples (--samples).\n";
  }
  s << variants_reading(r);
  const ModeResult* ab = nullptr;
  const ModeResult* best_apart = nullptr;
  for (const auto& m : r.modes) {
    const auto* c = at_alpha(m.fpr, a0);
    if (!c || c->trials == 0 || m.variant != "baseline") continue;  // modes compared as the sweep has them
    if (m.within_run)
      ab = &m;
    else if (!best_apart || c->interval.estimate < at_alpha(best_apart->fpr, a0)->interval.estimate)
      best_apart = &m;
  }
  if (ab && best_apart) {
    const double in_run = at_alpha(ab->fpr, a0)->interval.estimate;
    const double apart = at_alpha(best_apart->fpr, a0)->interval.estimate;
    s << "- Interleaving both sides in one run (`ab`) gives " << percent(in_run) << " false positives at alpha "
      << alpha_text(a0) << " against " << percent(apart) << " for the best mode compared across runs (`"
      << row_label(r, *best_apart) << "`)";
    if (in_run < apart)
      s << ": this is what taking A and B in one window buys. For regression checks use `orchestrate ab`.\n";
    else
      s << ": on this machine and sweep, interleaving buys nothing measurable at this alpha (compare the "
           "intervals; more runs narrow them).\n";
  }
  s << "- The power simulation draws samples independently from the pooled values; where runs drift (a high "
       "false-positive rate), real comparisons across runs behave worse than this, so trust the sample count "
       "only for modes whose false-positive rate holds alpha.\n";
  s << "\nCharts: `fpr.svg`, `power_delta.svg`, `power_n.svg`. Every number: `calibration.json`.\n";
  return s.str();
}

std::string fpr_chart_svg(const CalibrationResult& r) {
  BarChart chart;
  chart.title = "False-positive rate of A/A comparisons per isolation mode";
  chart.x_label = has_variants(r) ? "isolation mode / variant" : "isolation mode";
  chart.y_label = "false-positive rate (% of A/A comparisons)";
  chart.legend_bar = "observed rate";
  chart.legend_error = "Wilson 95% interval";
  chart.legend_reference = "alpha (ideal rate)";
  for (std::size_t a = 0; a < r.options.alphas.size(); ++a) {
    const double alpha = r.options.alphas[a];
    BarPanel panel;
    panel.title = "alpha = " + alpha_text(alpha);
    double top = alpha * 100 * 1.5;
    for (const auto& m : r.modes) {
      const auto* c = at_alpha(m.fpr, alpha);
      panel.categories.push_back(row_label(r, m));
      panel.values.push_back(c ? c->interval.estimate * 100 : 0);
      panel.lower.push_back(c ? c->interval.lower * 100 : 0);
      panel.upper.push_back(c ? c->interval.upper * 100 : 0);
      top = std::max(top, panel.upper.back());
    }
    panel.y_max = nice_ceiling(top);
    panel.y_ticks = linear_ticks(panel.y_max, 5, panel.y_max < 1 ? "%.2f" : panel.y_max < 10 ? "%.1f" : "%.0f");
    panel.reference = {alpha * 100, "alpha " + format("%g", alpha * 100) + "%"};
    chart.panels.push_back(panel);
  }
  return render_svg(chart);
}

std::string power_delta_chart_svg(const CalibrationResult& r) {
  const auto& o = r.options;
  LineChart chart;
  chart.title = "Power to detect a slowdown (alpha " + alpha_text(o.target_alpha) + ")";
  double lo = 100, hi = 0;
  for (double d : o.deltas) {
    lo = std::min(lo, d * 100);
    hi = std::max(hi, d * 100);
  }
  for (const auto& m : r.modes)
    for (const auto& row : m.real_power) {
      lo = std::min(lo, row.delta * 100);
      hi = std::max(hi, row.delta * 100);
    }
  if (hi <= lo) hi = lo * 2;
  chart.x = {"slowdown delta (%, log scale)", lo / 1.25, hi * 1.25, true, {}};
  for (double d : o.deltas) chart.x.ticks.emplace_back(d * 100, format("%g", d * 100));
  chart.y = {"slowdowns detected (% of comparisons)", 0, 100, false, percent_ticks_0_100()};
  for (const auto& m : r.modes) {
    LineSeries series{row_label(r, m) + " (scaled)", {}, false};
    for (const auto& row : m.scaled_power)
      if (const auto* c = at_alpha(row.by_alpha, o.target_alpha)) series.points.emplace_back(row.delta * 100, c->interval.estimate * 100);
    chart.series.push_back(series);
  }
  // Real slowdowns: dashed, in the colour of their mode's scaled series.
  for (std::size_t i = 0; i < r.modes.size(); ++i) {
    const auto& m = r.modes[i];
    if (m.real_power.empty()) continue;
    LineSeries series{row_label(r, m) + " (real)", {}, true, static_cast<int>(i)};
    for (const auto& row : m.real_power)
      if (const auto* c = at_alpha(row.by_alpha, o.target_alpha)) series.points.emplace_back(row.delta * 100, c->interval.estimate * 100);
    chart.series.push_back(series);
  }
  chart.references.push_back({o.target_power * 100, "target power " + format("%g", o.target_power * 100) + "%"});
  return render_svg(chart);
}

std::string power_n_chart_svg(const CalibrationResult& r) {
  const auto& o = r.options;
  LineChart chart;
  chart.title = "Power vs samples per side (" + format("%g", o.target_delta * 100) + "% slowdown, alpha " +
                alpha_text(o.target_alpha) + ")";
  const double max_n = static_cast<double>(std::max<std::size_t>(o.max_n, 4));
  chart.x = {"samples per side n (log scale)", 2, max_n, true, {}};
  for (double n = 2; n <= max_n; n *= 2) chart.x.ticks.emplace_back(n, format("%g", n));
  chart.y = {"slowdowns detected (% of simulated comparisons)", 0, 100, false, percent_ticks_0_100()};
  for (const auto& m : r.modes) {
    LineSeries series{row_label(r, m), {}, false};
    for (const auto& p : m.power_curve) series.points.emplace_back(static_cast<double>(p.n), p.power * 100);
    chart.series.push_back(series);
  }
  chart.references.push_back({o.target_power * 100, "target power " + format("%g", o.target_power * 100) + "%"});
  return render_svg(chart);
}

void Printer::calibration(std::ostream& out, const CalibrationResult& result) const {
  out << fpr_table_markdown(result);
  // The sample count to plan with, beside the table (report.md has the full reading).
  const auto& o = result.options;
  out << "\nrecommended samples per side for " << o.target_power * 100 << "% power at a " << o.target_delta * 100
      << "% slowdown (alpha " << o.target_alpha << "), the largest over instances:\n";
  for (const auto& m : result.modes)
    out << "  " << m.mode << (m.variant == "baseline" ? "" : " (" + m.variant + ")") << ": "
        << (m.recommended_n ? std::to_string(m.recommended_n) : "more than " + std::to_string(o.max_n)) << "\n";
}

}  // namespace isobench::orchestrator
