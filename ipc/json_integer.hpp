#pragma once
// Integers read from JSON written by other processes or found on disk (the segment's instance
// table, plan.json, samples.jsonl). nlohmann::json converts a float into an integer type with a
// plain cast, undefined behaviour when it is out of range (found by fuzz/): these fields hold
// integers, and anything else is damage.

#include <cstdint>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

namespace isobench::ipc {

template <class T>
T json_integer(const nlohmann::json& v) {
  if (v.is_number_unsigned()) {
    if (const auto u = v.get<std::uint64_t>(); std::in_range<T>(u)) return static_cast<T>(u);
  } else if (v.is_number_integer()) {
    if (const auto i = v.get<std::int64_t>(); std::in_range<T>(i)) return static_cast<T>(i);
  }
  throw std::runtime_error("expected an integer in range, got " + v.dump());
}

}  // namespace isobench::ipc
