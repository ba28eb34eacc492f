#include "orchestrator/sweep/pytest_collection.hpp"

#include <filesystem>
#include <stdexcept>

#include "orchestrator/program_output.hpp"

namespace isobench::orchestrator {

namespace fs = std::filesystem;

namespace {

std::string last_line(const std::string& text) {
  const auto end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) return {};
  const auto newline = text.rfind('\n', end);
  const auto begin = newline == std::string::npos ? 0 : newline + 1;
  return text.substr(begin, end + 1 - begin);
}

}  // namespace

std::string own_python_package() {
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this executable (/proc/self/exe): " + ec.message());
  return (self.parent_path().parent_path() / "python").lexically_normal().string();
}

std::string pytest_sweep_text(const PytestSuite& suite, const std::string& device) {
  nlohmann::json entry = {{"pytest", suite.file}, {"device", device}};
  if (!suite.select.empty()) entry["select"] = suite.select;
  if (!suite.args.empty()) entry["args"] = suite.args;
  if (!suite.timing.empty() && suite.timing != "auto") entry["timing"] = suite.timing;
  const nlohmann::json sweep = {{"name", "pytest-" + fs::path(suite.file).stem().string()},
                                {"benchmarks", nlohmann::json::array({entry})}};
  return sweep.dump(2) + "\n";
}

std::string script_sweep_text(const ScriptSuite& suite, const std::string& device) {
  nlohmann::json entry = {{"script", suite.file}, {"device", device}};
  if (!suite.args.empty()) entry["args"] = suite.args;
  const nlohmann::json sweep = {{"name", "script-" + fs::path(suite.file).stem().string()},
                                {"benchmarks", nlohmann::json::array({entry})}};
  return sweep.dump(2) + "\n";
}

std::vector<CollectedTest> collect_pytest_tests(const std::string& file, const std::string& select,
                                                const std::vector<std::string>& args, const std::string& python,
                                                const std::vector<std::string>& variables,
                                                const std::string& timing) {
  const std::string interpreter = python.empty() ? "python3" : python;
  // A benchmark script is listed by running it (isobench.script_bridge), a pytest file by pytest.
  const bool script = timing == "script";
  // The package goes first on sys.path from the command line rather than through PYTHONPATH, so
  // the collector sees the environment a zygote started without Python options would see. Once
  // its answer is written it leaves with _exit, as the zygote does: the interpreter's finalization
  // (torch's and Triton's atexit handlers, a CUDA context made by the file's import or its tests,
  // threads they left) is no part of the answer, and the run waits for the collector's end.
  const std::string program = std::string("import os, sys; sys.path.insert(0, sys.argv.pop(1)); from isobench.") +
                              (script ? "script_bridge" : "pytest_bridge") +
                              " import _main; code = _main(sys.argv[1:]); sys.stdout.flush(); sys.stderr.flush(); "
                              "os._exit(code)";
  std::vector<std::string> argv = {"-c", program, own_python_package(), "collect", file};
  if (!select.empty()) argv.insert(argv.end(), {"--select", select});
  if (!script) argv.insert(argv.end(), {"--timing", timing});
  argv.push_back("--");
  argv.insert(argv.end(), args.begin(), args.end());
  ProgramOutput collected;
  try {
    collected = run_program(interpreter, argv,
                            std::string("the ") + (script ? "script's" : "pytest") +
                                " collector runs the baseline's --python, python3 by default",
                            variables);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(file + ": cannot collect its tests: " + e.what());
  }
  auto answer = nlohmann::json::parse(last_line(collected.out), nullptr, false);
  if (answer.is_discarded() || !answer.is_object()) {
    const std::string why = last_line(collected.err);
    throw std::runtime_error(file + ": the " + (script ? "script's" : "pytest") + " collector (" + interpreter +
                             ") ended with exit code " +
                             std::to_string(collected.exit_code) + (why.empty() ? "" : ": " + why));
  }
  if (answer.contains("error")) throw std::runtime_error(answer["error"].get<std::string>());
  std::vector<CollectedTest> tests;
  for (const auto& t : answer.at("tests")) {
    CollectedTest c;
    c.test = t.at("test").get<std::string>();
    c.function = t.at("function").get<std::string>();
    c.params = t.at("params");
    c.uses_benchmark = t.at("benchmark").get<bool>();
    c.doctest = t.value("doctest", false);
    c.node_id = t.value("node_id", std::string());
    c.skipped = t.value("skipped", std::string());
    if (t.contains("calls")) c.calls = t.at("calls").get<std::vector<nlohmann::json>>();
    c.import_in_worker = answer.value("import_in_worker", false);
    c.import_seconds = answer.value("import_seconds", 0.0);
    tests.push_back(std::move(c));
  }
  return tests;
}

}  // namespace isobench::orchestrator
