#pragma once
// Progress on stderr: a line redrawn in place when stderr is a terminal, plain lines every
// few seconds when it is not (CI logs), nothing with --quiet.

#include <chrono>
#include <cstddef>
#include <string>

namespace isobench::orchestrator {

class Progress {
 public:
  // `total`: the samples the run takes; with `up_to`, the most it may take (a sequential run,
  // whose instances may stop at any look), which the line says ("samples 120/up to 480").
  Progress(std::size_t total, bool quiet, bool up_to = false);
  void update(std::size_t done, std::size_t workers_started, bool force = false);
  void finish(std::size_t done, std::size_t workers_started);
  void message(const std::string& line);  // a line of its own, above the progress line
  // What the run is doing now ("calibrating inner counts (9 instances)", "pinning choices",
  // "measuring"): the line names it, and the ETA counts from the phase's own start, so set-up
  // time does not stretch the measuring phase's estimate.
  void phase(const std::string& name, std::size_t done);
  // A new most for the line to count towards (a sequential run's extension, past what it began with).
  void set_total(std::size_t total) { total_ = total; }

 private:
  std::string line(std::size_t done, std::size_t workers) const;
  std::string phase_ = "measuring";
  std::chrono::steady_clock::time_point phase_start_;
  std::size_t phase_done_ = 0;  // samples done when the phase began
  std::size_t total_;
  bool up_to_;
  bool quiet_;
  bool tty_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

std::string format_duration(double seconds);  // 1:05:03, 04:07

}  // namespace isobench::orchestrator
