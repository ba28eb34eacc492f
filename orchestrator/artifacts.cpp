#include "artifacts.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <system_error>

#include "ipc/artifact_folder.hpp"
#include "orchestrator/printable.hpp"
#include "sha256.hpp"

namespace fs = std::filesystem;

namespace isobench::orchestrator {

namespace {

using nlohmann::json;

// Whether a link at `link` with target `target` stays inside `folder`, judged on the paths alone:
// following the link to find out is what must not happen.
bool link_stays_inside(const fs::path& folder, const fs::path& link, const fs::path& target) {
  const fs::path base = fs::absolute(folder).lexically_normal();
  const fs::path resolved =
      (target.is_absolute() ? target : fs::absolute(link).parent_path() / target).lexically_normal();
  const fs::path relative = resolved.lexically_relative(base);
  return !relative.empty() && *relative.begin() != "..";
}

json file_json(const ArtifactFile& f) {
  json j = {{"path", f.path}, {"bytes", f.bytes}};
  if (!f.sha256.empty()) j["sha256"] = f.sha256;
  if (!f.symlink.empty()) j["symlink"] = f.symlink;
  if (!f.skipped.empty()) j["skipped"] = f.skipped;
  return j;
}

std::string optional_string(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) return {};
  if (!j[key].is_string()) throw std::runtime_error(where + ": \"" + key + "\" is not a string");
  return j[key].get<std::string>();
}

}  // namespace

bool ArtifactFile::same_content(const ArtifactFile& other) const {
  if (!sha256.empty() && !other.sha256.empty()) return sha256 == other.sha256;
  return sha256 == other.sha256 && symlink == other.symlink && bytes == other.bytes;
}

std::vector<ArtifactFile> scan_artifact_folder(const fs::path& folder, std::uint64_t max_bytes) {
  std::vector<ArtifactFile> files;
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(folder, ec))) return files;
  // Default options: a symbolic link to a directory is listed, never descended into.
  fs::recursive_directory_iterator it(folder, ec);
  // An error leaves the iterator at the end: it is checked after every step, not by the loop.
  const auto check = [&] {
    if (ec) throw std::runtime_error(folder.string() + ": cannot list: " + ec.message());
  };
  check();
  for (; it != fs::recursive_directory_iterator(); it.increment(ec), check()) {
    const fs::directory_entry& entry = *it;
    const auto status = entry.symlink_status(ec);
    if (ec) throw std::runtime_error(entry.path().string() + ": " + ec.message());
    if (fs::is_directory(status)) continue;
    ArtifactFile f;
    f.path = printable(entry.path().lexically_relative(folder).generic_string());
    if (fs::is_symlink(status)) {
      const fs::path target = fs::read_symlink(entry.path(), ec);
      f.symlink = printable(target.string());
      if (ec || !link_stays_inside(folder, entry.path(), target))
        f.skipped = "symbolic link pointing outside the instance folder: not followed";
    } else if (!fs::is_regular_file(status)) {
      f.skipped = "not a regular file";
    } else {
      f.bytes = entry.file_size(ec);
      if (ec) {
        f.skipped = "cannot read its size: " + ec.message();
      } else if (f.bytes > max_bytes) {
        f.skipped = "larger than " + std::to_string(max_bytes >> 20) + " MiB: not hashed";
      } else {
        try {
          f.sha256 = sha256_file_hex(entry.path().string());
        } catch (const std::exception& e) {
          f.skipped = std::string("not hashed: ") + e.what();
        }
      }
    }
    files.push_back(std::move(f));
  }
  std::sort(files.begin(), files.end(), [](const ArtifactFile& a, const ArtifactFile& b) { return a.path < b.path; });
  return files;
}

