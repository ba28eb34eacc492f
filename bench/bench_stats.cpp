// Times the statistics: bench_stats [n] (default 1000000 per side).
// First the verdicts as compare decides them (stats::decide_sweep): one instance at 50 and 200
// per side, A/A and 4% slower, each in a fresh table cache as a fresh `compare --samples` has it
// (the goal: under 50 ms); then sweeps of 1,000 instances at 20 per side, A/A and with 50 of
// them 5% slower (the goal: under 1 s). Then the permutation p-value at the sample sizes users
// take (8, 12, 20, 30 per side): the first call of a size builds its table (exact) or starts
// its draws, later calls look up or continue them; tied samples are enumerated or drawn per
// call. Then the large-sample path, which must stay well under a second for 10^6 + 10^6 values
// (O(n log n)).
#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bench/verdict_sweeps.hpp"
#include "stats/brunner_munzel.hpp"
#include "stats/descriptive.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/sweep_verdict.hpp"

namespace {

// Process CPU seconds (every thread) of `work`: on a shared machine the wall time also holds
// the other processes' turns.
template <class F>
double cpu_seconds(F&& work) {
  const std::clock_t start = std::clock();
  work();
  return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
}

template <class F>
double seconds(F&& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace isobench::stats;
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  std::mt19937_64 engine(1);
  std::lognormal_distribution<double> noise(0.0, 0.05);

  std::printf("verdicts (decide_sweep, alpha 0.001, Holm, floor 2%%), lognormal 5%% noise, first call of each size\n");
  std::printf("%-62s %10s %10s  %s\n", "sweep", "wall", "CPU", "first instance: p [method, draws]; verdicts");
  for (const auto& sw : isobench::bench::kVerdictSweeps) {
    std::vector<std::vector<double>> a, b;
    sw.draw(a, b);
    std::vector<SamplePair> pairs;
    for (std::size_t i = 0; i < sw.instances; ++i) pairs.push_back({a[i], b[i]});
    SweepRule rule;
    rule.seed += sw.seed;  // a seed of its own: no table of an earlier sweep is reused
    std::vector<InstanceVerdict> v;
    double cpu = 0;
    const double s = seconds([&] { cpu = cpu_seconds([&] { v = decide_sweep(pairs, rule); }); });
    std::size_t counts[4] = {0, 0, 0, 0};
    for (const auto& r : v) ++counts[static_cast<int>(r.verdict)];
    std::printf("%-62s %7.1f ms %7.1f ms  p %.3g [%s, %.0f]; SLOWER %zu, FASTER %zu, SAME %zu, UNCERTAIN %zu\n",
                sw.name, s * 1e3, cpu * 1e3, v[0].test.p_value, std::string(to_string(v[0].test.method)).c_str(), v[0].test.labellings,
                counts[0], counts[1], counts[2], counts[3]);
  }
  std::printf("\n");

  std::printf("permutation p-value, lognormal 5%%, default level 0.001\n");
  std::printf("%4s  %-28s %12s %12s %12s  %s\n", "n", "samples", "first call", "next (mean)", "p", "method");
  for (std::size_t small : {8, 12, 20, 30}) {
    for (const char* kind : {"untied, A/A", "untied, 10% slower", "ties (clock of 1%), A/A", "ties, 10% slower"}) {
      const bool tied = kind[0] == 't', slower = std::string_view(kind).find("slower") != std::string_view::npos;
      auto draw = [&](double factor) {
        std::vector<double> v(small);
        for (double& x : v) x = factor * noise(engine);
        if (tied)
          for (double& x : v) x = std::round(100 * x) / 100;
        return v;
      };
      const int calls = 20;
      double first = 0, rest = 0;
      BrunnerMunzelResult r;
      for (int c = 0; c <= calls; ++c) {
        const auto a = draw(1.0), b = draw(slower ? 1.1 : 1.0);
        const double s = seconds([&] { r = brunner_munzel(a, b); });
        (c == 0 ? first : rest) += s;
      }
      std::printf("%4zu  %-28s %9.3f ms %9.3f ms %12.3g  %s\n", small, kind, first * 1e3, rest / calls * 1e3, r.p_value,
                  std::string(to_string(r.method)).c_str());
    }
  }
  std::printf("\n");

  std::vector<double> baseline(n), candidate(n);
  for (double& v : baseline) v = 1e-5 * noise(engine);
  for (double& v : candidate) v = 1.01e-5 * noise(engine);

  // Best of five: the first call also pays for faulting in fresh pages, and a shared machine
  // adds noise; the minimum is the cost of the algorithm.
  BrunnerMunzelResult bm;
  double bm_s = 1e300;
  for (int repeat = 0; repeat < 5; ++repeat)
    bm_s = std::min(bm_s, seconds([&] { bm = brunner_munzel(baseline, candidate); }));
  MannWhitneyResult mw;
  const double mw_s = seconds([&] { mw = mann_whitney_u(baseline, candidate); });
  HodgesLehmannRatio hl;
  const double hl_s = seconds([&] { hl = hodges_lehmann_ratio(baseline, candidate); });
  Descriptive d;
  const double d_s = seconds([&] { d = describe(baseline); });

  std::printf("n = %zu per side\n", n);
  std::printf("brunner_munzel   %8.3f s (best of 5)  statistic %.4f  df %.1f  p %.3g\n", bm_s, bm.statistic, bm.df, bm.p_value);
  std::printf("mann_whitney_u   %8.3f s  p %.3g\n", mw_s, mw.p_value);
  std::printf("hodges_lehmann   %8.3f s  ratio %.5f [%.5f, %.5f]\n", hl_s, hl.ratio, hl.lo, hl.hi);
  std::printf("describe         %8.3f s  median %.4g\n", d_s, d.median);
  return 0;
}
