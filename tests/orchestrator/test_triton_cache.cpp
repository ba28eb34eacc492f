// The Triton cache folder a side compiles into when none is given (orchestrator/python/
// triton_cache.hpp): one folder per compile environment, so that equal environments share
// compiled kernels across runs and sides, and two compilers or two settings never do; and the SASS
// of the kernels compiled there (orchestrator/python/sass_step.hpp).

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "orchestrator/python/triton_cache.hpp"
#include "orchestrator/python/sass_step.hpp"
#include "orchestrator/run_directory.hpp"

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

namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("the SASS of the kernels a worker left as cubins (python -m isobench.triton_ir sass), beside the run or after it") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("isobench-sass-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const fs::path triton = dir / "artifacts/side-1/softmax-0123/triton";
  write_text(triton / "0-k-w4/k.cubin", "cubin bytes");
  write_text(triton / "kernels.json",
             R"({"schema_version": 1, "launches": [{"order": 0, "name": "k", "files": ["0-k-w4/k.ttgir"], "cubin": "0-k-w4/k.cubin"}]})");
  // A stand-in cuobjdump on PATH: it names its file in a header line, as the real one does.
  write_text(dir / "bin/cuobjdump", "#!/bin/sh\necho \"Fatbin elf code: $2\"\necho '  MOV R1 ;'\n");
  fs::permissions(dir / "bin/cuobjdump", fs::perms::owner_all);
  const std::string path = std::getenv("PATH");
  ::setenv("PATH", ((dir / "bin").string() + ":" + path).c_str(), 1);
  PythonSides sides;
  sides.record = {{"sides", {{{"interpreter", "python3"},
                              {"package", std::string(std::getenv("ISOBENCH_SOURCE_DIR")) + "/python"}}}}};
  {
    // Not started beside the measurement: made after it.
    RunLog log((dir / "log.txt").string());
    SassStep((sides), (dir / "artifacts").string()).finish(log, Log());
  }
  CHECK(read_text(triton / "0-k-w4/k.sass") == "  MOV R1 ;\n");
  CHECK(!fs::exists(triton / "0-k-w4/k.cubin"));
  const auto index = nlohmann::json::parse(read_text(triton / "kernels.json"));
  CHECK(index["launches"][0]["files"] == nlohmann::json({"0-k-w4/k.ttgir", "0-k-w4/k.sass"}));
  CHECK(!index["launches"][0].contains("cubin"));
  CHECK(read_text(dir / "log.txt").find("[sass] 1 kernels disassembled in ") != std::string::npos);
  CHECK(read_text(dir / "log.txt").find("beside the measurement") == std::string::npos);

  // Started beside the measurement (the runner's on_sides_reported): made there, once; nothing
  // is left for after the run.
  write_text(triton / "0-k-w4/k.cubin", "cubin bytes");
  write_text(triton / "kernels.json", R"({"schema_version": 1, "launches": [{"order": 0, "name": "k", "cubin": "0-k-w4/k.cubin"}]})");
  {
    RunLog log((dir / "log-beside.txt").string());
    SassStep step(sides, (dir / "artifacts").string());
    step.start();
    step.start();  // once
    step.finish(log, Log());
  }
  ::setenv("PATH", path.c_str(), 1);
  CHECK(read_text(triton / "0-k-w4/k.sass") == "  MOV R1 ;\n");
  CHECK(!fs::exists(triton / "0-k-w4/k.cubin"));
  const auto beside = read_text(dir / "log-beside.txt");
  CHECK(beside.find("[sass] 1 kernels disassembled in ") != std::string::npos);
  CHECK(beside.find("beside the measurement") != std::string::npos);
  CHECK(beside.find("[sass]") == beside.rfind("[sass]"));

  // Nothing left to disassemble: no interpreter starts (the one below would fail).
  sides.record["sides"][0]["interpreter"] = "false";
  {
    RunLog log((dir / "log1.txt").string());
    SassStep step(sides, (dir / "artifacts").string());
    step.start();
    step.finish(log, Log());
  }
  CHECK(read_text(dir / "log1.txt").find("[sass]") == std::string::npos);

  // An interpreter that fails: logged, and the run goes on.
  write_text(triton / "0-k-w4/k.cubin", "cubin bytes");
  write_text(triton / "kernels.json", R"({"schema_version": 1, "launches": [{"order": 0, "name": "k", "cubin": "0-k-w4/k.cubin"}]})");
  sides.record["sides"][0]["interpreter"] = "false";
  std::vector<std::string> warned;
  const Log warnings([&warned](LogLevel level, const std::string& line) {
    if (level == LogLevel::warning) warned.push_back(line);
  });
  {
    RunLog log((dir / "log2.txt").string());
    SassStep((sides), (dir / "artifacts").string()).finish(log, warnings);
  }
  CHECK(read_text(dir / "log2.txt").find("[sass] not made: exit 1") != std::string::npos);
  REQUIRE(warned.size() == 1);
  CHECK(warned[0].rfind("the SASS of the Triton kernels was not made: exit 1", 0) == 0);
  warned.clear();
  // Failed beside the measurement: said once, not tried again after it.
  {
    RunLog log((dir / "log3.txt").string());
    SassStep step(sides, (dir / "artifacts").string());
    step.start();
    step.finish(log, warnings);
  }
  const auto failed = read_text(dir / "log3.txt");
  CHECK(failed.find("[sass] not made: exit 1") != std::string::npos);
  CHECK(failed.find("[sass]") == failed.rfind("[sass]"));
  CHECK(warned.size() == 1);
  fs::remove_all(dir);
}
