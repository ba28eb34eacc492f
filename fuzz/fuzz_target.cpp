// One libFuzzer target per entry point: ISOBENCH_FUZZ_TARGET names it (fuzz/CMakeLists.txt).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/entry_points.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto* entry = isobench::fuzz::find_entry_point(ISOBENCH_FUZZ_TARGET);
  entry->run(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
