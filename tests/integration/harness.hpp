#pragma once
// Runs the real orchestrate binary (and real workers) from tests, in a scratch directory.

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

extern char** environ;

namespace isobench::testing {

inline std::string binary_dir() {
  const char* d = std::getenv("ISOBENCH_BINARY_DIR");
  return d ? d : ".";
}

inline std::string source_dir() {
  const char* d = std::getenv("ISOBENCH_SOURCE_DIR");
  return d ? d : ".";
}

inline std::string bin(const std::string& name) { return binary_dir() + "/bin/" + name; }

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The non-empty lines of a file (the marker files test modules append to).
inline std::vector<std::string> lines(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(slurp(path));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

struct Scratch {
  std::filesystem::path dir;
  explicit Scratch(const std::string& name) {
    dir = std::filesystem::temp_directory_path() / ("isobench-test-" + name + "-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() { std::filesystem::remove_all(dir); }
  std::string path(const std::string& rel) const { return (dir / rel).string(); }
  std::string write(const std::string& rel, const std::string& text) const {
    std::ofstream(path(rel)) << text;
    return path(rel);
  }
};

struct Result {
  int exit_code = -1;
  std::string out, err;
};

// Runs `command` through the shell with stdout and stderr captured.
inline Result run(const std::string& command, const Scratch& scratch) {
  const std::string out = scratch.path("stdout.txt"), err = scratch.path("stderr.txt");
  const int status = std::system((command + " >" + out + " 2>" + err + " </dev/null").c_str());
  Result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// Starts `args` (the program first) without waiting, stdout and stderr into the scratch
// directory's stdout.txt and stderr.txt; returns its pid, or -1.
inline pid_t spawn(const std::vector<std::string>& args, const Scratch& scratch) {
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, scratch.path("stdout.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, scratch.path("stderr.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  const int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return error == 0 ? pid : -1;
}

// What is wrong with how a run refused bad input, or "" when nothing is: exit code 2, one line on
// stderr holding every one of `expected`, and no run directory left at `run_dir`.
inline std::string bad_input_problem(const Result& r, const std::vector<std::string>& expected,
                                     const std::string& run_dir) {
  if (r.exit_code != 2) return "exit code " + std::to_string(r.exit_code) + ", not 2; stderr: " + r.err;
  for (const auto& e : expected)
    if (r.err.find(e) == std::string::npos) return "stderr lacks '" + e + "': " + r.err;
  if (std::count(r.err.begin(), r.err.end(), '\n') != 1) return "not one line on stderr: " + r.err;
  if (std::filesystem::exists(run_dir)) return run_dir + " was left behind";
  return "";
}

inline std::vector<nlohmann::json> read_jsonl(const std::string& path, const std::string& type = "sample") {
  std::vector<nlohmann::json> rows;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    if (j.value("type", "sample") == type) rows.push_back(j);
  }
  return rows;
}

// The samples a journal holds so far, while its run is still writing it: a line is appended with
// one write(), but a read beside that write can see part of it, so a last line without its end
// of line is not counted (read_jsonl, for a journal at rest, parses every line). For waiting, not
// for checking what a run wrote.
inline std::size_t samples_so_far(const std::string& path) {
  const std::string text = slurp(path);
  const auto end = text.rfind('\n');
  if (end == std::string::npos) return 0;
  std::size_t n = 0;
  std::istringstream lines(text.substr(0, end + 1));
  for (std::string line; std::getline(lines, line);)
    n += nlohmann::json::parse(line).value("type", "sample") == "sample";
  return n;
}

inline nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(slurp(path)); }

// The verdicts of an `orchestrate compare --json` of run directories, by instance.
inline std::map<std::string, std::string> verdicts(const nlohmann::json& compare) {
  std::map<std::string, std::string> v;
  for (const auto& row : compare.at("instances")) v[row.at("instance")] = row.at("verdict");
  return v;
}

// Waits (up to a minute) until the run's journal holds `n` samples.
inline void wait_for_samples(const std::string& journal, std::size_t n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline &&
         !(std::filesystem::exists(journal) && samples_so_far(journal) >= n))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

}  // namespace isobench::testing