ArtifactArchive archive_artifacts(const fs::path& root, const std::vector<std::string>& ids, std::uint32_t sides,
                                  std::uint64_t max_bytes) {
  ArtifactArchive archive;
  json sides_json = json::array();
  for (std::uint32_t side = 0; side < sides; ++side) {
    const std::string side_name = "side-" + std::to_string(side);
    const fs::path side_dir = root / side_name;
    json instances = json::object();
    for (const auto& id : ids) {
      const std::string name = ipc::artifact_folder_name(id);
      const fs::path folder = side_dir / name;
      std::vector<ArtifactFile> files;
      try {
        files = scan_artifact_folder(folder, max_bytes);
      } catch (const std::exception& e) {
        archive.notes.push_back(side_name + " " + id + ": " + e.what());
        continue;
      }
      std::error_code ec;
      if (files.empty()) {
        // Only a folder (never a link put in its place), and only an empty one: remove() refuses
        // a folder with anything in it, which then stays as it is.
        if (fs::is_directory(fs::symlink_status(folder, ec))) fs::remove(folder, ec);
        continue;
      }
      json list = json::array();
      for (const auto& f : files) {
        if (!f.skipped.empty()) archive.notes.push_back(side_name + " " + id + ": " + f.path + ": " + f.skipped);
        list.push_back(file_json(f));
      }
      instances[id] = {{"folder", (root.filename() / side_name / name).generic_string()}, {"files", list}};
    }
    std::error_code ec;
    fs::remove(side_dir, ec);
    sides_json.push_back({{"side", side}, {"instances", instances}});
  }
  std::error_code ec;
  fs::remove(root, ec);
  archive.document = {{"schema_version", kArtifactsSchemaVersion}, {"max_file_bytes", max_bytes}, {"sides", sides_json}};
  return archive;
}

ArtifactSide artifact_side_from_json(const json& document, std::uint32_t side, const std::string& file) {
  if (!document.is_object() || !document.contains("schema_version") || !document["schema_version"].is_number_integer())
    throw std::runtime_error(file + ": no integer schema_version");
  const auto version = document["schema_version"].get<long long>();
  if (version > kArtifactsSchemaVersion)
    throw std::runtime_error(file + ": schema_version " + std::to_string(version) + " is newer than this build reads (" +
                             std::to_string(kArtifactsSchemaVersion) + ")");
  if (!document.contains("sides") || !document["sides"].is_array())
    throw std::runtime_error(file + ": no \"sides\" array");
  ArtifactSide result;
  for (const json& s : document["sides"]) {
    if (!s.is_object() || !s.contains("side") || !s["side"].is_number_unsigned())
      throw std::runtime_error(file + ": a side without an unsigned \"side\"");
    if (s["side"].get<std::uint64_t>() != side) continue;
    if (!s.contains("instances") || !s["instances"].is_object())
      throw std::runtime_error(file + ": side " + std::to_string(side) + ": no \"instances\" object");
    for (const auto& [id, instance] : s["instances"].items()) {
      const std::string where = file + ": side " + std::to_string(side) + ": " + id;
      if (!instance.is_object() || !instance.contains("files") || !instance["files"].is_array())
        throw std::runtime_error(where + ": no \"files\" array");
      auto& files = result[id];
      for (const json& f : instance["files"]) {
        if (!f.is_object() || !f.contains("path") || !f["path"].is_string())
          throw std::runtime_error(where + ": a file without a string \"path\"");
        if (!f.contains("bytes") || !f["bytes"].is_number_unsigned())
          throw std::runtime_error(where + ": " + f["path"].get<std::string>() + ": \"bytes\" is not a size");
        ArtifactFile a;
        a.path = f["path"].get<std::string>();
        a.bytes = f["bytes"].get<std::uint64_t>();
        a.sha256 = optional_string(f, "sha256", where);
        if (!a.sha256.empty() &&
            (a.sha256.size() != 64 || a.sha256.find_first_not_of("0123456789abcdef") != std::string::npos))
          throw std::runtime_error(where + ": " + a.path + ": \"sha256\" is not 64 lowercase hex digits");
        a.symlink = optional_string(f, "symlink", where);
        a.skipped = optional_string(f, "skipped", where);
        files.push_back(std::move(a));
      }
    }
  }
  return result;
}

}  // namespace isobench::orchestrator
