#pragma once

// Loads tests/data/scipy/reference.json (written by tools/scipy_reference.py) and compares
// numbers the way the suites agree on: 1e-9 relative, or 1e-12 absolute for tiny values.

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace isobench::stats::testing {

inline const nlohmann::json& scipy_reference() {
  static const nlohmann::json data = [] {
    const char* root = std::getenv("ISOBENCH_SOURCE_DIR");
    const std::string path = std::string(root ? root : ".") + "/tests/data/scipy/reference.json";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path + " (set ISOBENCH_SOURCE_DIR)");
    return nlohmann::json::parse(in);
  }();
  return data;
}

inline bool agrees(double ours, double reference) {
  const double diff = std::abs(ours - reference);
  return diff <= 1e-9 * std::abs(reference) || diff <= 1e-12;
}

inline std::vector<double> doubles(const nlohmann::json& array) { return array.get<std::vector<double>>(); }

}  // namespace isobench::stats::testing
