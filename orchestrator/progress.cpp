#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace isobench::orchestrator {

std::string format_duration(double seconds) {
  if (seconds < 0) seconds = 0;
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%02ld:%02ld", s / 60, s % 60);
  return buf;
}

Progress::Progress(std::size_t total, bool quiet, bool up_to)
    : phase_start_(std::chrono::steady_clock::now()),
      total_(total),
      up_to_(up_to),
      quiet_(quiet),
      tty_(isatty(STDERR_FILENO) != 0),
      start_(phase_start_),
      last_(start_) {}

void Progress::phase(const std::string& name, std::size_t done) {
  phase_ = name;
  phase_start_ = std::chrono::steady_clock::now();
  phase_done_ = done;
  update(done, 0, /*force=*/true);
}

std::string Progress::line(std::size_t done, std::size_t workers) const {
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double in_phase = std::chrono::duration<double>(now - phase_start_).count();
  std::string eta = "--:--";
  if (done > phase_done_ && done < total_)
    eta = format_duration(in_phase / static_cast<double>(done - phase_done_) * static_cast<double>(total_ - done));
  if (done >= total_) eta = "00:00";
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s | samples %zu/%s%zu | workers %zu | elapsed %s | ETA %s", phase_.c_str(), done,
                up_to_ ? "up to " : "", total_, workers, format_duration(elapsed).c_str(), eta.c_str());
  return buf;
}

void Progress::update(std::size_t done, std::size_t workers, bool force) {
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (!force && since < (tty_ ? 0.2 : 10.0)) return;
  last_ = now;
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s", line(done, workers).c_str());
    drawn_ = true;
  } else {
    std::fprintf(stderr, "%s\n", line(done, workers).c_str());
  }
  std::fflush(stderr);
}

void Progress::finish(std::size_t done, std::size_t workers) {
  if (quiet_) return;
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s\n", line(done, workers).c_str());
  } else {
    std::fprintf(stderr, "%s\n", line(done, workers).c_str());
  }
  drawn_ = false;
}

void Progress::message(const std::string& text) {
  if (quiet_) return;
  if (tty_ && drawn_) std::fprintf(stderr, "\r\033[K");
  std::fprintf(stderr, "%s\n", text.c_str());
  drawn_ = false;
}

}  // namespace isobench::orchestrator
