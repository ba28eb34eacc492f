#include "worker/kernel_record.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace isobench::worker;

namespace {

KernelActivity activity(const std::string& name, std::uint64_t ns, std::array<std::int32_t, 3> grid = {128, 1, 1},
                        std::array<std::int32_t, 3> block = {256, 1, 1}) {
  KernelActivity a;
  a.name = name;
  a.grid = grid;
  a.block = block;
  a.gpu_ns = ns;
  return a;
}

}  // namespace

TEST_CASE("C++ kernel symbols are demangled; other names are kept, long ones cut") {
  CHECK(demangle_kernel_name("_Z11cast_kernelPKfP13__nv_bfloat16m") == "cast_kernel(float const*, __nv_bfloat16*, unsigned long)");
  CHECK(demangle_kernel_name("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64") ==
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64");
  CHECK(demangle_kernel_name("_Znot a symbol") == "_Znot a symbol");  // a failed demangle keeps the text
  const std::string long_name = demangle_kernel_name(std::string(5000, 'k'));
  CHECK(long_name.size() == kMaxKernelNameChars);
  CHECK(long_name.substr(long_name.size() - 3) == "...");
}

TEST_CASE("a pass is aggregated per kernel, grid and block, largest GPU time first") {
  // Two launches of a GEMM benchmark that each run a main kernel and a small reduction; the
  // reduction ran once with another grid.
  std::vector<KernelActivity> pass = {
      activity("_Z6reducePfi", 1000, {4, 1, 1}),     activity("sm90_gemm", 9000, {132, 1, 1}, {384, 1, 1}),
      activity("_Z6reducePfi", 3000, {8, 1, 1}),     activity("sm90_gemm", 11000, {132, 1, 1}, {384, 1, 1}),
  };
  const KernelRecord r = aggregate_kernels(pass, 2, 0);
  CHECK(r.inner == 2);
  CHECK(r.kernel_launches == 4);
  CHECK(r.total_ns == 24000);
  CHECK(r.kernels_per_launch() == doctest::Approx(2.0));
  CHECK(r.kernel_gpu_s_per_launch() == doctest::Approx(12000e-9));
  REQUIRE(r.kernels.size() == 3);
  CHECK(r.kernels[0].name == "sm90_gemm");
  CHECK(r.kernels[0].launches == 2);
  CHECK(r.kernels[0].total_ns == 20000);
  CHECK(r.kernels[0].share == doctest::Approx(20000.0 / 24000));
  CHECK(r.kernels[0].grid == std::array<std::int32_t, 3>{132, 1, 1});
  CHECK(r.kernels[0].block == std::array<std::int32_t, 3>{384, 1, 1});
  CHECK(r.kernels[1].name == "reduce(float*, int)");
  CHECK(r.kernels[1].grid == std::array<std::int32_t, 3>{8, 1, 1});
  CHECK(r.kernels[1].total_ns == 3000);
  CHECK(r.kernels[2].grid == std::array<std::int32_t, 3>{4, 1, 1});
  double shares = 0;
  for (const auto& k : r.kernels) shares += k.share;
  CHECK(shares == doctest::Approx(1.0));

  const auto j = nlohmann::json::parse(encode_kernel_record(r, 8192));
  CHECK(j["pass"] == "untimed");
  CHECK(j["inner"] == 2);
  CHECK(j["kernels_per_launch"].get<double>() == doctest::Approx(2.0));
  CHECK(j["kernel_gpu_s_per_launch"].get<double>() == doctest::Approx(12e-6));
  CHECK(j["truncated_kernels"] == 0);
  CHECK_FALSE(j.contains("note"));
  REQUIRE(j["kernels"].size() == 3);
  CHECK(j["kernels"][0]["name"] == "sm90_gemm");
  CHECK(j["kernels"][0]["launches_per_sample"] == 2);
  CHECK(j["kernels"][0]["total_gpu_ns"] == 20000);
  CHECK(j["kernels"][0]["mean_gpu_ns"].get<double>() == doctest::Approx(10000));
  CHECK(j["kernels"][0]["grid"] == nlohmann::json::array({132, 1, 1}));
}

TEST_CASE("an empty pass and lost records are said, not hidden") {
  const KernelRecord none = aggregate_kernels({}, 5, 0);
  CHECK(none.kernels.empty());
  CHECK(none.kernel_gpu_s_per_launch() == 0);
  const auto j = nlohmann::json::parse(encode_kernel_record(aggregate_kernels({activity("k", 10)}, 1, 7), 8192));
  CHECK(j["dropped_records"] == 7);
  CHECK(j["warning"].get<std::string>().find("dropped 7") != std::string::npos);
}

TEST_CASE("a record too long for its buffer drops the smallest kernels and says how much it dropped") {
  std::vector<KernelActivity> pass;
  // 40 kernels with 300-character names: about 16 KB of JSON, twice the buffer.
  for (int i = 0; i < 40; ++i)
    pass.push_back(activity("kernel_" + std::to_string(100 + i) + std::string(300, 'x'), 1000 + 100 * i));
  const KernelRecord r = aggregate_kernels(pass, 1, 0);
  const std::string full = encode_kernel_record(r, 1 << 20);
  REQUIRE(full.size() > 8192);
  const std::string text = encode_kernel_record(r, 8192);
  CHECK(text.size() < 8192);
  const auto j = nlohmann::json::parse(text);
  const std::size_t kept = j["kernels"].size();
  CHECK(kept > 0);
  CHECK(kept < 40);
  CHECK(j["truncated_kernels"] == 40 - kept);
  CHECK(j["note"].get<std::string>().find(std::to_string(40 - kept) + " kernels") == 0);
  // The kept ones are the largest: the first is kernel_139, and every dropped one was smaller.
  CHECK(j["kernels"][0]["name"].get<std::string>().rfind("kernel_139", 0) == 0);
  double kept_share = 0;
  for (const auto& k : j["kernels"]) kept_share += k["share"].get<double>();
  CHECK(kept_share + j["truncated_share"].get<double>() == doctest::Approx(1.0));
  const double smallest_kept = j["kernels"].back()["share"].get<double>();
  const double largest_dropped = r.kernels[kept].share;
  CHECK(largest_dropped <= smallest_kept);
  // The totals still describe the whole pass.
  CHECK(j["kernel_launches"] == 40);
}

TEST_CASE("no record: the reason, cut to fit") {
  CHECK(nlohmann::json::parse(encode_no_kernel_record("CUPTI records CUDA kernels only", 8192)) ==
        nlohmann::json{{"reason", "CUPTI records CUDA kernels only"}});
  const std::string text = encode_no_kernel_record(std::string(300, '"'), 100);  // escapes double it
  CHECK(text.size() < 100);
  const auto j = nlohmann::json::parse(text);
  CHECK(j["reason"].get<std::string>().substr(j["reason"].get<std::string>().size() - 3) == "...");
}
