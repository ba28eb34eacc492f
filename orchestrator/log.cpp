#include "orchestrator/log.hpp"

#include <iostream>

namespace isobench::orchestrator {

Log Log::to_stderr(bool quiet) {
  return Log([quiet](LogLevel level, const std::string& line) {
    if (quiet && (level == LogLevel::progress || level == LogLevel::note)) return;
    const char* prefix = level == LogLevel::note ? "note: " : level == LogLevel::warning ? "warning: " : "";
    std::cerr << prefix << line << "\n";
  });
}

}  // namespace isobench::orchestrator
