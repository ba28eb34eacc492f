// What the outcome line says an UNCERTAIN instance lacks (orchestrator/compare/resolution.hpp):
// the interval's width against the floor, or p after the correction across instances, each with
// its own sample count, and never the mode the run already used.
#include "orchestrator/compare/resolution.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace isobench::orchestrator;

namespace {

Comparison instance(const std::string& id, double lo, double hi, double p, double p_adjusted, std::size_t n = 20) {
  Comparison c;
  c.id = id;
  c.n_a = c.n_b = n;
  c.hl.lo = lo;
  c.hl.hi = hi;
  c.hl.ratio = (lo + hi) / 2;
  c.bm.p_value = c.bm.asymptotic_p_value = p;
  c.p_adjusted = p_adjusted;
  c.verdict = isobench::stats::Verdict::uncertain;
  return c;
}

// A report of a run sampled until a verdict: the default looks up to `most` per side, with the
// extension up to `cap` where it is above `most`.
ComparisonReport sequential_report(std::size_t instances, std::size_t most, std::size_t cap = 0) {
  ComparisonReport report;
  SequentialPlan plan;
  plan.instances = instances;
  use_default_looks(plan, most, cap);
  report.sequential = plan;
  return report;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The number before " samples per side would bring it below".
double samples_to_lower_p(const std::string& note) {
  const auto end = note.find(" samples per side would bring it below");
  REQUIRE(end != std::string::npos);
  const auto begin = note.rfind("about ", end);
  return std::stod(note.substr(begin + 6, end - begin - 6));
}

}  // namespace

TEST_CASE("an interval beyond the floor with p short names p after Holm across the instances, not the width") {
  ComparisonReport report;
  // 12 instances: 11 decided SAME, one 40% slower whose p after Holm is 0.004 (raw 0.00033).
  for (int i = 0; i < 11; ++i) {
    auto c = instance("same" + std::to_string(i), 0.99, 1.01, 0.5, 1);
    c.verdict = isobench::stats::Verdict::same;
    report.compared.push_back(c);
  }
  report.compared.push_back(instance("getall", 1.30, 1.50, 0.00033, 0.004));
  const std::string note = unresolved_note(report);
  CHECK_MESSAGE(has(note, "with the interval beyond the floor (1 instance), p after Holm across 12 instances is not "
                          "below alpha 0.001: 0.004 for getall at 20 samples per side"),
                note);
  CHECK_MESSAGE(!has(note, "narrow it to the floor"), note);  // the width is not what is short
  // Holm's level for the smallest of 12 p-values is 0.001/12; the z of p 0.00033 is 3.59, the
  // level's 3.94: about 20 (3.94/3.59)^2 = 24.1 per side, far from the thousands a width rule says.
  const double n = samples_to_lower_p(note);
  CHECK(n >= 22);
  CHECK(n <= 30);
  CHECK_MESSAGE(has(note, "(--samples " + std::to_string(static_cast<int>(n)) + ", or ab --until-verdict)"), note);
}

TEST_CASE("a run sampled until a verdict is told its cap, never --until-verdict") {
  auto report = sequential_report(2, 20);
  const auto& plan = *report.sequential;
  auto p_short = instance("a", 1.3, 1.5, 0.0004, 0.002);
  p_short.look = plan.looks.size() - 1;
  auto wide = instance("b", 0.8, 1.3, 0.2, 1);
  wide.look = plan.looks.size() - 1;
  report.compared = {p_short, wide};
  const std::string note = unresolved_note(report);
  CHECK_MESSAGE(!has(note, "until-verdict"), note);
  CHECK_MESSAGE(has(note, "narrow it to the floor (--max-samples N)"), note);
  CHECK_MESSAGE(has(note, "samples per side would bring it below (--max-samples "), note);
  CHECK_MESSAGE(has(note, "p at the level its last look spent (alpha 0.001 over 2 instances and the looks)"), note);
  // Both causes are named, the width first.
  CHECK(note.find("intervals as wide as [0.8000, 1.3000] (b)") < note.find("with the interval beyond the floor"));
}

TEST_CASE("an interval across the floor is short of width: the samples that narrow it to the floor") {
  ComparisonReport report;
  report.compared = {instance("wide", 0.95, 1.10, 0.3, 0.3, 10)};
  const std::string note = unresolved_note(report);
  CHECK_MESSAGE(note.starts_with("where UNCERTAIN, this run cannot resolve a change of 2.00% (the noise floor, "
                                 "--threshold): intervals as wide as [0.9500, 1.1000] (wide), 15.8% of the ratio at "
                                 "10 samples per side; about "),
                note);
  CHECK_MESSAGE(note.ends_with(" samples per side would narrow it to the floor (--samples N, or ab --until-verdict)"),
                note);
  CHECK_MESSAGE(!has(note, "bring it below"), note);
  // No UNCERTAIN instance, no note.
  report.compared.front().verdict = isobench::stats::Verdict::same;
  CHECK(unresolved_note(report).empty());
}

TEST_CASE("a run with the extension is told to raise its cap for p, --max-samples for width") {
  auto report = sequential_report(2, 20, 60);
  const auto& plan = *report.sequential;
  auto p_short = instance("a", 1.3, 1.5, 0.00004, 0.0004, 60);  // went on to the cap
  p_short.look = plan.looks.size() - 1;
  auto wide = instance("b", 0.8, 1.3, 0.2, 1);  // stopped at the last ordinary look
  wide.look = 3;
  report.compared = {p_short, wide};
  const std::string note = unresolved_note(report);
  CHECK_MESSAGE(has(note, "narrow it to the floor (--max-samples N)"), note);
  CHECK_MESSAGE(has(note, "at 60 samples per side; about "), note);
  CHECK_MESSAGE(has(note, "samples per side would bring it below (--extend-to "), note);
  CHECK(samples_to_lower_p(note) > 60);
}

TEST_CASE("of several instances only p keeps from a verdict, the note names the one that needs the most samples") {
  // As in an A/B of a pytest suite at ab's defaults without the extension: 70 instances, several
  // intervals beyond the floor at 20 per side, each p's upper end clamped to 1 after the
  // correction. The first such instance is the nearest to its level; the note's count must be
  // the one the farthest needs, not whichever came first among equal adjusted p-values.
  auto report = sequential_report(70, 20);
  const auto& plan = *report.sequential;
  auto near = instance("near", 0.45, 0.75, 0.001, 1);
  auto far = instance("far", 0.50, 0.95, 0.004, 1);
  near.look = far.look = plan.looks.size() - 1;
  report.compared = {near, far};
  const std::string note = unresolved_note(report);
  CHECK_MESSAGE(has(note, "(2 instances)"), note);
  CHECK_MESSAGE(has(note, ": 1 for far at 20 samples per side"), note);
  // Alone, each instance's count: the note's is the larger.
  report.compared = {near};
  const double near_needs = samples_to_lower_p(unresolved_note(report));
  report.compared = {far};
  const double far_needs = samples_to_lower_p(unresolved_note(report));
  CHECK(far_needs > near_needs);
  report.compared = {near, far};
  CHECK(samples_to_lower_p(note) == far_needs);
}

TEST_CASE("instances the futility rule stopped are counted, with where they stopped and how to sample them on") {
  auto report = sequential_report(4, 20, 60);
  report.sequential->futility = 0.01;
  auto stopped = instance("control-a", 0.96, 1.05, 0.6, 1, 12);
  stopped.futile = true;
  auto later = instance("control-b", 0.97, 1.03, 0.7, 1, 16);
  later.futile = true;
  report.compared = {stopped, later};
  const std::string note = unresolved_note(report);
  CHECK_MESSAGE(has(note, "2 instances stopped early (from 12 per side): by their intervals so far, unlikely to settle "
                          "inside or beyond the floor by 20 per side (--futility 0 samples to the last look)"),
                note);
  // The width's own advice stays: the widest interval and the samples that would narrow it.
  CHECK_MESSAGE(has(note, "intervals as wide as"), note);
  // One that reached the last look is not counted.
  report.compared[1].futile = false;
  CHECK_MESSAGE(has(unresolved_note(report), "1 instance stopped early (from 12 per side)"), unresolved_note(report));
  report.compared[0].futile = false;
  CHECK_FALSE(has(unresolved_note(report), "stopped early"));
}
