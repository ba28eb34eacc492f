// JUnit XML: the CI's test view shows each instance as a test, a regression as its failure.
#include "orchestrator/printers/ci_printers.hpp"

#include "orchestrator/printable.hpp"

namespace isobench::orchestrator {

namespace {

// Text as an XML attribute value or element content: printable ASCII (printable() escapes the
// rest as \xNN, which XML 1.0 could not all hold) with the markup characters as entities.
std::string xml(const std::string& raw) {
  std::string out;
  for (const char c : printable(raw)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

void property(std::ostream& out, const std::string& name, const std::string& value) {
  out << "      <property name=\"" << xml(name) << "\" value=\"" << xml(value) << "\"/>\n";
}

}  // namespace

void print_junit(std::ostream& out, const CiReport& report) {
  const auto tests = std::to_string(report.cases.size()), failures = std::to_string(report.count(CiCase::Status::failed)),
             skipped = std::to_string(report.count(CiCase::Status::skipped));
  const std::string counts =
      "tests=\"" + tests + "\" failures=\"" + failures + "\" errors=\"0\" skipped=\"" + skipped + "\" time=\"0\"";
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"isobench\" " << counts << ">\n"
      << "  <testsuite name=\"" << xml(report.title) << "\" " << counts << ">\n"
      << "    <properties>\n";
  property(out, "outcome", report.outcome);
  for (const auto& [name, value] : report.properties) property(out, name, value);
  for (const auto& c : report.cases)
    for (const auto& [name, value] : c.properties) property(out, c.name + "." + name, value);
  out << "    </properties>\n";
  for (const auto& c : report.cases) {
    out << "    <testcase name=\"" << xml(c.name) << "\" classname=\"" << xml(c.group) << "\" time=\"0\">\n";
    if (c.status == CiCase::Status::failed)
      out << "      <failure type=\"" << xml(c.verdict) << "\" message=\"" << xml(c.message) << "\">" << xml(c.message)
          << "</failure>\n";
    else if (c.status == CiCase::Status::skipped)
      out << "      <skipped message=\"" << xml(c.message) << "\"/>\n";
    out << "      <system-out>" << xml(c.message) << "</system-out>\n"
        << "    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace isobench::orchestrator
