// Replays every input kept under fuzz/corpus/<target>/ and fuzz/regressions/<target>/ through
// the fuzzed entry points, without libFuzzer: CI builds it with gcc (and under the sanitizers),
// so a crash found by fuzzing stays fixed. An entry point aborts on a broken invariant; the
// SIGABRT handler names the input that did it.
//
//   fuzz-replay [FUZZ_DIR]     (default: $ISOBENCH_SOURCE_DIR/fuzz)

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/entry_points.hpp"

namespace fs = std::filesystem;

namespace {

char current_input[4096] = "";

void name_input_on_abort(int) {
  const char prefix[] = "fuzz-replay: aborted on ";
  [[maybe_unused]] auto a = ::write(STDERR_FILENO, prefix, sizeof prefix - 1);
  [[maybe_unused]] auto b = ::write(STDERR_FILENO, current_input, std::strlen(current_input));
  [[maybe_unused]] auto c = ::write(STDERR_FILENO, "\n", 1);
  signal(SIGABRT, SIG_DFL);
  raise(SIGABRT);
}

std::vector<fs::path> files_under(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path root;
  if (argc > 1) {
    root = argv[1];
  } else if (const char* source = std::getenv("ISOBENCH_SOURCE_DIR")) {
    root = fs::path(source) / "fuzz";
  } else {
    std::fprintf(stderr, "usage: fuzz-replay FUZZ_DIR (or set ISOBENCH_SOURCE_DIR)\n");
    return 2;
  }
  signal(SIGABRT, name_input_on_abort);
  int status = 0;
  for (const auto& entry : isobench::fuzz::entry_points()) {
    const auto corpus = files_under(root / "corpus" / entry.name);
    const auto regressions = files_under(root / "regressions" / entry.name);
    // A target whose corpus went missing would pass vacuously.
    if (corpus.empty()) {
      std::fprintf(stderr, "fuzz-replay: no inputs under %s\n", (root / "corpus" / entry.name).c_str());
      status = 1;
    }
    for (const auto* set : {&corpus, &regressions})
      for (const auto& path : *set) {
        std::snprintf(current_input, sizeof current_input, "%s", path.c_str());
        std::ifstream in(path, std::ios::binary);
        std::ostringstream bytes;
        bytes << in.rdbuf();
        entry.run(bytes.str());
      }
    std::printf("%-16s %4zu corpus inputs, %3zu regressions: ok\n", entry.name, corpus.size(), regressions.size());
  }
  return status;
}
