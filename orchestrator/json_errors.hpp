#pragma once
// nlohmann::json's exceptions as text for the one line a bad file gets. Their what() starts with
// the library's tag ("[json.exception.parse_error.101] parse error at line 2, column 1: ..."),
// which tells the owner of a broken file nothing, and a key that is not there reads "key 'sweep'
// not found": here it reads "sweep: missing", as the other checks of a file say it.

#include <string>

#include <nlohmann/json.hpp>

namespace isobench::orchestrator {

inline std::string json_error_text(const nlohmann::json::exception& e) {
  std::string text = e.what();
  if (text.starts_with("[json.exception.")) {
    const auto tag_end = text.find("] ");
    if (tag_end != std::string::npos) text.erase(0, tag_end + 2);
  }
  // out_of_range.403, from at(): "key 'NAME' not found"
  if (e.id == 403 && text.starts_with("key '") && text.ends_with("' not found"))
    text = text.substr(5, text.size() - 5 - 11) + ": missing";
  return text;
}

}  // namespace isobench::orchestrator
