#pragma once
// A variant of a calibration: an isolation measure applied over the sweep's settings, so
// `orchestrate calibrate --variants baseline,cold_cache,idle_gap_ms=50,realloc` runs the same A/A
// experiment once per measure and shows which of them lowers the false-positive rate on this
// machine. Measures join with '+' ("realloc+idle_gap_ms=50") to try them together.

#include <string>
#include <utility>
#include <vector>

#include "orchestrator/sweep.hpp"

namespace isobench::orchestrator::calibration {

struct Variant {
  // Canonical text, also the variant's folder under its mode: measures in a fixed order, true
  // flags bare ("cold_cache"), numbers as %g ("idle_gap_ms=50"). "baseline": the sweep as it is.
  std::string name = "baseline";
  std::vector<std::pair<std::string, double>> settings;  // (setting, value; flags 0 or 1); none for baseline

  bool is_baseline() const { return name == "baseline"; }
};

// One variant from its text. Throws std::invalid_argument with a one-line reason that names the
// text ("rotate_buffers=0: rotate_buffers must be an integer >= 1").
Variant parse_variant(const std::string& text);

// A comma-separated list; each name at most once (after canonicalisation). Throws
// std::invalid_argument as parse_variant, or naming a repeated variant.
std::vector<Variant> parse_variants(const std::string& text);

// `base` with the variant's settings over it: a variant overrides the sweep and the command line.
SettingsOverrides with_variant(SettingsOverrides base, const Variant& variant);

// "baseline, cold_cache, rotate_buffers=N, idle_gap_ms=MS, realloc": for help texts and errors.
std::string variant_syntax();

}  // namespace isobench::orchestrator::calibration
