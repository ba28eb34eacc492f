#pragma once
// Text from outside (a file name, a token of a sample file) as JSON text and one-line messages can
// hold it: JSON needs valid UTF-8, and a message must not carry a NUL (what() would end there), a
// newline or a terminal's control codes. Bytes outside printable ASCII, and the backslash so that
// the escape stays unambiguous, are written \xNN.

#include <cstdio>
#include <string>
#include <string_view>

namespace isobench::orchestrator {

inline std::string printable(std::string_view raw) {
  std::string out;
  for (const unsigned char c : raw) {
    if (c < 0x20 || c >= 0x7f || c == '\\') {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace isobench::orchestrator
