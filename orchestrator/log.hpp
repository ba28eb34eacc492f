#pragma once
// Notes, warnings and progress from library code, through one channel that the verb binds (as
// nvbench's printer.log(level, msg)): the run pipeline, calibrate and bisect write to no stream of
// their own. orchestrate's verbs bind it to stderr (Log::to_stderr), where --quiet silences
// progress and notes; a Log bound to nothing drops every line (in-process runs, tests).

#include <functional>
#include <string>

namespace isobench::orchestrator {

enum class LogLevel {
  progress,  // what is being done now ("bisect: building abc123"), as it is; --quiet drops it
  note,      // worth knowing, changes nothing: "note: " before it; --quiet drops it
  warning,   // may spoil the numbers or the run: "warning: " before it; always said
  status,    // where the results are and what to do next, as it is; always said
};

class Log {
 public:
  using Sink = std::function<void(LogLevel, const std::string& line)>;
  Log() = default;  // drops everything
  explicit Log(Sink sink) : sink_(std::move(sink)) {}

  void progress(const std::string& line) const { write(LogLevel::progress, line); }
  void note(const std::string& line) const { write(LogLevel::note, line); }
  void warning(const std::string& line) const { write(LogLevel::warning, line); }
  void status(const std::string& line) const { write(LogLevel::status, line); }
  void write(LogLevel level, const std::string& line) const {
    if (sink_) sink_(level, line);
  }

  // stderr, a line each: notes and warnings with their prefix; with `quiet`, no progress or notes.
  static Log to_stderr(bool quiet);

 private:
  Sink sink_;
};

}  // namespace isobench::orchestrator
