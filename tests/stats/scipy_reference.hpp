#pragma once

// Loads tests/data/scipy/reference.json (written by tools/scipy_reference.py) and, through
// reference_data, other tools' reference files (tests/data/otava/, tools/otava_reference.py), and
// compares numbers the way the suites agree on: 1e-9 relative at every magnitude, so that a
// p-value of 1e-40 must be right to nine digits too (an absolute floor would let 0 pass for it).
// Only where the reference underflows to 0 does a value below 1e-300 count as equal.

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace isobench::stats::testing {

// A reference file under the source tree (tests/data/...), parsed.
inline nlohmann::json reference_data(const std::string& relative_path) {
  const char* root = std::getenv("ISOBENCH_SOURCE_DIR");
  const std::string path = std::string(root ? root : ".") + "/" + relative_path;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path + " (set ISOBENCH_SOURCE_DIR)");
  return nlohmann::json::parse(in);
}

inline const nlohmann::json& scipy_reference() {
  static const nlohmann::json data = reference_data("tests/data/scipy/reference.json");
  return data;
}

inline bool agrees(double ours, double reference) {
  if (reference == 0) return std::abs(ours) < 1e-300;
  return std::abs(ours - reference) <= 1e-9 * std::abs(reference);
}

inline std::vector<double> doubles(const nlohmann::json& array) { return array.get<std::vector<double>>(); }

}  // namespace isobench::stats::testing
