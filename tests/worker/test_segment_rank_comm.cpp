// cpu_allgather_matmul through the worker's RankComm over a real segment: threads play the ranks,
// and each rank's output agrees with the single-process reference its check() rebuilds.
#include <doctest/doctest.h>

#include <thread>
#include <vector>

#include "kernels/benchmark.hpp"
#include "kernels/catalog.hpp"
#include "rank_segment.hpp"
#include "worker/segment_rank_comm.hpp"

using namespace isobench;

namespace {

kernels::Params params(int ranks) {
  kernels::Params p;
  const auto problem = kernels::complete_params(*kernels::find_kernel("cpu_allgather_matmul"),
                                                {{"m", 24}, {"k", 16}, {"n", 8}, {"ranks", ranks}}, p);
  REQUIRE(problem.empty());
  return p;
}

}  // namespace

TEST_CASE("cpu_allgather_matmul: one rank needs no group and agrees with its reference") {
  auto bench = kernels::create_benchmark("cpu_allgather_matmul");
  bench->setup(params(1), {.seed = 3, .rotate_buffers = 2});
  for (int i = 0; i < 3; ++i) bench->launch();
  CHECK(bench->check() == "");
}

TEST_CASE("cpu_allgather_matmul: 2 and 3 ranks gather every rank's rows, in rank order") {
  for (std::uint32_t world : {2u, 3u}) {
    auto seg = testing::rank_segment(world);
    std::vector<std::string> verdicts(world);
    std::vector<std::thread> ranks;
    for (std::uint32_t r = 0; r < world; ++r)
      ranks.emplace_back([&, r] {
        worker::SegmentRankComm comm(seg, 0, r, world, [] {});
        auto bench = kernels::create_benchmark("cpu_allgather_matmul");
        kernels::SetupContext ctx{.seed = 3, .rotate_buffers = 2};
        ctx.ranks = &comm;
        bench->setup(params(static_cast<int>(world)), ctx);
        for (int i = 0; i < 3; ++i) bench->launch();
        verdicts[r] = bench->check();
      });
    for (auto& t : ranks) t.join();
    for (const auto& v : verdicts) CHECK(v == "");
  }
}

TEST_CASE("cpu_allgather_matmul: ranks above 1 without a group is refused at setup") {
  auto bench = kernels::create_benchmark("cpu_allgather_matmul");
  CHECK_THROWS_WITH_AS(bench->setup(params(2), {.seed = 3}),
                       "cpu_allgather_matmul: ranks 2 needs that many worker ranks (run it through orchestrate)",
                       std::runtime_error);
}
