// `orchestrate kernels` (orchestrator/commands/kernels_command.hpp): the catalog as JSON and as
// text, checked against the kernel specs themselves, with a plugin's kernels and a broken plugin.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kernels/catalog.hpp"
#include "orchestrator/commands/kernels_command.hpp"

using namespace isobench::orchestrator;
using nlohmann::json;

namespace {

std::string lib(const std::string& name) {
  const char* dir = std::getenv("ISOBENCH_BINARY_DIR");
  return std::string(dir ? dir : ".") + "/lib/" + name;
}

struct Printed {
  int code = -1;
  std::string out, err;
};

Printed list(const KernelsOptions& options) {
  std::ostringstream out, err;
  Printed p;
  p.code = run_kernels(options, out, err);
  p.out = out.str();
  p.err = err.str();
  return p;
}

const json& kernel(const json& catalog, const std::string& name) {
  for (const auto& k : catalog.at("kernels"))
    if (k.at("name") == name) return k;
  FAIL("no kernel " << name);
  return catalog;
}

const json& axis(const json& k, const std::string& name) {
  for (const auto& a : k.at("axes"))
    if (a.at("name") == name) return a;
  FAIL("no axis " << name);
  return k;
}

}  // namespace

TEST_CASE("--json lists every built-in kernel with every axis as its spec declares it") {
  const auto printed = list({.json = true});
  REQUIRE(printed.code == 0);
  const auto catalog = json::parse(printed.out);
  CHECK(catalog["schema_version"] == kKernelsSchemaVersion);
  const auto& builtin = isobench::kernels::builtin_catalog();
  REQUIRE(catalog["kernels"].size() == builtin.size());
  for (std::size_t i = 0; i < builtin.size(); ++i) {
    const auto& k = catalog["kernels"][i];
    CAPTURE(builtin[i].name);
    CHECK(k["name"] == builtin[i].name);
    CHECK(k["family"] == builtin[i].family);
    CHECK(k["backend"] == isobench::kernels::to_string(builtin[i].backend));
    CHECK(k["plugin"].is_null());
    REQUIRE(k["axes"].size() == builtin[i].axes.size());
    for (std::size_t a = 0; a < builtin[i].axes.size(); ++a) {
      CHECK(k["axes"][a]["name"] == builtin[i].axes[a].name);
      CHECK(k["axes"][a]["required"] == !builtin[i].axes[a].default_value);
    }
  }
  // A few axes written out, one of each kind.
  const auto& gemm = kernel(catalog, "gemm");
  CHECK(gemm["backend"] == "cuda");
  CHECK(axis(gemm, "m") == json{{"name", "m"}, {"type", "integer"}, {"help", "rows of D"}, {"default", nullptr},
                                {"required", true}, {"min", 1}, {"max", 1 << 20}});
  CHECK(axis(gemm, "dtype")["choices"] == json{"bf16", "fp16", "fp8e4m3", "tf32"});
  CHECK(axis(gemm, "dtype")["default"] == "bf16");
  CHECK(axis(gemm, "algo")["min"] == -1);
  CHECK(axis(kernel(catalog, "cpu_spin"), "microseconds")["type"] == "number");
  CHECK(axis(kernel(catalog, "cpu_allgather_matmul"), "ranks")["max"] == 8);
}

TEST_CASE("the text catalog: a block per kernel, an aligned row per axis with its default and values") {
  const auto printed = list({});
  REQUIRE(printed.code == 0);
  const auto& text = printed.out;
  for (const auto& spec : isobench::kernels::builtin_catalog())
    CHECK_MESSAGE(("\n" + text).find("\n" + spec.name + "  (") != std::string::npos, spec.name);
  CHECK(text.find("gemm  (cuda, family gemm)") != std::string::npos);
  CHECK(text.find("    dtype  string   bf16      bf16 | fp16 | fp8e4m3 | tf32") != std::string::npos);
  CHECK(text.find("    m      integer  required  1 .. 1048576") != std::string::npos);
  CHECK(text.find(std::to_string(isobench::kernels::builtin_catalog().size()) + " kernels;") != std::string::npos);
  CHECK(printed.err.empty());
}

TEST_CASE("--plugin adds the library's kernels after the built-in ones; one that does not load is exit 2") {
  const std::string stencil = lib("libisobench_example_cpu.so");
  const auto printed = list({.plugins = {stencil}, .json = true});
  REQUIRE_MESSAGE(printed.code == 0, printed.err);
  const auto catalog = json::parse(printed.out);
  CHECK(catalog["kernels"].size() == isobench::kernels::builtin_catalog().size() + 1);
  const auto& k = catalog["kernels"].back();
  CHECK(k["name"] == "example_stencil");
  CHECK(k["family"] == "stencil");
  CHECK(k["plugin"].get<std::string>().ends_with("/lib/libisobench_example_cpu.so"));
  CHECK(axis(k, "n") == json{{"name", "n"}, {"type", "integer"}, {"help", "vector length (floats)"},
                             {"default", 65536}, {"required", false}, {"min", 3}, {"max", 1000000000}});
  CHECK(list({.plugins = {stencil}}).out.find(", plugin " + k["plugin"].get<std::string>() + ")") != std::string::npos);

  for (const std::string& bad : {lib("libisobench_test_plugin_abi2.so"), lib("libnope.so")}) {
    const auto refused = list({.plugins = {bad}});
    CHECK(refused.code == 2);
    CHECK(refused.out.empty());
    CHECK_MESSAGE(refused.err.rfind("orchestrate kernels: --plugin " + bad + ": ", 0) == 0, refused.err);
    CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
  }
}
