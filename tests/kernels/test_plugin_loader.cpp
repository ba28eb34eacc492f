// The plugin loader: the example CPU plugin's descriptors become specs and benchmarks; broken
// plugins are refused with one line that names the library.

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "kernels/plugin_loader.hpp"

using namespace isobench::kernels;

namespace {

std::string lib(const std::string& name) {
  const char* d = std::getenv("ISOBENCH_BINARY_DIR");
  return std::string(d ? d : ".") + "/lib/" + name;
}

}  // namespace

TEST_CASE("the example plugin's kernel becomes a spec with its axes, defaults, bounds and throughput") {
  const Plugin& plugin = load_plugin(lib("libisobench_example_cpu.so"));
  CHECK(&plugin == &load_plugin(lib("libisobench_example_cpu.so")));  // loaded once
  REQUIRE(plugin.specs().size() == 1);
  const KernelSpec& spec = plugin.specs()[0];
  CHECK(spec.name == "example_stencil");
  CHECK(spec.family == "stencil");
  CHECK(spec.backend == Backend::cpu);
  REQUIRE(spec.axes.size() == 2);
  CHECK(spec.axes[0].name == "n");
  CHECK(spec.axes[0].type == AxisType::integer);
  CHECK(*spec.axes[0].default_value == 65536);
  CHECK(spec.axes[0].min == 3);
  CHECK(check_value(spec.axes[0], 2) == "must be at least 3, got 2");
  CHECK(check_value(spec.axes[1], "x").find("expected an integer") == 0);
  Params params;
  REQUIRE(complete_params(spec, {{"n", 1000}}, params) == "");
  CHECK(params == nlohmann::json{{"n", 1000}, {"steps", 20}});
  CHECK(instance_id(spec, params) == "example_stencil[n=1000,steps=20]");
  CHECK(spec.bytes_per_launch(params) == 1000u * 20 * 8);
  CHECK(spec.flops_per_launch(params) == 1000u * 20 * 3);
  CHECK(plugin.find("example_stencil") == &spec);
  CHECK(plugin.find("nope") == nullptr);
}

TEST_CASE("a plugin benchmark sets up, launches and reports setup errors with the plugin's reason") {
  const Plugin& plugin = load_plugin(lib("libisobench_example_cpu.so"));
  auto bench = plugin.create_benchmark("example_stencil");
  REQUIRE(bench);
  SetupContext ctx;
  ctx.seed = 7;
  bench->setup({{"n", 4096}, {"steps", 3}}, ctx);
  bench->launch();
  CHECK(bench->check().empty());
  CHECK(bench->describe()["plugin"] == lib("libisobench_example_cpu.so"));

  auto broken = plugin.create_benchmark("example_stencil");
  CHECK_THROWS_WITH_AS(broken->setup({{"size", 1}}, ctx), doctest::Contains("expected n and steps"),
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(plugin.create_benchmark("nope"), "plugin libisobench_example_cpu.so has no kernel nope",
                       PluginError);
}

TEST_CASE("broken plugins are refused with one line naming the library") {
  CHECK_THROWS_WITH_AS(load_plugin(lib("libisobench_test_plugin_abi2.so")),
                       "plugin libisobench_test_plugin_abi2.so: ABI version 2, this isobench speaks 1", PluginError);
  CHECK_THROWS_WITH_AS(load_plugin(lib("libisobench_test_plugin_no_describe.so")),
                       "plugin libisobench_test_plugin_no_describe.so: missing symbol isobench_plugin_describe",
                       PluginError);
  CHECK_THROWS_WITH_AS(load_plugin(lib("libisobench_test_plugin_clash.so")),
                       "plugin libisobench_test_plugin_clash.so: kernel cpu_copy has the name of a built-in "
                       "kernel; rename it",
                       PluginError);
  CHECK_THROWS_WITH_AS(load_plugin(lib("libisobench_test_plugin_bad_default.so")),
                       "plugin libisobench_test_plugin_bad_default.so: kernel bad_kernel: axis n: default is not "
                       "JSON: {not json",
                       PluginError);
  try {
    load_plugin(lib("libnope.so"));
    FAIL("loaded a library that does not exist");
  } catch (const PluginError& e) {
    const std::string what = e.what();
    CHECK(what.rfind("cannot load libnope.so: ", 0) == 0);
    CHECK(what.find("No such file") != std::string::npos);  // dlerror's reason
  }
}
