#pragma once
// Runs the real orchestrate binary (and real workers) from tests, in a scratch directory.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

inline nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(slurp(path)); }

}  // namespace isobench::testing
