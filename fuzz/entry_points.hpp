#pragma once
// The fuzzed entry points: each feeds one input through a reader the orchestrator or a worker
// runs on bytes it did not write, and aborts when the reader breaks its contract: an exception
// other than the documented one escapes, or what it accepted violates an invariant its callers
// rely on. The libFuzzer targets (fuzz_target.cpp) and the replay test (replay_main.cpp) call
// the same functions, so a crash found by fuzzing stays fixed in CI builds without libFuzzer.

#include <string_view>
#include <vector>

namespace isobench::fuzz {

struct EntryPoint {
  const char* name;  // the target's name: fuzz/corpus/<name>/, fuzz/regressions/<name>/
  void (*run)(std::string_view input);
};

// sweep, journal, plan, compare_samples, compare_run, segment
const std::vector<EntryPoint>& entry_points();
const EntryPoint* find_entry_point(std::string_view name);

}  // namespace isobench::fuzz
