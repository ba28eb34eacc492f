#include "artifact_folder.hpp"

#include <cstdint>
#include <cstdio>

namespace isobench::ipc {

namespace {

bool safe_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '-';
}

}  // namespace

std::string artifact_folder_name(std::string_view instance_id) {
  // Short enough that the name stays far below NAME_MAX (255) with the hash appended.
  constexpr std::size_t kMaxReadable = 80;
  std::string readable;
  for (char c : instance_id) {
    if (readable.size() >= kMaxReadable) break;
    if (safe_char(c)) {
      readable += c;
    } else if (readable.empty() || readable.back() != '_') {
      readable += '_';
    }
  }
  // No leading dot (".", ".." or a hidden folder) and no trailing '_' from a closing bracket.
  while (!readable.empty() && (readable.front() == '.' || readable.front() == '_')) readable.erase(0, 1);
  while (!readable.empty() && readable.back() == '_') readable.pop_back();
  std::uint64_t hash = 14695981039346656037ull;  // FNV-1a, 64 bits: fixed, so names are stable
  for (unsigned char c : instance_id) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return (readable.empty() ? std::string("instance") : readable) + "-" + hex;
}

}  // namespace isobench::ipc
