#include "orchestrator/sweep/python_benchmark.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <string_view>

namespace isobench::orchestrator {

namespace fs = std::filesystem;

namespace {

// keyword.kwlist of Python 3.11 and 3.12 (the soft keywords match, case, type and _ are valid names).
constexpr std::array<std::string_view, 35> kKeywords = {
    "False", "None",   "True",    "and",      "as",       "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",      "elif",     "else",   "except", "finally",  "for",
    "from",  "global", "if",      "import",   "in",       "is",     "lambda", "nonlocal", "not",
    "or",    "pass",   "raise",   "return",   "try",      "while",  "with",   "yield"};

bool is_dotted_name(const std::string& text) {
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = text.find('.', start);
    if (!is_python_identifier(text.substr(start, dot == std::string::npos ? std::string::npos : dot - start)))
      return false;
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

bool is_python_identifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (const unsigned char c : name)
    if (!std::isalnum(c) && c != '_') return false;
  return std::find(kKeywords.begin(), kKeywords.end(), name) == kKeywords.end();
}

std::string python_axis_name_problem(const std::string& name) {
  if (name == "seed" || name == "device" || name == "stream")
    return "\"" + name + "\" is passed by the worker itself (seed, device, stream); rename the axis";
  if (name == "ranks") return "Python benchmarks run in one process: an axis named \"ranks\" is not taken";
  if (!is_python_identifier(name))
    return "a Python benchmark's axis name is a Python identifier, not a keyword (it is passed as a keyword "
           "argument)";
  return {};
}

std::string resolve_python_module(const std::string& written, const std::string& sweep_folder, std::string& module) {
  if (written.empty()) return "expected a .py file or a module name";
  if (written.ends_with(".py") || written.find('/') != std::string::npos) {
    const fs::path path = (fs::path(sweep_folder) / written).lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return path.string() + ": no such file";
    if (path.extension() != ".py") return path.string() + ": a Python file's name ends in .py";
    module = path.string();
    return {};
  }
  if (!is_dotted_name(written))
    return "\"" + written + "\" is neither a .py file nor a module name (dotted Python identifiers, e.g. mypkg.kernels)";
  module = written;
  return {};
}

}  // namespace isobench::orchestrator
