// calibrate --variants: the text of a variant, its canonical name (its folder under the mode) and
// the settings it lays over the sweep's; bad text is refused with one line naming it.
#include <doctest/doctest.h>

#include "orchestrator/calibration/experiment.hpp"
#include "orchestrator/calibration/variant.hpp"

using namespace isobench::orchestrator;
using namespace isobench::orchestrator::calibration;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_variants(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("variants parse into canonical names and the settings they override") {
  const auto v =
      parse_variants("baseline,cold_cache,rotate_buffers=4,idle_gap_ms=50.0,realloc,realloc=false+idle_gap_ms=2.5");
  REQUIRE(v.size() == 6);
  CHECK(v[0].is_baseline());
  CHECK(v[0].settings.empty());
  CHECK(v[1].name == "cold_cache");
  CHECK(v[2].name == "rotate_buffers=4");
  CHECK(v[3].name == "idle_gap_ms=50");  // numbers as %g: 50.0 and 50 are one variant
  CHECK(v[4].name == "realloc");
  CHECK(v[5].name == "idle_gap_ms=2.5+realloc=false");  // measures in a fixed order

  SettingsOverrides base;
  base.set("samples", 9);
  base.set("idle_gap_ms", 1.0);
  const auto over = with_variant(base, v[3]).values();
  CHECK(over.at("samples") == 9);         // what the variant does not set stays
  CHECK(over.at("idle_gap_ms") == 50.0);  // what it sets wins over the command line
  CHECK_FALSE(over.contains("realloc"));
  const auto both = with_variant({}, v[5]).values();
  CHECK(both.at("idle_gap_ms") == 2.5);
  CHECK(both.at("realloc") == false);
  CHECK(with_variant({}, v[1]).values().at("cold_cache") == true);
  CHECK(with_variant({}, v[2]).values().at("rotate_buffers") == 4);
  CHECK(parse_variant("cold_cache=true").name == "cold_cache");
}

TEST_CASE("bad variant text is refused with one line that names it") {
  const std::string known = "baseline, cold_cache, rotate_buffers=N, idle_gap_ms=MS, realloc";
  CHECK(error_of("baseline,idle_gap") == "idle_gap: unknown measure 'idle_gap' (known: " + known + ")");
  CHECK(error_of("rotate_buffers=0") == "rotate_buffers=0: rotate_buffers must be an integer >= 1, got '0'");
  CHECK(error_of("rotate_buffers=2.5") == "rotate_buffers=2.5: rotate_buffers must be an integer >= 1, got '2.5'");
  CHECK(error_of("idle_gap_ms=-1") == "idle_gap_ms=-1: idle_gap_ms must be a number from 0 to 60000, got '-1'");
  CHECK(error_of("idle_gap_ms=nan") == "idle_gap_ms=nan: idle_gap_ms must be a number from 0 to 60000, got 'nan'");
  CHECK(error_of("idle_gap_ms") == "idle_gap_ms: idle_gap_ms needs a value: idle_gap_ms=MS");
  CHECK(error_of("realloc=yes") == "realloc=yes: realloc takes true or false, or no value (true), got 'yes'");
  CHECK(error_of("realloc+realloc") == "realloc+realloc: realloc given twice");
  CHECK(error_of("baseline+realloc") ==
        "baseline+realloc: baseline stands alone (it is the sweep without any measure)");
  CHECK(error_of("realloc+") == "realloc+: a '+' without a measure after it");
  CHECK(error_of("cold_cache,cold_cache=true") == "'cold_cache=true' given twice (as cold_cache)");
  CHECK(error_of("baseline,") == "give a comma-separated list: " + known);
  CHECK(error_of("") == "give a comma-separated list: " + known);
  CHECK(error_of("a/b") == "a/b: unknown measure 'a/b' (known: " + known + ")");
}

TEST_CASE("planned runs: a variant's folder under its mode, variants taking turns run by run") {
  ExperimentSpec spec;
  spec.dir = "cal";
  spec.modes = {"process", "ab"};
  spec.runs = 2;
  spec.real_slowdowns = {5};
  spec.variants = parse_variants("baseline,realloc");
  std::vector<std::string> labels;
  for (const auto& r : planned_runs(spec)) labels.push_back(r.label());
  CHECK(labels == std::vector<std::string>{"process/run-0", "process/realloc/run-0", "process/run-1",
                                           "process/realloc/run-1", "process/slowdown-5/run-0",
                                           "process/realloc/slowdown-5/run-0", "process/slowdown-5/run-1",
                                           "process/realloc/slowdown-5/run-1", "ab/run-0", "ab/realloc/run-0",
                                           "ab/run-1", "ab/realloc/run-1"});
  // experiment.json keeps the variants; one written before them holds the baseline alone.
  auto j = spec.to_json();
  CHECK(j["variants"] == nlohmann::json({"baseline", "realloc"}));
  CHECK(ExperimentSpec::from_json(j).variants.size() == 2);
  j.erase("variants");
  const auto old = ExperimentSpec::from_json(j);
  REQUIRE(old.variants.size() == 1);
  CHECK(old.variants[0].is_baseline());
}
