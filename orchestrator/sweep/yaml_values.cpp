// How the YAML text of a sweep becomes values: UTF-8 checked before parsing, scalars typed as a
// YAML 1.2 reader would, numbers spelled one way for ids, and "did you mean" suggestions.

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>

#include "orchestrator/sweep/sweep_parser.hpp"

namespace isobench::orchestrator::sweep_detail {

namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

// ---- Encoding ---------------------------------------------------------------------------------

// Offset of the first byte of `text` that is not well-formed UTF-8 (RFC 3629: no overlong forms,
// no surrogates, nothing past U+10FFFF) or is a control character YAML does not allow (all of
// C0 but tab, line feed and carriage return, and DEL: YAML 1.2, 5.1), or npos. yaml-cpp passes
// such bytes through into scalars (and turns a NUL into bytes that are not UTF-8), and
// nlohmann::json throws type_error 316 when a message prints them: a sweep is checked before it
// is parsed, so every problem stays a SweepError with a location.
std::size_t first_invalid_utf8(const std::string& text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) return i;
    if (c < 0x80) len = 1;
    else if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c == 0xE0) len = 3, lo = 0xA0;
    else if (c == 0xED) len = 3, hi = 0x9F;
    else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) len = 3;
    else if (c == 0xF0) len = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) len = 4;
    else if (c == 0xF4) len = 4, hi = 0x8F;
    else return i;
    if (len > 1) {
      if (i + len > n || p[i + 1] < lo || p[i + 1] > hi) return i;
      for (std::size_t k = 2; k < len; ++k)
        if (p[i + k] < 0x80 || p[i + k] > 0xBF) return i;
    }
    i += len;
  }
  return std::string::npos;
}

// ---- Names and suggestions -------------------------------------------------------------------


// " (did you mean X?)" when one known name is close to `given`, else " (known: a, b, c)".
std::string suggestion(const std::string& given, const std::vector<std::string>& known) {
  const std::string* best = nullptr;
  std::size_t best_distance = SIZE_MAX;
  for (const auto& name : known) {
    const std::size_t d = edit_distance(given, name);
    if (d < best_distance) best = &name, best_distance = d;
  }
  if (best && best_distance <= std::max<std::size_t>(2, best->size() / 3))
    return " (did you mean " + *best + "?)";
  std::string list;
  for (const auto& name : known) list += (list.empty() ? "" : ", ") + name;
  return " (known: " + list + ")";
}

// ---- Scalars ---------------------------------------------------------------------------------

// What a YAML scalar stands for: a quoted scalar is a string; a plain one is a boolean, an
// integer, a number or else a string.
json scalar_value(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (!text.empty() && text[0] == '+') ++first;
  std::int64_t signed_value = 0;
  if (auto [end, ec] = std::from_chars(first, last, signed_value); ec == std::errc() && end == last)
    return signed_value;
  std::uint64_t unsigned_value = 0;
  if (auto [end, ec] = std::from_chars(first, last, unsigned_value);
      ec == std::errc() && end == last)
    return unsigned_value;
  double number = 0;
  if (auto [end, ec] = std::from_chars(first, last, number); ec == std::errc() && end == last)
    return number;
  return text;
}

// A number written as 1.6e7 or 50.0 on an integer-valued axis means the integer: ids stay the
// same however the value was spelled.
json normalize_number(const json& value) {
  if (value.is_number_float()) {
    const double v = value.get<double>();
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e18)
      return static_cast<std::int64_t>(v);
  }
  return value;
}

json axis_value(const kernels::AxisSpec& axis, const YAML::Node& node) {
  if (axis.type == kernels::AxisType::string) return node.Scalar();
  json value = scalar_value(node);
  if (axis.type == kernels::AxisType::integer || axis.type == kernels::AxisType::number)
    value = normalize_number(value);
  return value;
}

}  // namespace isobench::orchestrator::sweep_detail
