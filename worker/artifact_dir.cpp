#include "artifact_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "ipc/artifact_folder.hpp"

namespace isobench::worker {

void enter_artifact_folder(const std::string& root, const std::string& instance_id) {
  if (root.empty()) {
    ::unsetenv(ipc::kArtifactDirVariable);
    return;
  }
  const std::filesystem::path folder = std::filesystem::path(root) / ipc::artifact_folder_name(instance_id);
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) throw std::runtime_error("artifact folder " + folder.string() + " of " + instance_id + ": " + ec.message());
  if (::setenv(ipc::kArtifactDirVariable, folder.c_str(), /*overwrite=*/1) != 0)
    throw std::runtime_error(std::string("cannot set ") + ipc::kArtifactDirVariable);
}

}  // namespace isobench::worker
