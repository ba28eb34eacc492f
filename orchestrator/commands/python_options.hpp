#pragma once
// The Python options of the verbs that run sweeps (docs/python.md): every side's environment,
// and orchestrate ab's each side's own (orchestrator/python/python_environment.hpp).

#include <CLI/CLI.hpp>

#include "orchestrator/python/python_environment.hpp"

namespace isobench::orchestrator {

// --python, --python-env, --python-path, --zygotes: every side's (every verb that runs sweeps).
void add_python_options(CLI::App& app, PythonOptions& options);
// orchestrate ab: --baseline-python, --candidate-python, --baseline-env, --candidate-env,
// --baseline-pythonpath, --candidate-pythonpath.
void add_python_side_options(CLI::App& app, PythonOptions& options);

}  // namespace isobench::orchestrator
