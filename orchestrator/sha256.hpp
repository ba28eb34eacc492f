#pragma once
// SHA-256 (FIPS 180-4), for the hashes of archived artifacts. Self-contained so that the
// orchestrator needs no crypto library for a checksum; incremental, so a file of any size is
// hashed while it streams through a small buffer.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace isobench::orchestrator {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t bytes);
  void update(std::string_view text) { update(text.data(), text.size()); }
  // The digest as 64 lowercase hex digits. Ends the hash: call it once.
  std::string finish_hex();

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> block_{};
  std::size_t block_used_ = 0;
  std::uint64_t total_bytes_ = 0;
};

std::string sha256_hex(std::string_view data);

// The file's SHA-256 read in chunks, never whole into memory; throws std::runtime_error naming
// the file when it cannot be read. Opened with O_NOFOLLOW: a symbolic link is refused, never
// followed out of the folder being archived.
std::string sha256_file_hex(const std::string& path);

}  // namespace isobench::orchestrator
