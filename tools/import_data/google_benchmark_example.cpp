// Benchmarks for Google Benchmark to time, only so that its JSON (with repetitions) can be
// committed as test data for `orchestrate import` (tools/import_data/make_test_data.sh).
#include <benchmark/benchmark.h>

#include <cstring>
#include <numeric>
#include <vector>

static void BM_copy(benchmark::State& state) {
  std::vector<char> from(static_cast<std::size_t>(state.range(0)), 'x'), to(from.size());
  for (auto _ : state) {
    std::memcpy(to.data(), from.data(), from.size());
    benchmark::DoNotOptimize(to.data());
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_copy)->Arg(4096)->Arg(1 << 20);

static void BM_sum(benchmark::State& state) {
  std::vector<double> v(10000, 1.5);
  for (auto _ : state) benchmark::DoNotOptimize(std::accumulate(v.begin(), v.end(), 0.0));
}
BENCHMARK(BM_sum);

BENCHMARK_MAIN();
