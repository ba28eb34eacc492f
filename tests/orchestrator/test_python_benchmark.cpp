// The python: benchmark kind in sweeps (orchestrator/sweep/python_benchmark.hpp and its place in
// sweep.cpp): what an entry names, its ids, backend and family, and one exact message per
// mistake. Whether the module imports is the zygote's to find (tests/integration/test_python.cpp).
#include <doctest/doctest.h>

#include <fstream>

#include "orchestrator/sweep/python_benchmark.hpp"
#include "orchestrator/sweep.hpp"
#include "temp_dir.hpp"

using namespace isobench::orchestrator;
using isobench::kernels::Backend;

namespace {

// A sweep file in a scratch folder beside a kernels.py.
struct PythonSweep {
  isobench::testing::TempDir dir{"python-sweep"};
  std::string path;

  PythonSweep() {
    dir.write("kernels.py", "def softmax(rows, cols, seed, device, stream):\n    pass\n");
    path = dir / "sweep.yaml";
  }

  Sweep parse(const std::string& text) const {
    std::ofstream(path) << text;
    return load_sweep(path);
  }

  std::string error_of(const std::string& text) const {
    try {
      parse(text);
    } catch (const SweepError& e) {
      return e.what();
    }
    return "";
  }
};

}  // namespace

TEST_CASE("a python: entry names a file beside the sweep or a module; ids are function[params] or name[params]") {
  PythonSweep s;
  const auto sweep = s.parse(R"(benchmarks:
  - python: kernels.py
    function: softmax
    axes: {rows: [1024, 8192], cols: 4096, dtype: [bf16, fp16]}
  - python: mypkg.kernels
    function: softmax
    name: softmax_cpu
    device: cpu
    axes: {rows: 8, cols: 1.5, exact: true}
)");
  REQUIRE(sweep.instances.size() == 5);
  const auto& first = sweep.instances[0];
  CHECK(first.id == "softmax[rows=1024,cols=4096,dtype=bf16]");
  CHECK(first.kernel == "softmax");
  CHECK(first.family == "python");
  CHECK(first.backend == Backend::cuda);  // the default device
  CHECK(first.python_module == (s.dir.path() / "kernels.py").lexically_normal().string());
  CHECK(first.python_function == "softmax");
  CHECK(first.params == nlohmann::json{{"rows", 1024}, {"cols", 4096}, {"dtype", "bf16"}});
  const auto& last = sweep.instances[4];
  CHECK(last.id == "softmax_cpu[rows=8,cols=1.5,exact=true]");
  CHECK(last.backend == Backend::cpu);
  CHECK(last.python_module == "mypkg.kernels");
  CHECK(last.params["exact"] == true);  // types from the YAML
}

TEST_CASE("python: entries are checked when the sweep is loaded, one line each") {
  PythonSweep s;
  const std::string where = s.path + ":";
  CHECK(s.error_of("benchmarks:\n  - python: kernels.py\n") == where + "2:5: benchmarks[0].function: missing: the set-up "
                                                                         "function to call in the module");
  CHECK(s.error_of("benchmarks:\n  - python: other.py\n    function: f\n") ==
        where + "2:13: benchmarks[0].python: " + (s.dir.path() / "other.py").string() + ": no such file");
  CHECK(s.error_of("benchmarks:\n  - python: kernels.py\n    function: 2f\n") ==
        where + "3:15: benchmarks[0].function: expected the name of a function (a Python identifier)");
  CHECK(s.error_of("benchmarks:\n  - python: kernels.py\n    function: class\n") ==
        where + "3:15: benchmarks[0].function: expected the name of a function (a Python identifier)");
  CHECK(s.error_of("benchmarks:\n  - python: kernels.py\n    function: f\n    device: gpu\n") ==
        where + "4:13: benchmarks[0].device: must be cpu or cuda");
  CHECK(s.error_of("benchmarks:\n  - python: kernels.py\n    function: f\n    axes: {stream: 1}\n") ==
        where + "4:12: benchmarks[0].axes.stream: \"stream\" is passed by the worker itself (seed, device, stream); "
                "rename the axis");
  CHECK(s.error_of("benchmarks:\n  - python: kernels.py\n    function: f\n    axes: {ranks: 2}\n") ==
        where + "4:12: benchmarks[0].axes.ranks: Python benchmarks run in one process: an axis named \"ranks\" is not "
                "taken");
  CHECK(s.error_of("benchmarks:\n  - python: kernels.py\n    function: gemm\n") ==
        where + "3:15: benchmarks[0].name: \"gemm\" is a built-in kernel's name; give the benchmark a name");
  CHECK(s.error_of("benchmarks:\n  - python: kernels.py\n    function: f\n    command: [python3]\n") ==
        where + "4:14: benchmarks[0]: a benchmark is a kernel, a command or a Python function, not several");
  CHECK(s.error_of("benchmarks:\n  - kernel: cpu_copy\n    device: cpu\n") ==
        where + "3:13: benchmarks[0].device: only Python benchmarks (python:, pytest:, script:) take a function and a device");
  CHECK(s.error_of("benchmarks:\n  - python: kernels.py\n    functon: f\n") ==
        where + "3:5: benchmarks[0].functon: unknown key (did you mean function?)");
}

TEST_CASE("resolve_python_module: files relative to the sweep's folder, dotted names as they are") {
  isobench::testing::TempDir dir("python-module");
  dir.write("sub/k.py", "");
  dir.write("notpython.txt", "");
  std::string module;
  CHECK(resolve_python_module("sub/k.py", dir.path().string(), module).empty());
  CHECK(module == (dir.path() / "sub" / "k.py").string());
  CHECK(resolve_python_module("./sub/../sub/k.py", dir.path().string(), module).empty());
  CHECK(module == (dir.path() / "sub" / "k.py").string());
  CHECK(resolve_python_module("a.b_c.d2", dir.path().string(), module).empty());
  CHECK(module == "a.b_c.d2");
  CHECK(resolve_python_module("notpython.txt", dir.path().string(), module).empty());  // package notpython, module txt
  CHECK(module == "notpython.txt");
  CHECK(resolve_python_module("my kernels", dir.path().string(), module) ==
        "\"my kernels\" is neither a .py file nor a module name (dotted Python identifiers, e.g. mypkg.kernels)");
  CHECK(resolve_python_module("./notpython.txt", dir.path().string(), module) ==
        (dir.path() / "notpython.txt").string() + ": a Python file's name ends in .py");
  CHECK(resolve_python_module("a..b", dir.path().string(), module) != "");
  CHECK(resolve_python_module("import", dir.path().string(), module) != "");
  CHECK(resolve_python_module("", dir.path().string(), module) == "expected a .py file or a module name");
}

TEST_CASE("is_python_identifier: ASCII identifiers, not keywords; soft keywords are names") {
  for (const char* name : {"f", "_f", "softmax_2", "match", "case", "type", "_"}) CHECK(is_python_identifier(name));
  for (const char* name : {"", "2f", "a-b", "a.b", "class", "None", "lambda", "yield", "é"}) CHECK(!is_python_identifier(name));
}
