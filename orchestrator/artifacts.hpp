#pragma once
// The artifacts of a run: files benchmarks wrote into their per-instance folders
// (<run>/artifacts/side-<s>/<artifact_folder_name(id)>/, handed to them as ISOBENCH_ARTIFACT_DIR),
// listed with their sizes and SHA-256 in artifacts.json once the run ends, so that `compare` can
// say which of them differ between a baseline and a candidate (docs/run-format.md).

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace isobench::orchestrator {

inline constexpr int kArtifactsSchemaVersion = 1;
// Files above this are listed with their size but not hashed: an artifact folder is for IR,
// SASS and tuning decisions, and hashing a stray multi-GB dump would hold up the end of a run.
inline constexpr std::uint64_t kMaxArtifactBytes = std::uint64_t{256} << 20;

struct ArtifactFile {
  std::string path;        // relative to the instance folder, '/'-separated
  std::uint64_t bytes = 0;
  std::string sha256;      // 64 hex digits; empty when not hashed
  std::string symlink;     // a symbolic link: its target as written (never followed)
  std::string skipped;     // why it was not hashed; empty when hashed or a link inside the folder
  // Whether the two entries have the same content, as far as they tell: the hashes when both
  // were hashed, otherwise the link target and the size.
  bool same_content(const ArtifactFile& other) const;
};

// The files under `folder`, recursively, sorted by path. Nothing is followed: a symbolic link is
// listed with its target (and as skipped when the target lies outside the folder); devices,
// FIFOs and sockets are listed as skipped; files over max_bytes get their size only. A folder
// that does not exist holds no files.
std::vector<ArtifactFile> scan_artifact_folder(const std::filesystem::path& folder,
                                               std::uint64_t max_bytes = kMaxArtifactBytes);

struct ArtifactArchive {
  nlohmann::json document;         // artifacts.json
  std::vector<std::string> notes;  // one line per file that was not hashed, for the run's log
};

// artifacts.json for the run whose artifact folders are under `root` (<run>/artifacts): per side
// (0 .. sides-1), per instance id with at least one file, its folder and files. Instance folders
// left empty are removed (a worker makes one for every instance it sets up), and so are the
// side folders and `root` when nothing is left in them.
ArtifactArchive archive_artifacts(const std::filesystem::path& root, const std::vector<std::string>& ids,
                                  std::uint32_t sides, std::uint64_t max_bytes = kMaxArtifactBytes);

// One side of an artifacts.json: instance id -> its files. Throws std::runtime_error naming
// `file` when the document is malformed or newer than this build reads; a side the document
// does not hold has no files.
using ArtifactSide = std::map<std::string, std::vector<ArtifactFile>>;
ArtifactSide artifact_side_from_json(const nlohmann::json& document, std::uint32_t side, const std::string& file);

}  // namespace isobench::orchestrator
