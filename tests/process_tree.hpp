#pragma once
// The processes below this one, read from /proc, for tests that kill a process and then look
// for anything it started that lives on. The test process becomes a child subreaper first
// (PR_SET_CHILD_SUBREAPER): a process whose parent dies is reparented to it instead of init, so
// every descendant stays visible as one, and the test reaps them (a zombie is not alive).

#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace isobench::testing {

struct ProcessEntry {
  pid_t pid = 0;
  pid_t ppid = 0;
  pid_t pgrp = 0;
  char state = '?';     // R, S, D, Z, ...: /proc/PID/stat
  std::string cmdline;  // arguments joined by spaces
  bool alive() const { return state != 'Z' && state != 'X'; }
};

inline void become_subreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 1); }

// Every process this process can see; one that ends while it is read is left out.
inline std::vector<ProcessEntry> all_processes() {
  std::vector<ProcessEntry> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::ifstream stat(e.path() / "stat");
    std::string text;
    if (!std::getline(stat, text)) continue;
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    const auto close = text.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(text.substr(close + 1));
    ProcessEntry p;
    p.pid = static_cast<pid_t>(std::stol(name));
    fields >> p.state >> p.ppid >> p.pgrp;
    if (!fields) continue;
    std::ifstream cmd(e.path() / "cmdline");
    std::getline(cmd, p.cmdline, '\xff');
    std::replace(p.cmdline.begin(), p.cmdline.end(), '\0', ' ');
    out.push_back(p);
  }
  return out;
}

// The live processes below `root` (children, their children, ...).
inline std::vector<ProcessEntry> live_descendants(pid_t root = ::getpid()) {
  const auto all = all_processes();
  std::multimap<pid_t, const ProcessEntry*> children;
  for (const auto& p : all) children.emplace(p.ppid, &p);
  std::vector<ProcessEntry> out;
  std::vector<pid_t> frontier = {root};
  while (!frontier.empty()) {
    const pid_t parent = frontier.back();
    frontier.pop_back();
    for (auto [it, end] = children.equal_range(parent); it != end; ++it) {
      if (it->second->alive()) out.push_back(*it->second);
      frontier.push_back(it->second->pid);
    }
  }
  return out;
}

// Reaps every child of this process that has ended; returns how many.
inline int reap_ended_children() {
  int n = 0;
  int status = 0;
  while (::waitpid(-1, &status, WNOHANG) > 0) ++n;
  return n;
}

// Waits up to `limit` for every descendant of this process to end, reaping them; returns those
// still alive then (empty when all ended).
inline std::vector<ProcessEntry> wait_for_no_descendants(std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    reap_ended_children();
    auto live = live_descendants();
    if (live.empty() || std::chrono::steady_clock::now() >= until) return live;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// The wait status of child `pid` once it ended, or nothing if it still runs after `limit`.
inline std::optional<int> wait_for_exit(pid_t pid, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  for (;;) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 || std::chrono::steady_clock::now() >= until) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

inline std::string describe(const std::vector<ProcessEntry>& processes) {
  std::string text;
  for (const auto& p : processes)
    text += "pid " + std::to_string(p.pid) + " (" + p.state + ", parent " + std::to_string(p.ppid) + "): " + p.cmdline +
            "\n";
  return text;
}

}  // namespace isobench::testing
