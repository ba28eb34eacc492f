#pragma once
// Text in a Markdown table cell: a '|' would end the cell and a line break the row.

#include <string>

namespace isobench::orchestrator {

inline std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

}  // namespace isobench::orchestrator
