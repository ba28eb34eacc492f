// The Triton cache folder a side compiles into when none is given (orchestrator/python/
// python_environments.hpp): one folder per compile environment, so that equal environments share
// compiled kernels across runs and sides, and two compilers or two settings never do.

#include <doctest/doctest.h>

#include <cstdlib>

#include "orchestrator/python/python_environments.hpp"

using namespace isobench::orchestrator;

namespace {

PythonEnvironment environment(std::vector<std::string> variables, std::vector<std::string> pythonpath = {"/tmp/a"}) {
  PythonEnvironment env;
  env.interpreter = "/bin/sh";  // any executable: the key names its real path
  env.variables = std::move(variables);
  env.pythonpath = std::move(pythonpath);
  return env;
}

}  // namespace

TEST_CASE("compile environment key: equal environments meet, any compile setting parts them") {
  ::unsetenv("TRITON_DEFAULT_FP_FUSION");
  const auto key = compile_environment_key(environment({"X=1", "Y=2"}));
  CHECK(key.size() == 16);
  CHECK(key.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(compile_environment_key(environment({"Y=2", "X=1"})) == key);                     // order of variables
  CHECK(compile_environment_key(environment({"X=1", "Y=2", "TRITON_CACHE_DIR=/c"})) == key);  // the cache itself
  CHECK(compile_environment_key(environment({"X=1", "Y=3"})) != key);
  CHECK(compile_environment_key(environment({"X=1"})) != key);
  CHECK(compile_environment_key(environment({"X=1", "Y=2"}, {"/tmp/b"})) != key);
  CHECK(compile_environment_key(environment({"X=1", "Y=2"}, {"/tmp/a", "/tmp/b"})) !=
        compile_environment_key(environment({"X=1", "Y=2"}, {"/tmp/b", "/tmp/a"})));
  auto other = environment({"X=1", "Y=2"});
  other.interpreter = "/bin/true";
  CHECK(compile_environment_key(other) != key);
  // A switch inherited from the orchestrator's environment reaches the compiler too.
  ::setenv("TRITON_DEFAULT_FP_FUSION", "0", 1);
  CHECK(compile_environment_key(environment({"X=1", "Y=2"})) != key);
  ::unsetenv("TRITON_DEFAULT_FP_FUSION");
  CHECK(compile_environment_key(environment({"X=1", "Y=2"})) == key);
}

TEST_CASE("triton cache folder: ISOBENCH_TRITON_CACHE, then XDG_CACHE_HOME, then HOME; 'run' keeps the run's own") {
  const auto env = environment({"X=1"});
  const auto key = compile_environment_key(env);
  ::setenv("ISOBENCH_TRITON_CACHE", "/tmp/root", 1);
  CHECK(triton_cache_folder(env, "/runs/r", 1) == "/tmp/root/" + key);
  ::setenv("ISOBENCH_TRITON_CACHE", "run", 1);
  CHECK(triton_cache_folder(env, "/runs/r", 1) == "/runs/r/triton-cache/side-1");
  ::unsetenv("ISOBENCH_TRITON_CACHE");
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  CHECK(triton_cache_folder(env, "/runs/r", 0) == "/xdg/isobench/triton/" + key);
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/u", 1);
  CHECK(triton_cache_folder(env, "/runs/r", 0) == "/home/u/.cache/isobench/triton/" + key);
  ::unsetenv("HOME");
  CHECK(triton_cache_folder(env, "/runs/r", 0) == "/runs/r/triton-cache/side-0");
}
