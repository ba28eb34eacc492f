// allgather_gemm across two GPUs through the worker's RankComm over a real segment: two threads
// play ranks 0 and 1, each on its own GPU (rank 0 publishes NCCL's unique id through the segment),
// and each rank's C agrees with the host reference its check() rebuilds from every rank's inputs.
// With fewer than two CUDA devices the suite exits 77 (ctest: skipped).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "kernels/benchmark.hpp"
#include "kernels/catalog.hpp"
#include "worker/cuda/cuda_device.hpp"
#include "rank_segment.hpp"
#include "worker/segment_rank_comm.hpp"

using namespace isobench;

namespace {

// Every rank's check() verdict (or the exception its setup threw) for one instance on 2 ranks.
std::vector<std::string> run_two_ranks(const nlohmann::json& given) {
  constexpr std::uint32_t world = 2;
  kernels::Params params;
  REQUIRE(kernels::complete_params(*kernels::find_kernel("allgather_gemm"), given, params).empty());
  auto seg = testing::rank_segment(world);
  std::vector<std::string> verdicts(world);
  std::vector<std::thread> ranks;
  for (std::uint32_t r = 0; r < world; ++r)
    ranks.emplace_back([&, r] {
      try {
        worker::CudaDevice device(static_cast<int>(r));
        worker::SegmentRankComm comm(seg, 0, r, world, [] {});
        auto bench = kernels::create_benchmark("allgather_gemm");
        kernels::SetupContext ctx{.seed = 5, .cuda_stream = device.stream(), .rotate_buffers = 2};
        ctx.ranks = &comm;
        bench->setup(params, ctx);
        for (int i = 0; i < 3; ++i) bench->launch();
        device.synchronize();
        verdicts[r] = bench->check();
      } catch (const std::exception& e) {
        verdicts[r] = std::string("threw: ") + e.what();
      }
    });
  for (auto& t : ranks) t.join();
  return verdicts;
}

}  // namespace

TEST_CASE("allgather_gemm on 2 GPUs: every rank's C agrees with the reference, sequence and every overlap") {
  for (const char* dtype : {"bf16", "fp32"}) {
    std::vector<nlohmann::json> cases = {{{"impl", "sequence"}, {"chunks", 1}}};
    for (int chunks : {1, 2, 4, 8}) cases.push_back({{"impl", "overlap"}, {"chunks", chunks}});
    for (auto given : cases) {
      given.update({{"m", 256}, {"k", 64}, {"n", 48}, {"ranks", 2}, {"dtype", dtype}});
      INFO(given.dump());
      const auto verdicts = run_two_ranks(given);
      for (std::size_t r = 0; r < verdicts.size(); ++r) CHECK_MESSAGE(verdicts[r].empty(), "rank " << r << ": " << verdicts[r]);
    }
  }
}

int main(int argc, char** argv) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count < 2) {
    std::printf("test_allgather_gemm_ranks: %d CUDA devices, 2 needed; skipped\n", count);
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
