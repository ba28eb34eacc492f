#pragma once
// A scratch folder for one test, removed with everything in it when the test ends.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace isobench::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "isobench_test") {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            (prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // The file `relative` inside, written with `text` (folders made as needed).
  std::filesystem::path write(const std::filesystem::path& relative, const std::string& text) const {
    const auto file = path_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }
  std::string operator/(const std::string& relative) const { return (path_ / relative).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace isobench::testing
