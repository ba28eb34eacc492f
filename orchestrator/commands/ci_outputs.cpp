#include "orchestrator/commands/ci_outputs.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <functional>

#include "orchestrator/errors.hpp"
#include "orchestrator/printers/ci_printers.hpp"

namespace isobench::orchestrator {

namespace {

namespace fs = std::filesystem;

struct Output {
  const char* flag;
  const std::string& path;
  std::function<void(std::ostream&, const CiReport&)> print;
};

std::vector<Output> outputs_of(const CiOutputs& outputs) {
  return {{"--junit", outputs.junit, print_junit}, {"--summary", outputs.summary, print_ci_summary}};
}

}  // namespace

void add_ci_output_options(CLI::App& app, CiOutputs& outputs) {
  app.add_option("--junit", outputs.junit,
                 "also write the verdicts as JUnit XML for a CI's test view: one test case per instance, a failure "
                 "for each verdict the exit code fails on (ratio, interval and p in its message), UNCERTAIN as "
                 "skipped (docs/ci.md)")
      ->type_name("FILE");
  app.add_option("--summary", outputs.summary,
                 "also write a Markdown summary for a CI job's step summary or a pull-request comment: the outcome, "
                 "SLOWER and FASTER instances first, the others folded (docs/ci.md)")
      ->type_name("FILE");
}

void check_ci_outputs(const CiOutputs& outputs) {
  for (const auto& o : outputs_of(outputs)) {
    if (o.path.empty()) continue;
    std::error_code ec;
    const fs::path path(o.path);
    if (fs::is_directory(path, ec)) throw UsageError(std::string(o.flag) + " " + o.path + ": is a folder");
    const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    if (!fs::is_directory(folder, ec))
      throw UsageError(std::string(o.flag) + " " + o.path + ": no folder " + folder.string());
  }
}

void write_ci_outputs(const CiOutputs& outputs, const CiReport& report) {
  for (const auto& o : outputs_of(outputs)) {
    if (o.path.empty()) continue;
    std::ofstream file(o.path, std::ios::binary | std::ios::trunc);
    if (file) o.print(file, report);
    if (!file || !file.flush()) throw UsageError(std::string(o.flag) + " " + o.path + ": cannot write");
  }
}

}  // namespace isobench::orchestrator
