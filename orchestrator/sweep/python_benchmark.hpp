#pragma once
// The `python:` benchmark kind (docs/python.md): what a sweep entry names, checked when the sweep
// is loaded. Whether the module imports, has the function and takes the instances' parameters is
// found by each side's zygote before anything is measured (orchestrator/python/zygote.hpp): the
// orchestrator runs Python only in child processes (the zygotes, and the collector of a `pytest:`
// entry's tests, orchestrator/sweep/pytest_collection.hpp).

#include <string>

namespace isobench::orchestrator {

// The module a `python:` entry names: a file (its name ends in ".py" or holds a '/') relative to
// `sweep_folder`, made absolute, which must exist; otherwise an importable dotted module name
// (`mypkg.kernels`), imported by the zygote from its interpreter's path. Returns the problem
// (empty when none) and sets `module`.
std::string resolve_python_module(const std::string& written, const std::string& sweep_folder, std::string& module);

// Whether `name` can be a Python function's parameter or name: an ASCII identifier that is not
// a keyword.
bool is_python_identifier(const std::string& name);

// Why an axis of a Python benchmark may not take this name (empty when it may): it is passed as
// a keyword argument beside seed, device and stream, and `ranks` would make it a multi-rank
// instance, which Python benchmarks are not.
std::string python_axis_name_problem(const std::string& name);

}  // namespace isobench::orchestrator
