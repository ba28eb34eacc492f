#pragma once
// Checks of command-line values, for the options CLI11's own validators word badly or miss: its
// PositiveNumber answers "--worker-timeout 0" with "Value 0 not in range 0.000000 to" and 309
// digits of DBL_MAX, lets "nan" through, and an unsigned option takes "-1" as 2^64 - 1 (a
// --power-repetitions of -1 then simulated forever).

#include <cmath>
#include <cstdlib>
#include <string>

#include <CLI/CLI.hpp>

namespace isobench::orchestrator {

// A finite number above 0 (seconds, say).
inline CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(v) || v <= 0)
          return "must be a positive number, got " + text;
        return {};
      },
      "POSITIVE", "positive_number");
}

// 0, 1, 2, ...: a count, an index or a size, written in decimal digits.
inline CLI::Validator whole_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
          return "must be a whole number, 0 or more, got " + text;
        return {};
      },
      "WHOLE", "whole_number");
}

}  // namespace isobench::orchestrator
