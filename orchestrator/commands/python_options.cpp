#include "orchestrator/commands/python_options.hpp"

namespace isobench::orchestrator {

void add_python_options(CLI::App& app, PythonOptions& o) {
  app.add_option("--python", o.all.interpreter,
                 "Python benchmarks: the interpreter of the zygote that imports them and forks their workers (default "
                 "python3 from PATH; docs/python.md)");
  app.add_option("--python-env", o.all.variables, "NAME=VALUE in the zygote's environment (Python benchmarks); repeatable");
  app.add_option("--python-path", o.all.pythonpath,
                 "folder put on the zygote's PYTHONPATH (Python benchmarks); repeatable");
  app.add_option_function<std::string>(
         "--zygotes",
         [&o](const std::string& v) { o.zygotes = v == "per-round" ? ZygoteLifetime::per_round : ZygoteLifetime::per_run; },
                 "Python benchmarks: per-round (each round's workers forked from fresh zygotes, both sides "
                 "sharing a drawn PYTHONHASHSEED) or per-run (one zygote per side); default per-round where "
                 "every Python benchmark is timed on the CPU, per-run where one is timed on the GPU (docs/python.md)")
      ->check(CLI::IsMember({"per-round", "per-run"}));
}

void add_python_side_options(CLI::App& app, PythonOptions& o) {
  for (std::size_t side = 0; side < 2; ++side) {
    const std::string name = kPythonSideNames[side];
    app.add_option("--" + name + "-python", o.sides[side].interpreter,
                   "the " + name + "'s Python interpreter (Python benchmarks; default --python)");
    app.add_option("--" + name + "-env", o.sides[side].variables,
                   "NAME=VALUE in the " + name + " zygote's environment, over --python-env; repeatable");
    app.add_option("--" + name + "-pythonpath", o.sides[side].pythonpath,
                   "folder on the " + name + " zygote's PYTHONPATH, before --python-path; repeatable");
  }
}

}  // namespace isobench::orchestrator
