#pragma once
// The `pytest:` benchmark kind (docs/python.md, "Existing pytest benchmarks" and "pytest suites in
// the wild"): the tests of a pytest file that take the `benchmark` fixture (pytest-benchmark's or
// pytest-codspeed's) or are marked `benchmark`, each named by its pytest id, found when the sweep is loaded by
// collecting the file with pytest (python/isobench/pytest_bridge.py, `collect`), in the run's
// baseline interpreter (--python, --baseline-python; python3 from PATH by default) with the
// isobench package of this build first on its path. Each such test is then a
// Python benchmark (python_module: the file, python_function: the test's name in it), set up by
// the zygote's bridge; each side's zygote collects the file again (in a run, while this collection
// runs: orchestrator/starters/python_starter.hpp) and refuses a test it lacks.
// A `script:` entry (a benchmark script, docs/python.md "do_bench scripts") is collected here too,
// with timing "script": the script is run once by python/isobench/script_bridge.py, its timing
// calls listed as one test's, named by the file's stem.

#include <string>
#include <vector>

#include "orchestrator/sweep.hpp"

namespace isobench::orchestrator {

// The tests of `file` (absolute) that pytest collects with `-k select` (when not empty) and
// `args`, in `python` (a path, or a name looked up in PATH; empty: python3) with `variables`
// (NAME=VALUE, PYTHONPATH among them: the baseline side's) over this environment. Throws
// std::runtime_error with one line naming the file when it does not collect (an import error, a
// syntax error, pytest missing) or the collector cannot run.
std::vector<CollectedTest> collect_pytest_tests(const std::string& file, const std::string& select,
                                                const std::vector<std::string>& args,
                                                const std::string& python = "",
                                                const std::vector<std::string>& variables = {},
                                                const std::string& timing = "auto");

// `orchestrate ab --pytest FILE [-k EXPR] [--pytest-arg ARG]...`: a pytest-benchmark suite
// compared between two environments without a sweep file. The sweep it runs is made here: one
// `pytest:` entry of `file` (absolute) with its selection and arguments, on `device` ("cpu" or
// "cuda": the run's device, so --device auto measures on the GPU where there is one and on the
// CPU elsewhere), named pytest-<file's stem> (its run directory: runs/pytest-<stem>-<time>).
// JSON text, which YAML reads; the run directory keeps it as its sweep.yaml.
struct PytestSuite {
  std::string file;
  std::string select;
  std::vector<std::string> args;
  std::string timing = "auto";  // --pytest-timing: auto | fixture | do_bench
};
std::string pytest_sweep_text(const PytestSuite& suite, const std::string& device);

// `orchestrate ab --script FILE [--script-arg ARG]...`: a benchmark script (Liger-Kernel's
// benchmark/scripts/benchmark_*.py) compared between two environments: one `script:` entry of
// `file` (absolute) with its arguments, on `device`, named script-<file's stem>.
struct ScriptSuite {
  std::string file;
  std::vector<std::string> args;
};
std::string script_sweep_text(const ScriptSuite& suite, const std::string& device);

// <build>/python: the isobench package of the build whose bin/ holds this executable.
std::string own_python_package();

}  // namespace isobench::orchestrator
