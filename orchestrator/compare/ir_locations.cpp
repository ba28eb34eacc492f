#include "orchestrator/compare/ir_locations.hpp"

#include <algorithm>
#include <cctype>

namespace isobench::orchestrator {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// Calls `keep(line)` for each line of `text`, the newline included where there was one.
template <typename Keep>
std::string filter_lines(std::string_view text, Keep&& keep) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const auto end = text.find('\n');
    const std::string_view line = text.substr(0, end == std::string_view::npos ? text.size() : end + 1);
    text.remove_prefix(line.size());
    keep(line, out);
  }
  return out;
}

// The index just past the ')' that closes the '(' at `open`, skipping quoted strings; npos when
// it does not close on this line.
std::size_t closing_paren(std::string_view s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == '"') {
      for (++i; i < s.size() && s[i] != '"'; ++i)
        if (s[i] == '\\') ++i;
    } else if (s[i] == '(') {
      ++depth;
    } else if (s[i] == ')' && --depth == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// MLIR (TTIR, TTGIR): the `#locN = loc(...)` definitions go, and every ` loc(...)` attached to
// an operation, an argument or the module.
std::string mlir_without_locations(std::string_view text) {
  return filter_lines(text, [](std::string_view line, std::string& out) {
    const std::string_view body = trim_left(line);
    if (starts_with(body, "#loc")) {
      const auto eq = body.find(" = loc(");
      if (eq != std::string_view::npos &&
          std::all_of(body.begin() + 4, body.begin() + static_cast<std::ptrdiff_t>(eq), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
          }))
        return;
    }
    std::size_t from = 0;
    for (;;) {
      const auto at = line.find("loc(", from);
      if (at == std::string_view::npos) break;
      if (at > 0 && word_char(line[at - 1])) {  // alloc(, local_alloc(: not a location
        out.append(line.substr(from, at + 4 - from));
        from = at + 4;
        continue;
      }
      const auto end = closing_paren(line, at + 3);
      if (end == std::string_view::npos) break;
      std::size_t cut = at;
      while (cut > from && line[cut - 1] == ' ') --cut;
      out.append(line.substr(from, cut - from));
      from = end;
    }
    out.append(line.substr(from));
  });
}

// LLVM IR: `!dbg !N` attachments, the debug-info metadata (`!N = !DI...`, `!llvm.dbg.cu`) and
// debug records or intrinsics (#dbg_value, llvm.dbg.*).
std::string llir_without_locations(std::string_view text) {
  return filter_lines(text, [](std::string_view line, std::string& out) {
    const std::string_view body = trim_left(line);
    if (starts_with(body, "!llvm.dbg.") || starts_with(body, "#dbg_") || body.find("@llvm.dbg.") != std::string_view::npos)
      return;
    if (starts_with(body, "!") && body.size() > 1 && std::isdigit(static_cast<unsigned char>(body[1]))) {
      const auto eq = body.find(" = ");
      if (eq != std::string_view::npos) {
        std::string_view value = body.substr(eq + 3);
        if (starts_with(value, "distinct ")) value.remove_prefix(9);
        if (starts_with(value, "!DI")) return;
      }
    }
    std::size_t from = 0;
    for (;;) {
      const auto at = line.find("!dbg !", from);
      if (at == std::string_view::npos) break;
      std::size_t cut = at;
      while (cut > from && line[cut - 1] == ' ') --cut;
      if (cut > from && line[cut - 1] == ',') --cut;
      std::size_t end = at + 6;
      while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
      out.append(line.substr(from, cut - from));
      from = end;
    }
    out.append(line.substr(from));
  });
}

bool directive(std::string_view body, std::string_view name) {
  return starts_with(body, name) && body.size() > name.size() && (body[name.size()] == ' ' || body[name.size()] == '\t');
}

// PTX: the `.file` and `.loc` directives and the DWARF sections (`.section .debug_*` and its
// braces), which hold the file names, the directory and the line table.
std::string ptx_without_locations(std::string_view text) {
  bool in_debug_section = false;
  return filter_lines(text, [&in_debug_section](std::string_view line, std::string& out) {
    const std::string_view body = trim_left(line);
    if (in_debug_section) {
      if (starts_with(body, "}")) in_debug_section = false;
      return;
    }
    if (directive(body, ".section") && body.find(".debug_") != std::string_view::npos) {
      in_debug_section = body.find('}') == std::string_view::npos;
      return;
    }
    if (directive(body, ".file") || directive(body, ".loc")) return;
    out.append(line);
  });
}

// The quoted string starting at `open` (a '"'), and the index past its closing quote.
std::pair<std::string, std::size_t> quoted(std::string_view s, std::size_t open) {
  std::string value;
  std::size_t i = open + 1;
  for (; i < s.size() && s[i] != '"'; ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) ++i;
    value += s[i];
  }
  return {value, i + 1};
}

}  // namespace

std::string ir_stage_of(std::string_view path) {
  const auto dot = path.rfind('.');
  if (dot == std::string_view::npos || path.find('/', dot) != std::string_view::npos) return {};
  const std::string_view ext = path.substr(dot + 1);
  for (const char* stage : {"ttir", "ttgir", "llir", "ptx", "sass"})
    if (ext == stage) return stage;
  return {};
}

std::string without_source_locations(std::string_view text, std::string_view stage) {
  if (stage == "ttir" || stage == "ttgir") return mlir_without_locations(text);
  if (stage == "llir") return llir_without_locations(text);
  if (stage == "ptx") return ptx_without_locations(text);
  return std::string(text);
}

std::vector<std::string> ir_source_files(std::string_view text) {
  std::vector<std::string> files;
  const auto note = [&files](std::string file) {
    if (!file.empty() && std::find(files.begin(), files.end(), file) == files.end()) files.push_back(std::move(file));
  };
  for (std::size_t at = text.find("loc(\""); at != std::string_view::npos; at = text.find("loc(\"", at + 1)) {
    const auto [value, end] = quoted(text, at + 4);
    if (end < text.size() && text[end] == ':') note(value);  // loc("x_ptr"(#loc)) names a value
  }
  for (std::size_t at = text.find(".file"); at != std::string_view::npos; at = text.find(".file", at + 1)) {
    const auto open = text.find('"', at);
    if (open == std::string_view::npos || text.substr(at, open - at).find('\n') != std::string_view::npos) continue;
    note(quoted(text, open).first);
  }
  for (std::size_t at = text.find("!DIFile(filename: \""); at != std::string_view::npos;
       at = text.find("!DIFile(filename: \"", at + 1)) {
    const auto [name, end] = quoted(text, at + 18);
    const auto dir = text.find("directory: \"", end);
    const auto line_end = text.find('\n', end);
    if (dir == std::string_view::npos || (line_end != std::string_view::npos && dir > line_end)) {
      note(name);
      continue;
    }
    note(quoted(text, dir + 11).first + "/" + name);
  }
  return files;
}

IrDifference compare_ir(std::string_view a, std::string_view b, std::string_view stage) {
  if (a == b) return IrDifference::identical;
  return without_source_locations(a, stage) == without_source_locations(b, stage) ? IrDifference::source_locations
                                                                                    : IrDifference::real;
}

}  // namespace isobench::orchestrator
